/**
 * The typed client's P2P resource against the real service over loopback: the inventory proof,
 * idempotent publishing (replays, a lost answer, a 429), batches with a failing item, repricing,
 * unlisting and paging listings; refusals arrive as ApiError with the spec's status and code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientArgumentError, type MarketClient } from '../../src/client/index.js';
import type { P2PInventoryItem } from '../../src/contract/p2p.js';
import { marketItem, sellerWith } from '../helpers/p2p.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { advance } from '../helpers/trading.js';
import { LOSSES, type LossyProxy, startLossyProxy } from './lossy-proxy.js';
import { recordingClient } from './recording-client.js';
import { refusalOf } from './scripted-server.js';

const P2P_WRITES_PER_MINUTE = 6;

let t: TestService;
let proxy: LossyProxy;
let item: { name: string; marketUsd: number };
beforeAll(async () => {
  t = await startTestService({ rateLimits: { read: 1_000_000, p2p_write: P2P_WRITES_PER_MINUTE } });
  proxy = await startLossyProxy(t.origin);
  item = await marketItem(t, (await t.account()).key);
});
afterAll(async () => {
  await proxy?.close();
  await t?.close();
});

/** A client of a new seller holding `copies` copies of the market item, through the lossy proxy. */
async function seller(copies: number, onWait?: (ms: number) => Promise<void>) {
  const account = await sellerWith(t, item.name, copies);
  return { account, ...recordingClient(proxy.baseUrl, account.key, onWait) };
}

/** The inventory once its proof is ready: the pending first read is waited out on the service clock. */
async function readyRows(client: MarketClient): Promise<P2PInventoryItem[]> {
  const first = await client.p2p.inventory();
  if (first.inventory_proof?.status === 'ready') return first.data;
  expect(first.inventory_proof?.status).toBe('pending');
  await advance(t, Math.ceil((first.inventory_proof?.retry_after_ms ?? 0) / 1000));
  const ready = await client.p2p.inventory();
  expect(ready.inventory_proof?.status).toBe('ready');
  return ready.data;
}

function itemOf(row: P2PInventoryItem | undefined, priceUsd: number) {
  if (!row) throw new Error('no inventory row');
  return {
    operational_asset_id: row.operational_asset_id,
    asset_revision: row.asset_revision,
    price_usd: priceUsd,
  };
}

/** The 5% commission rounded half up to the cent, at least one cent, in cents. */
function commissionCents(priceUsd: number): number {
  return Math.max(1, Math.round((Math.round(priceUsd * 100) * 5) / 100));
}

/** POST /p2p/listings requests that reached the service so far. */
function publishesSent(): number {
  return proxy.forwarded.filter((r) => r === 'POST /v1/p2p/listings').length;
}

