import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InjectedService, openInjectedService } from '../../helpers/injected-service.js';

let t: InjectedService;

beforeAll(async () => {
  t = await openInjectedService({ listings: 10 });
});
afterAll(() => t.close());

describe('GET /transactions', () => {
  it('pages the ledger newest first with meta.next_cursor', async () => {
    const { key, accountId } = await t.account({ balance_usd: 1 });
    for (let i = 2; i <= 7; i++) await t.sandbox(`/accounts/${accountId}/fund`, { amount_usd: i });
    const first = await t.call('/transactions?limit=4', { key });
    expect(first.body.data.map((r: { amount_usd: number }) => r.amount_usd)).toEqual([7, 6, 5, 4]);
    const second = await t.call(`/transactions?limit=4&cursor=${first.body.meta.next_cursor}`, { key });
    expect(second.body.data.map((r: { amount_usd: number }) => r.amount_usd)).toEqual([3, 2, 1]);
    expect(second.body.meta.next_cursor).toBeNull();
  });

  it('filters by type and by from/to in Unix seconds', async () => {
    const { key, accountId } = await t.account({ balance_usd: 1 });
    const mid = Math.floor(t.clock.now() / 1000) + 100;
    t.clock.advance(200_000);
    await t.sandbox(`/accounts/${accountId}/fund`, { amount_usd: 2 });
    expect((await t.call(`/transactions?from=${mid}`, { key })).body.data).toHaveLength(1);
    expect((await t.call(`/transactions?to=${mid}`, { key })).body.data).toHaveLength(1);
    expect((await t.call('/transactions?type=refund', { key })).body.data).toHaveLength(0);
    expect((await t.call('/transactions?type=deposit', { key })).body.data).toHaveLength(2);
  });

  it.each(['limit=0', 'limit=101', 'type=adjustmentx', 'from=yesterday', 'cursor=bm9wZQ', 'from=10&to=5'])(
    'answers 400 invalid_param for %s',
    async (query) => {
      const { key } = await t.account();
      const res = await t.call(`/transactions?${query}`, { key });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_param');
    },
  );
});
