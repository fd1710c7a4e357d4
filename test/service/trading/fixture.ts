/**
 * Trading on a fresh in-memory service database: the real accounts and ledger, the real simulated
 * platform, and a live catalogue of a few listings kept in a map (the listing index is the market's
 * business), with a clock the test moves by hand.
 */
import type { Listing } from '../../../src/contract/listing.js';
import { Accounts } from '../../../src/service/accounts/accounts.js';
import type { Account } from '../../../src/service/core/caller.js';
import { type AdjustableClock, createClock } from '../../../src/service/core/clock.js';
import { UnitOfWorkRunner } from '../../../src/service/core/unit-of-work.js';
import { Platform } from '../../../src/service/platform/platform.js';
import type { BuyRequest } from '../../../src/service/trading/order-placement.js';
import type {
  CatalogueChange,
  ListingSource,
  LiveListing,
  PlacementWrapper,
} from '../../../src/service/trading/ports.js';
import { Trading } from '../../../src/service/trading/trading.js';
import { TradingSettings } from '../../../src/service/trading/trading-settings.js';
import { Database } from '../../../src/shared/database.js';
import { projectPath } from '../../../src/shared/project-root.js';

/** The service clock starts here in every trading test. */
export const START = Date.parse('2026-01-01T00:00:00.000Z');

/** A CS2 listing delivered at once, at `priceCents`; `change` overrides any field. */
export function listing(id: string, priceCents: number, change: Partial<Listing> = {}): Listing {
  return {
    id,
    market_hash_name: `AK-47 | Redline (Field-Tested) ${id}`,
    wear: 'Field-Tested',
    doppler_phase: null,
    float_value: 0.25,
    paint_seed: 1,
    stickers: [],
    price_usd: priceCents / 100,
    category: 'Rifle',
    rarity: 'Classified',
    image: `https://images.example/${id}.png`,
    inspect_link: null,
    tradable: true,
    tradable_at: null,
    delivery: 'instant',
    refund_percent: null,
    listed_at: new Date(START).toISOString(),
    source: 'platform',
    api_purchasable: true,
    ...change,
  };
}

/** Live CS2 listings by id; changes apply after their unit of work commits, as the catalogue's do. */
export class MapListings implements ListingSource {
  readonly live = new Map<string, Listing>();

  add(...listings: Listing[]): void {
    for (const l of listings) this.live.set(l.id, l);
  }

  get(id: string): LiveListing | undefined {
    const l = this.live.get(id);
    return l && { id, appId: 730, priceCents: Math.round(l.price_usd * 100), listing: l };
  }

  getIn(_uow: unknown, id: string): LiveListing | undefined {
    return this.get(id);
  }

  async applyIn(
    uow: { afterCommit(effect: () => void): void },
    changes: readonly CatalogueChange[],
  ): Promise<void> {
    uow.afterCommit(() => {
      for (const change of changes)
        if (change.kind === 'remove') this.live.delete(change.id);
        else this.live.set(change.listing.id, change.listing);
    });
  }
}

/** What a trading test works with. */
export interface TradingFixture {
  db: Database;
  clock: AdjustableClock;
  accounts: Accounts;
  platform: Platform;
  listings: MapListings;
  trading: Trading;
  /** A funded account (settled unless `pendingCents`) with a linked platform account. */
  buyer(balanceCents: number, options?: { pendingCents?: number; externalBuy?: boolean }): Promise<Account>;
  /** A buy of `listingIds` by `account` (re-read, so its balance is current). */
  request(account: Account, listingIds: string[], change?: Partial<BuyRequest>): BuyRequest;
  /** The account's ledger rows, oldest first, amounts in cents. */
  ledger(accountId: string): Promise<{ type: string; cents: number; orderId: string | null }[]>;
  /** How many orders the database holds. */
  orderCount(): Promise<number>;
  close(): Promise<void>;
}

/** Opens trading on a new in-memory database; `placement` wraps every placement (the sandbox's faults). */
export async function openTrading(placement?: PlacementWrapper): Promise<TradingFixture> {
  const db = await Database.open(':memory:', projectPath('sql', 'service'));
  const clock = createClock({ start: START, realNow: () => 0 });
  const units = new UnitOfWorkRunner(db, () => clock.now());
  const accounts = new Accounts(db, units);
  await accounts.load(db);
  const platform = new Platform({ db, units, clock });
  await platform.load();
  const listings = new MapListings();
  const trading = new Trading({
    db,
    units,
    clock,
    listings,
    funds: accounts.ledger,
    accounts,
    platform,
    tradingSettings: new TradingSettings(db),
    ...(placement ? { placement } : {}),
    buyableAppIds: [730],
  });
  await trading.load();
  let buyers = 0;
  return {
    db,
    clock,
    accounts,
    platform,
    listings,
    trading,
    async buyer(balanceCents, options = {}) {
      const pending = options.pendingCents ?? 0;
      buyers += 1;
      const { account } = await accounts.createAccount({
        appIds: [730, 570],
        balanceCents: balanceCents + pending,
        settledCents: balanceCents,
        steamId: `7656119796026${String(5740 + buyers).padStart(4, '0')}`,
        externalBuy: options.externalBuy ?? false,
      });
      return account;
    },
    request(account, listingIds, change = {}) {
      const current = accounts.account(account.id) ?? account;
      return {
        kind: 'order',
        account: current,
        appId: 730,
        listingIds,
        customId: null,
        fingerprint: 'body-1',
        maxPriceCents: null,
        autoclaim: undefined,
        steamId: current.steamId,
        settledOnly: false,
        ...change,
      };
    },
    async ledger(accountId) {
      const rows = await db.read<{ type: string; cents: number; order_id: string | null }>(
        `SELECT type, CAST(amount_usd * 100 AS BIGINT) AS cents, order_id FROM ledger
         WHERE account_id = $account ORDER BY seq`,
        { account: accountId },
      );
      return rows.map((r) => ({ type: r.type, cents: Number(r.cents), orderId: r.order_id }));
    },
    async orderCount() {
      const [row] = await db.read<{ n: number }>('SELECT count(*) AS n FROM orders');
      return Number(row?.n);
    },
    async close() {
      await units.drain();
      await db.close();
    },
  };
}
