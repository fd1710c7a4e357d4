/** A P2P listing in the public catalogue, bought with POST /orders, walked to the payout or to a refund on the service clock; reconciliation. */
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { churnUntil } from '../helpers/churn.js';
import {
  findP2PListing,
  listCopy,
  marketItem,
  p2pListing,
  publish,
  readyInventory,
  sellerWith,
  type TestAccount,
} from '../helpers/p2p.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { openStream } from '../helpers/stream.js';
import { advance, buy, cents, ledgerOf, ledgerProblems, listingsFor } from '../helpers/trading.js';

let t: TestService;
let item: { name: string; marketUsd: number };

beforeAll(async () => {
  t = await startTestService({ rateLimits: { read: 1_000_000, p2p_write: 1_000_000 } });
  const reader = await t.account();
  item = await marketItem(t, reader.key);
});
afterAll(() => t.close());

const DAY = 86_400;

/** A seller with one listed copy and a funded buyer whose platform user answers offers as told. */
async function listedSale(offers: 'accept' | 'decline' | 'ignore' = 'accept') {
  const seller = await sellerWith(t, item.name);
  const listing = await listCopy(t, seller, seller.assetIds[0] as string, item.marketUsd);
  const buyer = await t.account({ balance_usd: 1000, trading: true });
  if (offers !== 'accept') await t.sandbox(`/accounts/${buyer.accountId}`, { offers }, 'PATCH');
  return { seller, listing, buyer };
}

async function order(buyer: TestAccount, id: string): Promise<Record<string, any>> {
  return (await t.call(`/orders/${id}`, { key: buyer.key })).body;
}

