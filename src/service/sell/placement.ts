/**
 * Turning a quote into a sell order, in one unit of work: the external_id replay, the quote's
 * owner, expiry and single use, the items still at home (and not held by another pending order),
 * and min_total_usd. A refusal writes
 * nothing and leaves the quote usable; an order starts pending, its offers due a few seconds later.
 */
import { centsToUsd, usdToCents } from '../../contract/common.js';
import { type CreateSellOrderBody, SELL_LIMITS } from '../../contract/sell.js';
import { randomId } from '../core/api-keys.js';
import type { Account } from '../core/caller.js';
import { refuseOnly } from '../core/refuse.js';
import type { UnitOfWork, UnitOfWorkRunner } from '../core/unit-of-work.js';
import type { SellPlatform } from './ports.js';
import type { SellItemRecord, SellOrderRecord } from './sell-order-record.js';
import type { SellOrderStore } from './sell-order-store.js';
import type { QuoteRecord, SellQuoteStore } from './sell-quote-store.js';

/** What placing a sell order may be refused with (POST /sell/orders documents these). */
export const SELL_ORDER_ERRORS = [
  'not_found',
  'idempotency_key_mismatch',
  'sell_quote_expired',
  'sell_quote_used',
  'sell_total_below_minimum',
  'sell_nothing_to_sell',
] as const;

const refuseOrder = refuseOnly(SELL_ORDER_ERRORS);

/** What placing uses. */
export interface PlacementDeps {
  units: UnitOfWorkRunner;
  orders: SellOrderStore;
  quotes: SellQuoteStore;
  platform: SellPlatform;
}

/** A placed order, and whether it is the replay of an earlier request with the same external_id. */
export interface Placed {
  order: SellOrderRecord;
  replay: boolean;
}

/** Places a sell order from a quote, or replays the one made with the same external_id. */
export function placeSellOrder(
  deps: PlacementDeps,
  account: Account,
  body: CreateSellOrderBody,
): Promise<Placed> {
  const minTotalCents = body.min_total_usd === undefined ? null : usdToCents(body.min_total_usd);
  return deps.units.run(async (uow) => {
    if (body.external_id !== undefined) {
      const earlier = await deps.orders.byExternalIdIn(uow, account.id, body.external_id);
      if (earlier) {
        if (earlier.quoteId !== body.quote_id || earlier.minTotalCents !== minTotalCents)
          throw refuseOrder(
            'idempotency_key_mismatch',
            `external_id ${body.external_id} already made sell order ${earlier.id} with another quote_id or min_total_usd; use a new external_id`,
          );
        return { order: earlier, replay: true };
      }
    }
    const quote = await usableQuote(deps, uow, account.id, body.quote_id);
    const held = await deps.orders.pendingAssetIdsIn(uow, quote.quote.steam_id);
    const items = await itemsAtHome(deps.platform, uow, quote, held);
    const totalCents = items.reduce((sum, item) => sum + item.amountCents, 0);
    if (items.length === 0)
      throw refuseOrder(
        'sell_nothing_to_sell',
        `no eligible item of quote ${quote.quote.quote_id} is still in the inventory`,
      );
    if (minTotalCents !== null && totalCents < minTotalCents)
      throw refuseOrder(
        'sell_total_below_minimum',
        `the order would credit ${centsToUsd(totalCents).toFixed(2)} USD, below min_total_usd ${centsToUsd(minTotalCents).toFixed(2)}; nothing was sent`,
        { total_usd: centsToUsd(totalCents), min_total_usd: centsToUsd(minTotalCents) },
      );
    const order = await deps.orders.insert(uow, {
      id: `so_${randomId(16)}`,
      accountId: account.id,
      externalId: body.external_id ?? null,
      quoteId: quote.quote.quote_id,
      appId: quote.quote.app_id,
      steamId: quote.quote.steam_id,
      status: 'pending',
      minTotalCents,
      failureReason: null,
      items,
      offers: [],
      creditedCents: 0,
      settledCents: 0,
      sendAt: uow.now + SELL_LIMITS.offerDelaySeconds * 1000,
      settlesAt: null,
      createdAt: uow.now,
      updatedAt: uow.now,
    });
    return { order, replay: false };
  });
}

/** The account's quote, unexpired and not yet an order; refused otherwise. */
async function usableQuote(
  deps: PlacementDeps,
  uow: UnitOfWork,
  accountId: string,
  quoteId: string,
): Promise<QuoteRecord> {
  const quote = await deps.quotes.getIn(uow, quoteId);
  if (!quote || quote.accountId !== accountId)
    throw refuseOrder('not_found', `no sell quote ${quoteId} on this account`);
  const made = await deps.orders.byQuoteIn(uow, quoteId);
  if (made)
    throw refuseOrder('sell_quote_used', `quote ${quoteId} already became sell order ${made.id}`, {
      order_id: made.id,
    });
  if (uow.now >= quote.expiresAt)
    throw refuseOrder(
      'sell_quote_expired',
      `quote ${quoteId} expired at ${quote.quote.expires_at}; ask for a new one`,
      {
        expired_at: quote.quote.expires_at,
      },
    );
  return quote;
}

/** The quote's eligible items whose copies are still at home and held by no pending order, at their quoted amounts. */
async function itemsAtHome(
  platform: SellPlatform,
  uow: UnitOfWork,
  quote: QuoteRecord,
  held: ReadonlySet<string>,
): Promise<SellItemRecord[]> {
  const items: SellItemRecord[] = [];
  for (const item of quote.quote.items) {
    if (!item.eligible || item.amount_usd === null || held.has(item.asset_id)) continue;
    if (!(await platform.copyIn(uow, quote.quote.steam_id, item.asset_id))) continue;
    items.push({
      assetId: item.asset_id,
      marketHashName: item.market_hash_name,
      amountCents: usdToCents(item.amount_usd),
      status: 'pending',
      offerId: null,
    });
  }
  return items;
}
