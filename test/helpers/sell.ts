/** Helpers of the Instant Sell tests: sellers with a trade URL and an inventory, quotes and orders over HTTP. */
import { randomInt } from 'node:crypto';
import type { Listing } from '../../src/contract/listing.js';
import { steamIdOf } from '../../src/service/core/platform-ids.js';
import type { TestResponse, TestService } from './service.js';
import { advance } from './trading.js';

/** A seller: an account with Instant Sell, its linked platform id and the trade URL the platform issued for it. */
export interface Seller {
  accountId: string;
  key: string;
  steamId: string;
  tradeUrl: string;
}

/** Creates an account (Instant Sell on unless told) linked to a platform account whose inventory is not private. */
export async function createSeller(t: TestService, instantSell = true): Promise<Seller> {
  // Partners ending in 0 have private inventories in the simulator.
  const partner = randomInt(1, 100_000_000) * 10 + randomInt(1, 10);
  const steamId = steamIdOf(partner);
  const { accountId, key } = await t.account({
    balance_usd: 0,
    instant_sell: instantSell,
    steam_id: steamId,
  });
  const url = await t.sandbox(`/trade-urls/${partner}`);
  return { accountId, key, steamId, tradeUrl: url.body.trade_url };
}

/**
 * Names of items whose market price comes from a tradable, non-sticker listing the marketplace
 * itself offers (so granted copies are eligible), with that price, cheapest first.
 */
export async function sellableItems(
  t: TestService,
  key: string,
  count: number,
): Promise<{ name: string; priceUsd: number }[]> {
  const page = await t.call('/listings?limit=200&sort=price_asc&delivery=instant', { key });
  const found: { name: string; priceUsd: number }[] = [];
  for (const listing of page.body.items as Listing[]) {
    if (found.length === count) break;
    if (found.some((f) => f.name === listing.market_hash_name)) continue;
    const same = await t.call(
      `/listings?limit=50&sort=price_asc&name=${encodeURIComponent(listing.market_hash_name)}`,
      {
        key,
      },
    );
    const cheapest = (same.body.items as Listing[]).find((l) => l.source !== 'p2p');
    if (!cheapest || cheapest.category === 'Sticker' || cheapest.tradable !== true) continue;
    found.push({ name: cheapest.market_hash_name, priceUsd: cheapest.price_usd });
  }
  if (found.length < count) throw new Error(`only ${found.length} sellable items found`);
  return found;
}

/** Grants copies of an item to the seller through the sandbox; returns their asset ids. */
export async function grant(t: TestService, seller: Seller, name: string, count = 1): Promise<string[]> {
  const granted = await t.sandbox(`/accounts/${seller.accountId}/inventory`, {
    market_hash_name: name,
    count,
  });
  if (granted.status !== 201) throw new Error(`grant: ${granted.text}`);
  return granted.body.asset_ids;
}

/** POST /sell/quotes. */
export function quote(
  t: TestService,
  seller: Seller,
  body: Record<string, unknown> = {},
): Promise<TestResponse> {
  return t.call('/sell/quotes', {
    key: seller.key,
    method: 'POST',
    body: { trade_url: seller.tradeUrl, ...body },
  });
}

/** A quote once the inventory's first read is over (a fresh inventory is pending for a few seconds). */
export async function readyQuote(
  t: TestService,
  seller: Seller,
  body: Record<string, unknown> = {},
): Promise<any> {
  let response = await quote(t, seller, body);
  if (response.status === 409 && response.body.code === 'inventory_pending') {
    await advance(t, Math.ceil(response.body.retry_after_ms / 1000));
    response = await quote(t, seller, body);
  }
  if (response.status !== 201) throw new Error(`quote: ${response.text}`);
  return response.body;
}

/** POST /sell/orders. */
export function sellOrder(
  t: TestService,
  seller: Seller,
  body: Record<string, unknown>,
): Promise<TestResponse> {
  return t.call('/sell/orders', { key: seller.key, method: 'POST', body });
}

/** GET /sell/orders/{id}, which must answer 200. */
export async function sellOrderOf(t: TestService, seller: Seller, id: string): Promise<any> {
  const response = await t.call(`/sell/orders/${id}`, { key: seller.key });
  if (response.status !== 200) throw new Error(`sell order: ${response.text}`);
  return response.body;
}

/** Asset ids at home in the seller's platform inventory. */
export async function inventoryIds(t: TestService, seller: Seller): Promise<string[]> {
  const response = await t.sandbox(`/accounts/${seller.accountId}/inventory`);
  return (response.body.data as { asset_id: string }[]).map((row) => row.asset_id);
}
