/**
 * What the bots pay for a copy: its market price (the cheapest live listing of the item) less the
 * spread, rounded down to the cent, or why they do not buy it.
 */
import { SELL_LIMITS, type SellIneligibleReason } from '../../contract/sell.js';
import type { MarketPrices, SellableCopy } from './ports.js';

/** The bots' offer for one copy: the credit in cents, or the reason there is none. */
export interface Appraisal {
  marketCents: number | null;
  amountCents: number | null;
  reason: SellIneligibleReason | null;
}

/** Categories the bots do not buy. */
const UNSUPPORTED_CATEGORIES = new Set(['Sticker']);

/** The credit of an item whose market price is `marketCents`: below it by the spread, rounded down. */
export function creditCents(marketCents: number): number {
  return Math.floor((marketCents * (100 - SELL_LIMITS.spreadPercent)) / 100);
}

/** Appraises a copy at `now` against the market prices. */
export function appraise(copy: SellableCopy, prices: MarketPrices, now: number): Appraisal {
  const marketCents = prices.priceCents(copy.appId, copy.marketHashName) ?? null;
  const refused = (reason: SellIneligibleReason): Appraisal => ({ marketCents, amountCents: null, reason });
  const facts = describedBy(copy.listingJson);
  if (facts.category !== undefined && UNSUPPORTED_CATEGORIES.has(facts.category))
    return refused('unsupported_item');
  const lockEnds = facts.tradableAt === null ? Number.NaN : Date.parse(facts.tradableAt);
  if (lockEnds > now) return refused('trade_locked');
  if (facts.tradable === false && Number.isNaN(lockEnds)) return refused('not_tradable');
  if (marketCents === null) return refused('no_price');
  const amountCents = creditCents(marketCents);
  if (amountCents < 1) return refused('unsupported_item');
  return { marketCents, amountCents, reason: null };
}

/** The facts of the copy's description that decide whether it can be sold. */
function describedBy(listingJson: string): {
  category: string | undefined;
  tradable: boolean | undefined;
  tradableAt: string | null;
} {
  let listing: Record<string, unknown> = {};
  try {
    listing = JSON.parse(listingJson) as Record<string, unknown>;
  } catch {
    // A copy without a readable description is judged by its name and price alone.
  }
  return {
    category: typeof listing.category === 'string' ? listing.category : undefined,
    tradable: typeof listing.tradable === 'boolean' ? listing.tradable : undefined,
    tradableAt: typeof listing.tradable_at === 'string' ? listing.tradable_at : null,
  };
}
