/** The trading feature's operations: buying (idempotent, with the sandbox's faults), reading and claiming orders. */
import type { Database } from '../../shared/database.js';
import type { Clock } from '../core/clock.js';
import { refuseOnly } from '../core/refuse.js';
import type { UnitOfWorkRunner } from '../core/unit-of-work.js';
import { Faults } from './faults.js';
import {
  IdempotencyKeys,
  isStoredResponse,
  KEY_ERRORS,
  type KeyClaim,
  requestHash,
  type StoredResponse,
} from './idempotency.js';
import { CLAIM_ERRORS, OrderLifecycle } from './order-lifecycle.js';
import { type BuyRequest, OrderPlacement, PLACEMENT_ERRORS } from './order-placement.js';
import type { OrderRecord } from './order-record.js';
import { type OrderPageQuery, OrderStore } from './order-store.js';
import {
  type AccountSettings,
  type Funds,
  type ListingSource,
  type OrderWrittenListener,
  PORT_ERRORS,
  type TradePlatform,
} from './ports.js';
import { TradingSettings } from './trading-settings.js';
import { UserSales } from './user-sales.js';

/** What the sandbox's armed faults answer a buy with. */
const FAULT_ERRORS = ['market_unavailable', 'price_updating', 'upstream_timeout'] as const;

/** What every buy may refuse with. */
const ANY_BUY_ERRORS = [
  'account_restricted',
  'unsupported_game',
  ...KEY_ERRORS,
  ...PLACEMENT_ERRORS,
  ...PORT_ERRORS,
  ...FAULT_ERRORS,
] as const;

/** What a buy may refuse with, per kind: POST /orders and POST /market/buy document exactly these. */
export const BUY_ERRORS = {
  order: [...ANY_BUY_ERRORS, 'steam_account_required'],
  market_buy: [...ANY_BUY_ERRORS, 'external_buy_disabled'],
} as const;

/** What reading and claiming orders may refuse with (GET /orders/{id}, /orders/info and the claim). */
export const ORDER_ERRORS = { read: ['not_found'], claim: CLAIM_ERRORS } as const;

const refuse = refuseOnly([...BUY_ERRORS.order, ...BUY_ERRORS.market_buy, ...ORDER_ERRORS.read]);

/** What trading needs from the rest of the service. */
export interface TradingDeps {
  db: Database;
  units: UnitOfWorkRunner;
  clock: Clock;
  listings: ListingSource;
  funds: Funds;
  accounts: AccountSettings;
  platform: TradePlatform;
  /** Games whose listings can be bought through the API. */
  buyableAppIds: readonly number[];
}

/** Orders from placement to their end. */
export class Trading {
  readonly store: OrderStore;
  readonly faults = new Faults();
  readonly settings: TradingSettings;
  readonly lifecycle: OrderLifecycle;
  /** Listings users sell (P2P), delivered by their sellers' own offers. */
  readonly userSales = new UserSales();
  private readonly placement: OrderPlacement;
  private readonly keys: IdempotencyKeys;

  constructor(private readonly deps: TradingDeps) {
    this.store = new OrderStore(deps.db);
    this.settings = new TradingSettings(deps.db);
    this.keys = new IdempotencyKeys(deps.db);
    this.placement = new OrderPlacement({
      ...deps,
      settings: deps.accounts,
      store: this.store,
      faults: this.faults,
      trading: this.settings,
      userSales: this.userSales,
    });
    this.lifecycle = new OrderLifecycle({ ...deps, store: this.store, userSales: this.userSales });
  }

  /** Loads what trading keeps in memory. */
  async load(): Promise<void> {
    await this.store.load();
    await this.settings.load();
    await this.keys.load();
  }

  /**
   * Buys: replays a stored response for a used key, else checks the buyer and places the order.
   * An armed upstream timeout lets the order complete and answers 504 (the key then replays it).
   */
  async buy(request: BuyRequest, endpoint: string, body: unknown): Promise<StoredResponse> {
    let claim: KeyClaim | null = null;
    if (request.customId !== null) {
      const begun = await this.keys.begin(request.account.id, request.customId, requestHash(endpoint, body));
      if (isStoredResponse(begun)) return begun;
      claim = begun;
    }
    try {
      this.checkBuyer(request);
      if (this.faults.isOn('market_unavailable'))
        throw refuse('market_unavailable', 'the upstream market is down; nothing was charged; retry later');
      if (this.faults.isOn('price_updating'))
        throw refuse(
          'price_updating',
          'prices are being refreshed; retry in a few seconds with the same key',
        );
      const timesOut = this.faults.take('upstream_timeout_next');
      const response = await this.placement.place(request, claim);
      if (timesOut)
        throw refuse(
          'upstream_timeout',
          'the purchase outcome is not known yet; resend with the same custom_id to get it',
        );
      return response;
    } finally {
      claim?.release();
    }
  }

  /** An order of the account in a game, or 404. */
  async order(accountId: string, id: string, appId: number): Promise<OrderRecord> {
    const order = await this.store.get(id);
    if (!order || order.accountId !== accountId || order.appId !== appId)
      throw refuse('not_found', `no order ${id} in game ${appId} on this account`);
    return order;
  }

  /** The account's order created with a custom_id in a game, or 404. */
  async orderByCustomId(accountId: string, customId: string, appId: number): Promise<OrderRecord> {
    const order = await this.store.byCustomId(accountId, appId, customId);
    if (!order) throw refuse('not_found', `no order with custom_id ${customId} in game ${appId}`);
    return order;
  }

  /** A page of the account's orders, newest first (or oldest change first: the change feed). */
  orders(query: OrderPageQuery) {
    return this.store.page(query);
  }

  /** Releases a held order after its hold. */
  claim(accountId: string, id: string, appId: number): Promise<OrderRecord> {
    return this.lifecycle.claim(accountId, id, appId);
  }

  /** Tells `listener` of every order placed or changed, inside the unit of work that writes it. */
  onOrderWritten(listener: OrderWrittenListener): void {
    this.store.onWritten(listener);
  }

  /** Moves every order along to `now`. */
  runDue(now: number): Promise<void> {
    return this.lifecycle.runDue(now);
  }

  /** The earliest time from `from` on at which an order has work due, or null. */
  nextDueFrom(from: number): Promise<number | null> {
    return this.lifecycle.nextDueFrom(from);
  }

  private checkBuyer(request: BuyRequest): void {
    const { account } = request;
    if (account.status === 'restricted')
      throw refuse('account_restricted', 'this account is restricted; contact support on the website');
    if (request.kind === 'order' && account.steamId === null)
      throw refuse(
        'steam_account_required',
        'link a platform account on the profile page; orders deliver to the key owner',
      );
    const supported = this.deps.buyableAppIds.filter((id) => account.appIds.includes(id));
    if (!supported.includes(request.appId))
      throw refuse('unsupported_game', `listings of appId ${request.appId} cannot be bought with this key`, {
        supported_app_ids: supported,
      });
    if (request.kind === 'market_buy' && !account.externalBuy)
      throw refuse(
        'external_buy_disabled',
        'buying for another trade URL is not enabled on this account; ask for it on the website',
      );
  }
}
