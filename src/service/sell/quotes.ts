/**
 * Instant Sell quotes: a full read of the inventory behind the seller's trade URL, each copy
 * appraised (the exact credit, or why it cannot be sold), stored and binding until it expires.
 */
import { ApiError } from '../../contract/api-error.js';
import { centsToUsd, DEFAULT_APP_ID } from '../../contract/common.js';
import {
  MAX_SELL_QUOTE_ITEMS,
  SELL_LIMITS,
  type SellQuote,
  type SellQuoteBody,
  type SellQuoteItem,
} from '../../contract/sell.js';
import { randomId } from '../core/api-keys.js';
import type { Account } from '../core/caller.js';
import { refuseOnly } from '../core/refuse.js';
import type { UnitOfWorkRunner } from '../core/unit-of-work.js';
import { appraise } from './appraisal.js';
import type { InventorySnapshot, MarketPrices, SellableCopy, SellPlatform } from './ports.js';
import type { SellQuoteStore } from './sell-quote-store.js';

/** What a quote may be refused with (POST /sell/quotes documents these). */
export const QUOTE_ERRORS = [
  'invalid_trade_url',
  'unsupported_game',
  'inventory_pending',
  'inventory_blocked',
  'not_found',
] as const;

const refuseQuote = refuseOnly(QUOTE_ERRORS);

/** What quoting uses. */
export interface QuoteDeps {
  units: UnitOfWorkRunner;
  quotes: SellQuoteStore;
  platform: SellPlatform;
  prices: MarketPrices;
  /** Games whose items the bots buy. */
  appIds: readonly number[];
}

/** Reads the inventory named by the trade URL and stores a quote of its copies (or the ones asked for). */
export async function createQuote(
  deps: QuoteDeps,
  account: Account,
  body: SellQuoteBody,
): Promise<SellQuote> {
  const appId = body.appId ?? DEFAULT_APP_ID;
  const supported = deps.appIds.filter((id) => account.appIds.includes(id));
  if (!supported.includes(appId))
    throw refuseQuote('unsupported_game', `the bots buy no items of appId ${appId} for this account`, {
      supported_app_ids: supported,
    });
  const owner = deps.platform.resolveTradeUrl(body.trade_url);
  if ('problem' in owner) throw refuseQuote('invalid_trade_url', `trade_url: ${owner.problem}`);
  const read = await deps.platform.readInventory(owner.steamId);
  requireReady(read.proof);
  const copies = chosenCopies(
    read.copies.filter((c) => c.appId === appId),
    body.asset_ids,
  );
  return deps.units.run(async (uow) => {
    const items = copies.map((copy) => quoteItem(copy, deps.prices, uow.now));
    const totalCents = items.reduce((sum, item) => sum + Math.round((item.amount_usd ?? 0) * 100), 0);
    const quote: SellQuote = {
      quote_id: `sq_${randomId(16)}`,
      app_id: appId,
      steam_id: owner.steamId,
      currency: 'USD',
      items,
      total_usd: centsToUsd(totalCents),
      created_at: new Date(uow.now).toISOString(),
      expires_at: new Date(uow.now + SELL_LIMITS.quoteTtlSeconds * 1000).toISOString(),
    };
    await deps.quotes.insert(uow, account.id, quote);
    return quote;
  });
}

/**
 * A proof that is not ready refuses the quote: pending says when to retry (also as Retry-After,
 * which is why it is thrown as the API error itself), blocked what to fix.
 */
function requireReady(proof: InventorySnapshot['proof']): void {
  if (proof.status === 'pending')
    throw new ApiError(
      'inventory_pending',
      `the platform is still loading this inventory; ask again after ${proof.retryAfterMs} ms`,
      { retry_after_ms: proof.retryAfterMs },
      { headers: { 'retry-after': String(Math.max(1, Math.ceil(proof.retryAfterMs / 1000))) } },
    );
  if (proof.status === 'blocked')
    throw refuseQuote(
      'inventory_blocked',
      `the platform refuses to show this inventory (${proof.code}); the seller must fix it on the platform`,
      { proof_code: proof.code },
    );
}

/** The copies asked for, in the order asked (each must be at home), or the first copies of the inventory. */
function chosenCopies(copies: SellableCopy[], assetIds: readonly string[] | undefined): SellableCopy[] {
  if (assetIds === undefined) return copies.slice(0, MAX_SELL_QUOTE_ITEMS);
  const byId = new Map(copies.map((copy) => [copy.assetId, copy]));
  const missing = assetIds.filter((id) => !byId.has(id));
  if (missing.length > 0)
    throw refuseQuote(
      'not_found',
      `asset_ids: not in this inventory of the game quoted (or carried by an open offer): ${missing.slice(0, 20).join(', ')}`,
    );
  return assetIds.map((id) => byId.get(id) as SellableCopy);
}

function quoteItem(copy: SellableCopy, prices: MarketPrices, now: number): SellQuoteItem {
  const appraisal = appraise(copy, prices, now);
  return {
    asset_id: copy.assetId,
    market_hash_name: copy.marketHashName,
    eligible: appraisal.reason === null,
    market_usd: appraisal.marketCents === null ? null : centsToUsd(appraisal.marketCents),
    amount_usd: appraisal.amountCents === null ? null : centsToUsd(appraisal.amountCents),
    reason: appraisal.reason,
  };
}