describe('client.p2p against the service', () => {
  it('reads the inventory proof pending, then ready with every granted copy', async () => {
    const { client, account } = await seller(2);
    const rows = await readyRows(client);
    expect(rows.map((r) => r.asset_id).sort()).toEqual([...account.assetIds].sort());
    expect(rows.every((r) => r.listable && !r.listed)).toBe(true);
  });

  it('publishes a copy, and a replay with the same key gives the same listing without listing twice', async () => {
    const { client, waits } = await seller(1);
    const [row] = await readyRows(client);
    const body = itemOf(row, item.marketUsd);
    const first = await client.p2p.publish(body, { idempotencyKey: 'publish-replay-1' });
    expect(first.replayed).toBe(false);
    expect(first.listing).toMatchObject({
      status: 'active',
      price_usd: item.marketUsd,
      asset_id: row?.asset_id,
    });
    const again = await client.p2p.publish(body, { idempotencyKey: 'publish-replay-1' });
    expect(again).toEqual({ listing: first.listing, replayed: true });
    const all = [];
    for await (const listing of client.p2p.allListings()) all.push(listing);
    expect(all.map((l) => l.id)).toEqual([first.listing.id]);
    expect(waits).toEqual([]);
  });

  it.each(LOSSES)(
    'sends a publish whose answer was lost (%s: %s) again with the same key and lists once',
    async (loss, _how) => {
      const { client } = await seller(1);
      const [row] = await readyRows(client);
      const key = `publish-lost-${loss}`;
      proxy.loseNext('POST', '/p2p/listings', loss);
      const published = await client.p2p.publish(itemOf(row, item.marketUsd), { idempotencyKey: key });
      // The first attempt took effect; the second, with the same key, is its replay.
      expect(published.replayed).toBe(true);
      const page = await client.p2p.listings();
      expect(page.data.map((l) => l.id)).toEqual([published.listing.id]);
    },
  );

  it('waits out a 429 on the service clock and retries with the same key, publishing once', async () => {
    // The client's wait for Retry-After is where the service clock moves.
    const { client, waits } = await seller(1, (ms) => advance(t, Math.ceil(ms / 1000)));
    const [row] = await readyRows(client);
    const body = itemOf(row, item.marketUsd);
    for (let i = 0; i < P2P_WRITES_PER_MINUTE; i++)
      await client.p2p.publish(body, { idempotencyKey: 'publish-429-warm' });
    const published = await client.p2p.publish(body, { idempotencyKey: 'publish-429-warm' });
    expect(published.replayed).toBe(true);
    expect(waits.length).toBe(1);
    expect(waits[0]).toBeGreaterThan(0);
    expect((await client.p2p.listings()).data).toHaveLength(1);
  });

  it('throws 409 idempotency_key_mismatch and 422 price_below_market at once, never retried', async () => {
    const { client, waits } = await seller(1);
    const [row] = await readyRows(client);
    expect(
      await refusalOf(client.p2p.publish(itemOf(row, 0.1), { idempotencyKey: 'publish-refused' })),
    ).toEqual([422, 'price_below_market']);
    // price_below_market leaves the key free: the same key publishes at a fair price.
    const published = await client.p2p.publish(itemOf(row, item.marketUsd), {
      idempotencyKey: 'publish-refused',
    });
    expect(published.replayed).toBe(false);
    const sent = publishesSent();
    expect(
      await refusalOf(
        client.p2p.publish(itemOf(row, item.marketUsd + 1), { idempotencyKey: 'publish-refused' }),
      ),
    ).toEqual([409, 'idempotency_key_mismatch']);
    expect(publishesSent() - sent).toBe(1);
    expect(waits).toEqual([]);
    await expect(client.p2p.publish(itemOf(row, 1), { idempotencyKey: 'short' })).rejects.toThrow(
      ClientArgumentError,
    );
  });

  it('publishes a batch with one failing item: the others list, the failure carries its status and code', async () => {
    const { client } = await seller(2);
    const rows = await readyRows(client);
    const items = [itemOf(rows[0], item.marketUsd), itemOf(rows[1], 0.1)];
    const batch = await client.p2p.publishBatch(items, { idempotencyKey: 'batch-one-fails' });
    expect(batch.replayed).toBe(false);
    expect(batch.data.map((r) => [r.index, r.ok, r.status, r.error?.code ?? null])).toEqual([
      [0, true, 201, null],
      [1, false, 422, 'price_below_market'],
    ]);
    const again = await client.p2p.publishBatch([items[0] as (typeof items)[0]], {
      idempotencyKey: 'batch-one-fails',
    });
    expect(again.replayed).toBe(true);
    expect(again.data[0]?.listing?.id).toBe(batch.data[0]?.listing?.id);
    expect((await client.p2p.listings()).data).toHaveLength(1);
  });

  it('reprices an active listing with commission and payout recomputed, then unlists it', async () => {
    const { client } = await seller(1);
    const [row] = await readyRows(client);
    const { listing } = await client.p2p.publish(itemOf(row, item.marketUsd), {
      idempotencyKey: 'reprice-1',
    });
    expect(Math.round(listing.commission_usd * 100)).toBe(commissionCents(item.marketUsd));
    const newPrice = Math.round((item.marketUsd + 7.35) * 100) / 100;
    const repriced = await client.p2p.reprice(listing.id, newPrice);
    expect(repriced.price_usd).toBe(newPrice);
    expect(Math.round(repriced.commission_usd * 100)).toBe(commissionCents(newPrice));
    expect(Math.round(repriced.seller_payout_usd * 100)).toBe(
      Math.round(newPrice * 100) - commissionCents(newPrice),
    );
    expect(await refusalOf(client.p2p.reprice(listing.id, 0.1))).toEqual([422, 'price_below_market']);

    expect(await client.p2p.unlist(listing.id)).toEqual({ id: listing.id, deleted: true });
    expect((await client.p2p.listings()).data).toEqual([]);
    expect(await refusalOf(client.p2p.reprice(listing.id, newPrice))).toEqual([404, 'not_found']);
    expect(await refusalOf(client.p2p.unlist('pl_unknown'))).toEqual([404, 'not_found']);
  });

  it('pages listings with a cursor and walks them with the page and row iterators', async () => {
    const { client } = await seller(3);
    const rows = await readyRows(client);
    const batch = await client.p2p.publishBatch(
      rows.map((r) => itemOf(r, item.marketUsd)),
      { idempotencyKey: 'paging-batch' },
    );
    const ids = batch.data.map((r) => r.listing?.id).sort();
    const pages = [];
    for await (const page of client.p2p.listingPages({ limit: 2 })) pages.push(page);
    expect(pages.map((p) => p.data.length)).toEqual([2, 1]);
    const walked = [];
    for await (const listing of client.p2p.allListings({ limit: 1 })) walked.push(listing.id);
    expect(walked.sort()).toEqual(ids);
    // The compatibility method reads the same endpoint.
    expect((await client.p2p.listings({ limit: 5 })).data.map((l) => l.id).sort()).toEqual(ids);
  });

  it('answers a bad request body as 400 with the spec code, without a retry', async () => {
    const { client, waits } = await seller(1);
    expect(await refusalOf(client.p2p.publishBatch([], { idempotencyKey: 'empty-batch' }))).toEqual([
      400,
      'invalid_request',
    ]);
    expect(waits).toEqual([]);
  });
});
