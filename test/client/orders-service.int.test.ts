/** The typed client's order methods against the real service: buying, replays, the 504 look-up, claims and pages. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MarketClient } from '../../src/client/index.js';
import { isApiError } from '../../src/contract/api-error.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { ledgerOf, listingsFor } from '../helpers/trading.js';

describe('MarketClient orders against the service', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ listings: 600 });
  });
  afterAll(() => t.close());

  async function withClient<T>(
    use: (client: MarketClient, key: string) => Promise<T>,
    sleep: () => Promise<void> = async () => undefined,
  ): Promise<T> {
    const { key } = await t.account({ balance_usd: 500, trading: true });
    const client = new MarketClient({ baseUrl: t.baseUrl, apiKey: key, sleep });
    try {
      return await use(client, key);
    } finally {
      await client.close();
    }
  }

  it('buys, replays with the same key, and reads the order back by id, custom_id and page', async () => {
    await withClient(async (client, key) => {
      const [listing] = await listingsFor(t, key, { delivery: 'instant' });
      const order = await client.orders.create(
        { listing_ids: [listing?.id ?? ''] },
        { idempotencyKey: 'client-1' },
      );
      expect(order).toMatchObject({ status: 'delivering', custom_id: 'client-1', item_count: 1 });
      const again = await client.orders.create(
        { listing_ids: [listing?.id ?? ''] },
        { idempotencyKey: 'client-1' },
      );
      expect(again).toEqual(order);
      expect((await client.orders.get(order.order_id)).order_id).toBe(order.order_id);
      expect((await client.orders.getByCustomId('client-1')).order_id).toBe(order.order_id);
      const page = await client.orders.list({ limit: 10 });
      expect(page.data.map((o) => o.order_id)).toEqual([order.order_id]);
    });
  });

  it('answers a 504 by looking the order up by its key instead of buying twice', async () => {
    await withClient(async (client, key) => {
      const [listing] = await listingsFor(t, key);
      await t.sandbox('/faults', { upstream_timeout_next: 1 });
      const order = await client.orders.create(
        { listing_ids: [listing?.id ?? ''] },
        { idempotencyKey: 'client-504' },
      );
      expect(order.custom_id).toBe('client-504');
      expect((await ledgerOf(t, key)).filter((r) => r.type === 'purchase')).toHaveLength(1);
    });
  });

  it('retries market_unavailable with the same key once the outage clears', async () => {
    // The client's wait before its retry is where the outage ends.
    const outageEnds = async () => {
      await t.sandbox('/faults', { market_unavailable: false });
    };
    await withClient(async (client, key) => {
      const [listing] = await listingsFor(t, key);
      await t.sandbox('/faults', { market_unavailable: true });
      const order = await client.orders.create(
        { listing_ids: [listing?.id ?? ''] },
        { idempotencyKey: 'client-503' },
      );
      expect(order.custom_id).toBe('client-503');
      expect((await ledgerOf(t, key)).filter((r) => r.type === 'purchase')).toHaveLength(1);
    }, outageEnds);
  });

  it('throws price_moved at once as a typed error with the live total', async () => {
    await withClient(async (client, key) => {
      const [listing] = await listingsFor(t, key);
      const refused = await client.orders
        .create({ listing_ids: [listing?.id ?? ''], max_price_usd: 0.01 }, { idempotencyKey: 'client-409' })
        .catch((error: unknown) => error);
      expect(isApiError(refused) && refused.code).toBe('price_moved');
    });
  });
});
