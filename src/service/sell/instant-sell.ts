/** Instant Sell's operations: access, quotes, sell orders and their lifecycle, over the ports it is given. */
import {
  type CreateSellOrderBody,
  SELL_LIMITS,
  type SellOrderStatus,
  type SellQuote,
  type SellQuoteBody,
  type SellStatus,
} from '../../contract/sell.js';
import type { Database } from '../../shared/database.js';
import type { Account } from '../core/caller.js';
import { refuse, refuseOnly } from '../core/refuse.js';
import type { UnitOfWorkRunner } from '../core/unit-of-work.js';
import type { ChangePosition } from '../http/change-feed.js';
import { SellLifecycle } from './lifecycle.js';
import { type Placed, placeSellOrder } from './placement.js';
import type { MarketPrices, SellFunds, SellPlatform } from './ports.js';
import { createQuote } from './quotes.js';
import type { SellOrderRecord } from './sell-order-record.js';
import { SellOrderStore } from './sell-order-store.js';
import { SellQuoteStore } from './sell-quote-store.js';

/**
 * Who may use Instant Sell; the routes check the same first (`config.requires`), which documents
 * these codes.
 */
const ACCESS_ERRORS = ['instant_sell_not_enabled', 'account_restricted'] as const;

const refuseAccess = refuseOnly(ACCESS_ERRORS);

/** What Instant Sell is built from. */
export interface InstantSellDeps {
  db: Database;
  units: UnitOfWorkRunner;
  platform: SellPlatform;
  prices: MarketPrices;
  funds: SellFunds;
  /** Games whose items the bots buy. */
  appIds: readonly number[];
}

/** Instant Sell: every operation checks the account's access first. */
export class InstantSell {
  readonly orders: SellOrderStore;
  private readonly quotes = new SellQuoteStore();
  private readonly lifecycle: SellLifecycle;

  constructor(private readonly deps: InstantSellDeps) {
    this.orders = new SellOrderStore(deps.db);
    this.lifecycle = new SellLifecycle({ ...deps, orders: this.orders });
  }

  /** Whether the account has access, with the terms. */
  status(account: Account): SellStatus {
    return {
      enabled: account.instantSell,
      max_bots_per_order: SELL_LIMITS.maxBotsPerOrder,
      settlement_days: SELL_LIMITS.settlementDays,
      quote_ttl_seconds: SELL_LIMITS.quoteTtlSeconds,
      spread_percent: SELL_LIMITS.spreadPercent,
      items_per_bot: SELL_LIMITS.itemsPerBot,
    };
  }

  /** Quotes the inventory behind a trade URL. */
  quote(account: Account, body: SellQuoteBody): Promise<SellQuote> {
    requireAccess(account, true);
    return createQuote({ ...this.deps, quotes: this.quotes }, account, body);
  }

  /** Places a sell order from a quote (or replays the one with the same external_id). */
  place(account: Account, body: CreateSellOrderBody): Promise<Placed> {
    requireAccess(account, true);
    return placeSellOrder({ ...this.deps, orders: this.orders, quotes: this.quotes }, account, body);
  }

  /** One of the account's sell orders; 404 for anyone else's. */
  async order(account: Account, id: string): Promise<SellOrderRecord> {
    requireAccess(account, false);
    const order = await this.orders.get(id);
    if (!order || order.accountId !== account.id)
      throw refuse('not_found', `no sell order ${id} on this account`);
    return order;
  }

  /** A page of the account's sell orders, newest first (up to `limit + 1` rows). */
  page(
    account: Account,
    query: {
      status: SellOrderStatus | undefined;
      beforeSeq: number | undefined;
      after?: ChangePosition | undefined;
      limit: number;
    },
  ): Promise<SellOrderRecord[]> {
    requireAccess(account, false);
    return this.orders.page({ accountId: account.id, ...query });
  }

  /** Does the lifecycle work due by `now`. */
  runDue(now: number): Promise<void> {
    return this.lifecycle.runDue(now);
  }

  /** The earliest time from `from` on at which a sell order has work due, or null. */
  nextDueFrom(from: number): Promise<number | null> {
    return this.orders.nextDueFrom(from);
  }
}

/** 403 instant_sell_not_enabled without access; a restricted account may read but not sell. */
function requireAccess(account: Account, writes: boolean): void {
  if (!account.instantSell)
    throw refuseAccess(
      'instant_sell_not_enabled',
      'Instant Sell is invite-only and not enabled for this account; GET /sell/status tells when it is',
    );
  if (writes && account.status === 'restricted')
    throw refuseAccess('account_restricted', 'this account is restricted and cannot sell');
}
