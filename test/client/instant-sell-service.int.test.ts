/**
 * The typed client's Instant Sell resource against the real service over loopback: access, quotes,
 * sell orders idempotent by external_id (replays, a lost answer sent again unchanged, mismatches
 * thrown at once), the lifecycle on the service clock, and paging; refusals arrive as ApiError.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isNetworkError } from '../../src/client/errors.js';
import type { MarketClient } from '../../src/client/index.js';
import { isApiError } from '../../src/contract/api-error.js';
import { SELL_LIMITS, type SellQuote, type SellQuoteBody } from '../../src/contract/sell.js';
import { createSeller, grant, type Seller, sellableItems } from '../helpers/sell.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { advance } from '../helpers/trading.js';
import { LOSSES, type LossyProxy, startLossyProxy } from './lossy-proxy.js';
import { recordingClient } from './recording-client.js';
import { refusalOf } from './scripted-server.js';

let t: TestService;
let proxy: LossyProxy;
let item: { name: string; priceUsd: number };
beforeAll(async () => {
  t = await startTestService({ rateLimits: { read: 1_000_000, sell_write: 1_000_000 } });
  proxy = await startLossyProxy(t.origin);
  const [first] = await sellableItems(t, (await t.account()).key, 1);
  item = first as { name: string; priceUsd: number };
});
afterAll(async () => {
  await proxy?.close();
  await t?.close();
});

/** What the spread leaves of a market price: the exact credit, in USD. */
const credit = (priceUsd: number) =>
  Math.floor((Math.round(priceUsd * 100) * (100 - SELL_LIMITS.spreadPercent)) / 100) / 100;

/** A seller with Instant Sell (unless told) holding `copies` copies, and its client through the proxy. */
async function sellerClient(copies: number, instantSell = true) {
  const seller = await createSeller(t, instantSell);
  const assetIds = copies === 0 ? [] : await grant(t, seller, item.name, copies);
  return { seller, assetIds, ...recordingClient(proxy.baseUrl, seller.key) };
}

/** A quote once the fresh inventory's first read is over, waited out on the service clock. */
async function readyQuote(
  client: MarketClient,
  seller: Seller,
  body: Partial<SellQuoteBody> = {},
): Promise<SellQuote> {
  const ask = () => client.instantSell.quote({ trade_url: seller.tradeUrl, ...body });
  try {
    return await ask();
  } catch (error) {
    if (!isApiError(error) || error.code !== 'inventory_pending') throw error;
    await advance(t, Math.ceil(Number(error.extra.retry_after_ms) / 1000));
    return ask();
  }
}

/** POST /sell/orders requests that reached the service so far. */
function ordersSent(): number {
  return proxy.forwarded.filter((r) => r === 'POST /v1/sell/orders').length;
}

