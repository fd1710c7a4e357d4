/** Helpers of the P2P tests: sellers with granted copies, ready inventory reads, publishing, and sales on the clock. */
import type { Listing } from '../../src/contract/listing.js';
import type { TestResponse, TestService } from './service.js';
import { advance, listingsFor } from './trading.js';

/** An account as the tests use it. */
export interface TestAccount {
  accountId: string;
  key: string;
}

/** A CS2 item the marketplace itself lists at 1 USD or more (so a P2P price can undercut it), with its market price. */
export async function marketItem(t: TestService, key: string): Promise<{ name: string; marketUsd: number }> {
  const [listing] = await listingsFor(t, key, {
    delivery: 'instant',
    minPriceUsd: 1,
  });
  const name = (listing as Listing).market_hash_name;
  const page = await t.call(`/listings?name=${encodeURIComponent(name)}&sort=price_asc&limit=200`, { key });
  const own = (page.body.items as Listing[]).filter((l) => l.source !== 'p2p');
  return { name, marketUsd: own[0]?.price_usd ?? (listing as Listing).price_usd };
}

/** A new seller (no balance, no trading) holding `count` granted copies of `name`. */
export async function sellerWith(
  t: TestService,
  name: string,
  count = 1,
): Promise<TestAccount & { assetIds: string[] }> {
  const seller = await t.account({ balance_usd: 0 });
  const granted = await t.sandbox(`/accounts/${seller.accountId}/inventory`, {
    market_hash_name: name,
    count,
  });
  if (granted.status !== 201) throw new Error(`grant: ${granted.text}`);
  return { ...seller, assetIds: granted.body.asset_ids };
}

/** GET /p2p/inventory until the proof is ready (moving the clock past a pending read); the rows. */
export async function readyInventory(t: TestService, key: string): Promise<Record<string, any>[]> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const read = await t.call('/p2p/inventory', { key });
    if (read.status !== 200) throw new Error(`inventory: ${read.text}`);
    const proof = read.body.inventory_proof;
    if (proof?.status === 'ready') return read.body.data;
    if (proof?.status !== 'pending') throw new Error(`inventory proof ${JSON.stringify(proof)}`);
    await advance(t, Math.ceil(proof.retry_after_ms / 1000));
  }
  throw new Error('the inventory never became ready');
}

/** POST /p2p/listings with an Idempotency-Key (none when null). */
export function publish(
  t: TestService,
  key: string,
  body: unknown,
  idempotencyKey: string | null,
): Promise<TestResponse> {
  const headers: Record<string, string> =
    idempotencyKey === null ? {} : { 'idempotency-key': idempotencyKey };
  return t.call('/p2p/listings', { key, method: 'POST', body, headers });
}

/** Reads the seller's inventory ready and publishes the copy `assetId` at `priceUsd`; the 201 listing. */
export async function listCopy(
  t: TestService,
  seller: TestAccount,
  assetId: string,
  priceUsd: number,
): Promise<Record<string, any>> {
  const row = (await readyInventory(t, seller.key)).find((r) => r.asset_id === assetId);
  if (!row) throw new Error(`copy ${assetId} not in the inventory`);
  const body = {
    operational_asset_id: row.operational_asset_id,
    asset_revision: row.asset_revision,
    price_usd: priceUsd,
  };
  const published = await publish(
    t,
    seller.key,
    body,
    `list-${assetId}-${Math.random().toString(36).slice(2)}`,
  );
  if (published.status !== 201) throw new Error(`publish: ${published.text}`);
  return published.body;
}

/** The seller's P2P listing by id. */
export async function p2pListing(t: TestService, key: string, id: string): Promise<Record<string, any>> {
  const found = await findP2PListing(t, key, id);
  if (!found) throw new Error(`no P2P listing ${id}`);
  return found;
}

/** The seller's P2P listing by id, or undefined once it has ended (sold, cancelled or delisted). */
export async function findP2PListing(
  t: TestService,
  key: string,
  id: string,
): Promise<Record<string, any> | undefined> {
  const page = await t.call('/p2p/listings?limit=100', { key });
  if (page.status !== 200) throw new Error(`GET /p2p/listings: ${page.text}`);
  return (page.body.data as Record<string, any>[]).find((l) => l.id === id);
}
