/**
 * The sandbox clock's offset lives in the service database: a service process restarted on the
 * same database (after a stop, and after kill -9 in the middle of nothing) goes on from where the
 * clock was moved, so every row stamped after a restart is later than every row before it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KillableService, killableService } from '../helpers/killable-service.js';
import { ledgerOf } from '../helpers/trading.js';

const DAY_S = 86_400;

describe('the clock across restarts of the service process', () => {
  let service: KillableService;
  beforeAll(async () => {
    service = await killableService(['--listings', '200', '--churn-paused']);
  });
  afterAll(() => service.cleanUp());

  async function clock() {
    const res = await service.t.sandbox('/clock');
    expect(res.status).toBe(200);
    return { now: Date.parse(res.body.now), offset: res.body.offset_seconds as number };
  }

  it('never moves "now" back: the offset is stored with the database', async () => {
    const { t } = service;
    await service.start();
    const { key, accountId } = await t.account({ balance_usd: 10 });
    const moved = await t.sandbox('/clock', { advance_seconds: 36 * DAY_S });
    expect(moved.status).toBe(200);
    const before = await clock();
    expect(before.offset).toBeGreaterThanOrEqual(36 * DAY_S);
    expect((await t.sandbox(`/accounts/${accountId}/fund`, { amount_usd: 1 })).status).toBe(200);

    await service.stop();
    await service.start();
    const afterStop = await clock();
    expect(afterStop.now).toBeGreaterThanOrEqual(before.now);
    expect(afterStop.offset).toBeGreaterThanOrEqual(36 * DAY_S);
    expect((await t.sandbox(`/accounts/${accountId}/fund`, { amount_usd: 2 })).status).toBe(200);

    await t.sandbox('/clock', { advance_seconds: DAY_S });
    const beforeKill = await clock();
    await service.kill();
    await service.start();
    const afterKill = await clock();
    expect(afterKill.now).toBeGreaterThanOrEqual(beforeKill.now);
    expect(afterKill.offset).toBeGreaterThanOrEqual(37 * DAY_S);
    expect((await t.sandbox(`/accounts/${accountId}/fund`, { amount_usd: 3 })).status).toBe(200);

    // Newest first: each row is stamped no earlier than the rows written before it.
    const rows = await ledgerOf(t, key);
    expect(rows.map((r) => r.amount_usd)).toEqual([3, 2, 1, 10]);
    const stamps = rows.map((r) => Date.parse(r.created_at));
    expect(stamps).toEqual([...stamps].sort((a, b) => b - a));
    expect(stamps[0]).toBeGreaterThanOrEqual(afterKill.now);
    await service.stop();
  });
});
