/**
 * The demo trader's selling side: every copy that arrives in the demo account's platform inventory
 * gets a role the first time `GET /p2p/inventory` shows it listable, in turn: listed on P2P (at 10 %
 * over its market price, never under the floor), sold instantly to the bots (`/sell/quotes`, then
 * `/sell/orders` with the quote's total as the minimum; a copy the bots do not buy is kept and the
 * next one is offered instead), or kept. A copy whose step failed is tried again at the next turn,
 * a listing with the same idempotency key, so each copy is listed or sold once.
 */
import type { MarketClient } from '../client/index.js';
import { isApiError } from '../contract/api-error.js';
import { centsToUsd, usdToCents } from '../contract/common.js';
import type { P2PInventoryItem, P2PListing } from '../contract/p2p.js';

/** What the trader does with a copy it received. */
type CopyRole = 'p2p' | 'sell' | 'keep';

const ROLES: readonly CopyRole[] = ['p2p', 'sell', 'keep'];

/** The P2P price over the market price, in percent. */
const P2P_MARKUP_PERCENT = 10;

/** The lowest P2P price the API takes, in cents. */
const MIN_P2P_CENTS = 10;

/** Lists and sells what the demo account receives. */
export class DemoSeller {
  /** The role of every copy seen so far, by asset id. */
  private readonly roles = new Map<string, CopyRole>();
  /** Copies whose role is carried out. */
  private readonly done = new Set<string>();
  /** Roles handed out so far: the next copy gets `ROLES[assigned % 3]`. */
  private assigned = 0;

  constructor(
    /** A client on a key of the demo account. */
    private readonly client: MarketClient,
    /** The demo account's trade URL. */
    private readonly tradeUrl: string,
  ) {}

  /**
   * Reads the inventory and carries out the role of each copy not yet done, in inventory order.
   * Returns the listings published by this call.
   */
  async placeNewCopies(signal?: AbortSignal): Promise<P2PListing[]> {
    const inventory = await this.client.p2p.inventory({ signal });
    // A fresh inventory is pending for a few seconds of service clock: the next turn reads it again.
    if (inventory.inventory_proof?.status !== 'ready') return [];
    const published: P2PListing[] = [];
    for (const copy of inventory.data) {
      if (!copy.listable || this.done.has(copy.asset_id)) continue;
      let role = this.roles.get(copy.asset_id);
      if (role === undefined) {
        role = ROLES[this.assigned++ % ROLES.length] as CopyRole;
        this.roles.set(copy.asset_id, role);
      }
      if (role === 'p2p') {
        const listing = await this.list(copy, signal);
        if (listing) published.push(listing);
      } else if (role === 'sell' && !(await this.sell(copy, signal))) {
        // The bots do not buy it (a sticker, no live price): kept, and the next copy is offered to them instead.
        this.roles.set(copy.asset_id, 'keep');
        this.assigned--;
      }
      if (this.roles.get(copy.asset_id) === 'keep') this.done.add(copy.asset_id);
    }
    return published;
  }

  /** Publishes one copy; null when the API refused it for good (the copy changed or is listed already). */
  private async list(copy: P2PInventoryItem, signal?: AbortSignal): Promise<P2PListing | null> {
    try {
      const { listing } = await this.client.p2p.publish(
        {
          operational_asset_id: copy.operational_asset_id,
          asset_revision: copy.asset_revision,
          price_usd: centsToUsd(p2pPriceCents(copy)),
        },
        { idempotencyKey: `demo-p2p-${copy.asset_id}-${copy.asset_revision}`, signal },
      );
      this.done.add(copy.asset_id);
      return listing;
    } catch (error) {
      // asset_revision_changed or already_listed: the copy changed or is listed already, so it is
      // left as it is. (A copy a cancelled sale gives back has a new revision, so a new key.)
      if (isApiError(error) && error.status === 409) {
        this.done.add(copy.asset_id);
        return null;
      }
      throw error;
    }
  }

  /** Sells one copy to the bots at its quoted credit; false when they do not buy it. */
  private async sell(copy: P2PInventoryItem, signal?: AbortSignal): Promise<boolean> {
    const quote = await this.client.instantSell.quote(
      { trade_url: this.tradeUrl, asset_ids: [copy.asset_id] },
      { signal },
    );
    if (!quote.items.some((item) => item.eligible)) return false;
    try {
      await this.client.instantSell.createOrder(
        { quote_id: quote.quote_id, min_total_usd: quote.total_usd, external_id: `demo-${quote.quote_id}` },
        { signal },
      );
    } catch (error) {
      // The copy left or went into another order since the quote: nothing to sell, nothing to retry.
      if (!(isApiError(error) && error.code === 'sell_nothing_to_sell')) throw error;
    }
    this.done.add(copy.asset_id);
    return true;
  }
}

/** The demo's P2P price of a copy: its market price plus the markup, at least the floor; 1.00 USD without a market price. */
function p2pPriceCents(copy: Pick<P2PInventoryItem, 'market_usd' | 'floor_usd'>): number {
  if (copy.market_usd === null) return 100;
  const marked = Math.ceil((usdToCents(copy.market_usd) * (100 + P2P_MARKUP_PERCENT)) / 100);
  return Math.max(MIN_P2P_CENTS, marked, copy.floor_usd === null ? 0 : usdToCents(copy.floor_usd));
}