describe('client.instantSell against the service', () => {
  it('reads the status of an account with Instant Sell, and refuses the others with 403 instant_sell_not_enabled', async () => {
    const { client } = await sellerClient(0);
    const { client: outsider, seller: outsiderSeller } = await sellerClient(0, false);
    expect(await client.instantSell.status()).toMatchObject({
      enabled: true,
      max_bots_per_order: SELL_LIMITS.maxBotsPerOrder,
      spread_percent: SELL_LIMITS.spreadPercent,
    });
    expect((await outsider.instantSell.status()).enabled).toBe(false);
    expect(await refusalOf(outsider.instantSell.quote({ trade_url: outsiderSeller.tradeUrl }))).toEqual([
      403,
      'instant_sell_not_enabled',
    ]);
    expect(await refusalOf(outsider.instantSell.orders())).toEqual([403, 'instant_sell_not_enabled']);
  });

  it('quotes the exact credit per copy, places an order, and replays it by external_id', async () => {
    const { client, seller, assetIds, waits } = await sellerClient(2);
    const quote = await readyQuote(client, seller);
    expect(quote.items.map((i) => [i.asset_id, i.eligible, i.amount_usd]).sort()).toEqual(
      assetIds.map((id) => [id, true, credit(item.priceUsd)]).sort(),
    );
    const body = { quote_id: quote.quote_id, external_id: 'sell-replay-1', min_total_usd: quote.total_usd };
    const order = await client.instantSell.createOrder(body);
    expect(order).toMatchObject({
      status: 'pending',
      external_id: 'sell-replay-1',
      total_usd: quote.total_usd,
    });
    expect(await client.instantSell.createOrder(body)).toEqual(order);
    expect(await client.instantSell.getOrder(order.id)).toEqual(order);

    const sent = ordersSent();
    expect(await refusalOf(client.instantSell.createOrder({ ...body, min_total_usd: 0 }))).toEqual([
      409,
      'idempotency_key_mismatch',
    ]);
    expect(
      await refusalOf(client.instantSell.createOrder({ quote_id: quote.quote_id, external_id: 'other' })),
    ).toEqual([409, 'sell_quote_used']);
    expect(ordersSent() - sent).toBe(2);
    expect(waits).toEqual([]);

    await advance(t, SELL_LIMITS.offerDelaySeconds);
    const offered = await client.instantSell.getOrder(order.id);
    expect(offered.status).toBe('offer_sent');
    expect(offered.offers.flatMap((o) => o.items).sort()).toEqual([...assetIds].sort());
  });

  it.each(LOSSES)(
    'sends an order whose answer was lost (%s: %s) again unchanged and sells once',
    async (loss, _how) => {
      const { client, seller } = await sellerClient(1);
      const quote = await readyQuote(client, seller);
      proxy.loseNext('POST', '/sell/orders', loss);
      const sent = ordersSent();
      const order = await client.instantSell.createOrder({
        quote_id: quote.quote_id,
        external_id: `lost-${loss}`,
      });
      expect(ordersSent() - sent).toBe(2);
      expect(order.external_id).toBe(`lost-${loss}`);
      const all = [];
      for await (const row of client.instantSell.allOrders()) all.push(row.id);
      expect(all).toEqual([order.id]);
    },
  );

  it('never sends an order without external_id twice: a lost answer is thrown', async () => {
    const { client, seller } = await sellerClient(1);
    const quote = await readyQuote(client, seller);
    proxy.loseNext('POST', '/sell/orders', 'drop');
    const sent = ordersSent();
    const error = await client.instantSell.createOrder({ quote_id: quote.quote_id }).catch((e: unknown) => e);
    expect(isNetworkError(error)).toBe(true);
    expect(ordersSent() - sent).toBe(1);
    // The order was made; reading the account's orders finds it.
    expect((await client.instantSell.orders()).data.map((o) => o.quote_id)).toEqual([quote.quote_id]);
  });

  it('pages sell orders with a cursor and walks them with the page and row iterators', async () => {
    const { client, seller, assetIds } = await sellerClient(2);
    const ids: string[] = [];
    for (const assetId of assetIds) {
      const quote = await readyQuote(client, seller, { asset_ids: [assetId] });
      ids.push((await client.instantSell.createOrder({ quote_id: quote.quote_id, external_id: assetId })).id);
    }
    const pages = [];
    for await (const page of client.instantSell.orderPages({ limit: 1 }))
      pages.push(page.data.map((o) => o.id));
    expect(pages).toEqual([[ids[1]], [ids[0]]]);
    const pending = [];
    for await (const order of client.instantSell.allOrders({ status: 'pending', limit: 1 }))
      pending.push(order.id);
    expect(pending).toEqual([ids[1], ids[0]]);
    // The compatibility method reads the same endpoint.
    expect((await client.instantSell.orders({ limit: 5 })).data.map((o) => o.id)).toEqual([ids[1], ids[0]]);
    expect(await refusalOf(client.instantSell.getOrder('so_unknown'))).toEqual([404, 'not_found']);
  });
});