describe('a P2P listing in the public catalogue', () => {
  it('enters /listings with a new event, the price list and the snapshot, and leaves them when delisted', async () => {
    const seller = await sellerWith(t, item.name);
    const watcher = await t.account({ balance_usd: 10 });
    const stream = openStream(t.baseUrl, watcher.key);
    await stream.opened;
    const price = Math.max(0.1, Math.round(item.marketUsd * 100 - 1) / 100);
    const listing = await listCopy(t, seller, seller.assetIds[0] as string, price);
    await stream.until((events) => events.some((e) => e.type === 'new' && e.data.id === listing.id));
    const shown = (
      await t.call(`/listings?name=${encodeURIComponent(item.name)}&limit=200`, { key: watcher.key })
    ).body.items;
    expect(shown.find((l: any) => l.id === listing.id)).toMatchObject({
      price_usd: price,
      source: 'p2p',
      delivery: 'up_to_12h',
    });
    await t.service.context.prices.rebuild();
    const prices = await t.call(`/prices?name=${encodeURIComponent(item.name)}`, { key: watcher.key });
    expect(prices.body.items.some((r: any) => r.min_ask_usd === price)).toBe(true);
    const snapshot = await fetch(`${t.baseUrl}/prices/snapshot.ndjson.gz`, {
      headers: { authorization: `Bearer ${watcher.key}` },
    });
    const rows = gunzipSync(Buffer.from(await snapshot.arrayBuffer()))
      .toString('utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(rows.some((r) => r.market_hash_name === item.name && Object.values(r).includes(price))).toBe(true);
    expect((await t.call(`/p2p/listings/${listing.id}`, { key: seller.key, method: 'DELETE' })).status).toBe(
      200,
    );
    await stream.until((events) => events.some((e) => e.type === 'gone' && e.data.id === listing.id));
    stream.close();
  });
});

describe('a P2P sale', () => {
  it('walks trade_pending → trade_sent → verification_hold, then ends sold with exactly seller_payout_usd credited', async () => {
    const { seller, listing, buyer } = await listedSale();
    const placed = await buy(t, buyer.key, { listing_ids: [listing.id] });
    expect(placed.status).toBe(201);
    expect((await p2pListing(t, seller.key, listing.id)).status).toBe('trade_pending');
    const gone = await t.call(`/listings?name=${encodeURIComponent(item.name)}&limit=200`, {
      key: buyer.key,
    });
    expect(gone.body.items.some((l: any) => l.id === listing.id)).toBe(false);
    await advance(t, 60);
    const sent = await p2pListing(t, seller.key, listing.id);
    expect(sent).toMatchObject({ status: 'trade_sent', order_id: placed.body.order_id });
    expect((await order(buyer, placed.body.order_id)).items[0].steam_trade_offer_id).toBe(
      sent.trade_offer_id,
    );
    expect((await order(buyer, placed.body.order_id)).status).toBe('delivering');
    await advance(t, 30);
    expect((await p2pListing(t, seller.key, listing.id)).status).toBe('verification_hold');
    expect((await order(buyer, placed.body.order_id)).status).toBe('completed');
    expect(await ledgerOf(t, seller.key)).toEqual([]);
    await advance(t, 8 * DAY);
    expect(await findP2PListing(t, seller.key, listing.id)).toBeUndefined();
    const sales = (await ledgerOf(t, seller.key)).filter((r) => r.type === 'sale');
    expect(sales.map((r) => [r.order_id, cents(r.amount_usd)])).toEqual([
      [listing.id, cents(listing.seller_payout_usd)],
    ]);
    expect(await ledgerProblems(t, seller.key)).toEqual([]);
    const received = (await t.sandbox(`/accounts/${buyer.accountId}/inventory`)).body.data;
    expect(received.map((r: any) => r.market_hash_name)).toEqual([item.name]);
    expect((await t.sandbox(`/accounts/${seller.accountId}/inventory`)).body.data).toEqual([]);
  });

  it.each([
    ['declined', 'decline' as const, 90],
    ['timed out', 'ignore' as const, 60 + 15 * 60],
  ])('refunds the buyer when the seller’s offer is %s, and the listing is gone', async (_, offers, wait) => {
    const { seller, listing, buyer } = await listedSale(offers);
    const placed = await buy(t, buyer.key, { listing_ids: [listing.id] });
    await advance(t, wait);
    expect(await findP2PListing(t, seller.key, listing.id)).toBeUndefined();
    const bought = await order(buyer, placed.body.order_id);
    expect(bought).toMatchObject({ status: 'cancelled', refund: { amount_usd: listing.price_usd } });
    expect((await t.call('/balance', { key: buyer.key })).body.balance_usd).toBe(1000);
    const shelf = await t.call(`/listings?name=${encodeURIComponent(item.name)}&limit=200`, {
      key: buyer.key,
    });
    expect(shelf.body.items.some((l: any) => l.id === listing.id)).toBe(false);
    expect((await readyInventory(t, seller.key)).map((r) => r.asset_id)).toEqual(seller.assetIds);
    await advance(t, 9 * DAY);
    expect(await ledgerOf(t, seller.key)).toEqual([]);
  });

  it('refunds the buyer when the copy is gone before the seller sends (unavailable)', async () => {
    const { seller, listing, buyer } = await listedSale();
    const placed = await buy(t, buyer.key, { listing_ids: [listing.id] });
    await t.sandbox(`/accounts/${seller.accountId}/inventory/${seller.assetIds[0]}`, undefined, 'DELETE');
    await advance(t, 60);
    expect(await findP2PListing(t, seller.key, listing.id)).toBeUndefined();
    expect((await order(buyer, placed.body.order_id)).status).toBe('failed');
    expect((await t.call('/balance', { key: buyer.key })).body.balance_usd).toBe(1000);
  });

  it('cancels the sale when the accepted trade is rolled back inside the verification hold', async () => {
    const { seller, listing, buyer } = await listedSale();
    const placed = await buy(t, buyer.key, { listing_ids: [listing.id] });
    await advance(t, 90);
    const { trade_offer_id: offerId } = await p2pListing(t, seller.key, listing.id);
    expect((await t.sandbox(`/offers/${offerId}`, { action: 'rollback' })).status).toBe(200);
    expect(await findP2PListing(t, seller.key, listing.id)).toBeUndefined();
    expect((await order(buyer, placed.body.order_id)).refund.amount_usd).toBe(listing.price_usd);
    await advance(t, 9 * DAY);
    expect(await ledgerOf(t, seller.key)).toEqual([]);
    expect(await readyInventory(t, seller.key)).toHaveLength(1);
  });

  it('refuses the seller buying its own listing and charges nothing', async () => {
    const seller = await sellerWith(t, item.name);
    const listing = await listCopy(t, seller, seller.assetIds[0] as string, item.marketUsd);
    await t.sandbox(`/accounts/${seller.accountId}/fund`, { amount_usd: 1000 });
    const trader = (await t.sandbox(`/accounts/${seller.accountId}/keys`, { trading: true })).body.api_key;
    const refused = await buy(t, trader, { listing_ids: [listing.id] });
    expect([refused.status, refused.body.code]).toEqual([400, 'invalid_request']);
    expect((await p2pListing(t, seller.key, listing.id)).status).toBe('active');
    expect((await t.call('/balance', { key: trader })).body.balance_usd).toBe(1000);
  });
});

describe("the README's sandbox loop", () => {
  it('lists a copy the bots delivered, sells it to another account and pays the seller after 8 days', async () => {
    const a = await t.account({ balance_usd: 100, trading: true });
    const b = await t.account({ balance_usd: 100, trading: true });
    const [bought] = await listingsFor(t, a.key, { delivery: 'instant' });
    expect((await buy(t, a.key, { listing_ids: [bought?.id] })).status).toBe(201);
    await advance(t, 31);
    const copies = (await t.sandbox(`/accounts/${a.accountId}/inventory`)).body.data;
    expect(copies.map((c: any) => c.listing_id)).toEqual([bought?.id]);
    const pending = await t.call('/p2p/inventory', { key: a.key });
    expect(pending.body.inventory_proof.status).toBe('pending');
    await advance(t, 5);
    const [row] = (await t.call('/p2p/inventory', { key: a.key })).body.data;
    const body = {
      operational_asset_id: row.operational_asset_id,
      asset_revision: row.asset_revision,
      price_usd: 25,
    };
    const listed = await t.call('/p2p/listings', {
      key: a.key,
      method: 'POST',
      body,
      headers: { 'idempotency-key': 'first-p2p-listing' },
    });
    expect([listed.status, listed.body.status]).toEqual([201, 'active']);
    expect((await buy(t, b.key, { listing_ids: [listed.body.id] })).status).toBe(201);
    await advance(t, 90);
    expect((await p2pListing(t, a.key, listed.body.id)).status).toBe('verification_hold');
    await advance(t, 691_200);
    expect(await findP2PListing(t, a.key, listed.body.id)).toBeUndefined();
    const sales = (await t.call('/transactions?type=sale', { key: a.key })).body.data;
    expect(sales.map((r: any) => [r.order_id, r.amount_usd])).toEqual([
      [listed.body.id, listed.body.seller_payout_usd],
    ]);
    expect(listed.body.seller_payout_usd).toBe(23.75);
  });
});

describe('reconciliation on a full inventory read', () => {
  it('takes a listing whose copy is gone off the shelf for good, and the copy lists again once back', async () => {
    const seller = await sellerWith(t, item.name);
    const listing = await listCopy(t, seller, seller.assetIds[0] as string, item.marketUsd);
    const other = await t.account();
    await t.sandbox(`/accounts/${other.accountId}`, { offers: 'ignore' }, 'PATCH');
    const { platform, units } = t.service.context;
    const steamOf = async (id: string) => (await t.sandbox(`/accounts/${id}`)).body.steam_id;
    const [from, to] = [await steamOf(seller.accountId), await steamOf(other.accountId)];
    const away = await units.run((uow) =>
      platform.sendUserOffer(uow, {
        orderId: 'elsewhere',
        fromSteamId: from,
        toSteamId: to,
        items: [{ assetId: seller.assetIds[0] as string, itemKey: 'elsewhere:0' }],
      }),
    );
    expect(await readyInventory(t, seller.key)).toEqual([]);
    expect(await p2pListing(t, seller.key, listing.id)).toMatchObject({
      status: 'reconciliation_required',
      needs_resync: true,
    });
    const shelf = await t.call(`/listings?name=${encodeURIComponent(item.name)}&limit=200`, {
      key: seller.key,
    });
    expect(shelf.body.items.some((l: any) => l.id === listing.id)).toBe(false);
    await t.sandbox(`/offers/${away.offerId}`, { action: 'decline' });
    const [back] = await readyInventory(t, seller.key);
    expect(back).toMatchObject({ asset_id: seller.assetIds[0], listable: true, listed: false });
    const again = await listCopy(t, seller, seller.assetIds[0] as string, item.marketUsd);
    expect(again.id).not.toBe(listing.id);
    expect((await p2pListing(t, seller.key, listing.id)).status).toBe('reconciliation_required');
  });
});

describe('the statuses a P2P listing shows', () => {
  it("are the specification's five in the served document and in every answer; an ended listing is gone", async () => {
    const doc = (await t.call('/openapi.json')).body;
    const five = ['active', 'trade_pending', 'trade_sent', 'verification_hold', 'reconciliation_required'];
    expect(doc.components.schemas.P2PListing.properties.status.enum).toEqual(five);
    const query = doc.paths['/p2p/listings'].get.parameters.find((p: any) => p.name === 'status');
    expect(query.schema.enum).toEqual(five);
    const seller = await sellerWith(t, item.name, 3);
    const rows = await readyInventory(t, seller.key);
    const bodies = rows.map((r) => ({
      operational_asset_id: r.operational_asset_id,
      asset_revision: r.asset_revision,
      price_usd: item.marketUsd,
    }));
    const ids: string[] = [];
    for (const [i, body] of bodies.entries())
      ids.push((await publish(t, seller.key, body, `ends-${i}-key`)).body.id);
    const accepting = await t.account({ balance_usd: 1000, trading: true });
    const declining = await t.account({ balance_usd: 1000, trading: true });
    await t.sandbox(`/accounts/${declining.accountId}`, { offers: 'decline' }, 'PATCH');
    expect((await buy(t, accepting.key, { listing_ids: [ids[0]] })).status).toBe(201);
    const declined = await buy(t, declining.key, { listing_ids: [ids[1]] });
    expect((await t.call(`/p2p/listings/${ids[2]}`, { key: seller.key, method: 'DELETE' })).status).toBe(200);
    const since = new Date(Date.parse((await t.sandbox('/clock')).body.now) - 1000).toISOString();
    await advance(t, 90);
    await advance(t, 8 * DAY);
    const answers = [
      (await t.call('/p2p/listings?limit=100', { key: seller.key })).body.data,
      (await t.call(`/p2p/listings?updated_after=${since}`, { key: seller.key })).body.data,
    ].flat();
    for (const [i, body] of bodies.entries()) {
      const replay = await publish(t, seller.key, body, `ends-${i}-key`);
      expect([replay.status, replay.body.code]).toEqual([404, 'not_found']);
      const batch = await publish(t, seller.key, { items: [body] }, `ends-${i}-key`);
      expect([batch.body.data[0].status, batch.body.data[0].error.code]).toEqual([404, 'not_found']);
      const reprice = await t.call(`/p2p/listings/${ids[i]}`, {
        key: seller.key,
        method: 'PATCH',
        body: { price_usd: 99 },
      });
      expect([reprice.status, reprice.body.code]).toEqual([404, 'not_found']);
    }
    expect(answers.map((l: any) => l.id).filter((id: string) => ids.includes(id))).toEqual([]);
    for (const listing of answers) expect(five).toContain(listing.status);
    const sales = (await ledgerOf(t, seller.key)).filter((r) => r.type === 'sale');
    expect(sales.map((r) => r.order_id)).toEqual([ids[0]]);
    expect((await order(declining, declined.body.order_id)).status).toBe('cancelled');
  });
});

// Last: the churn reshapes the catalogue the other tests read.
describe('the market churn', () => {
  it('never takes a P2P listing off the shelf', async () => {
    const seller = await sellerWith(t, item.name, 3);
    const listed = [];
    for (const assetId of seller.assetIds)
      listed.push((await listCopy(t, seller, assetId, item.marketUsd)).id);
    const size = t.service.context.catalogue.size();
    expect(await churnUntil(t, { changes: 3 * size, rate: 5_000 })).toBeGreaterThanOrEqual(3 * size);
    const live = listed.filter((id) => t.service.context.catalogue.get(id) !== undefined);
    expect(live).toEqual(listed);
    for (const id of listed) expect((await p2pListing(t, seller.key, id)).status).toBe('active');
  });
});
