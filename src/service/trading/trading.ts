/**
 * The trading feature's public face: buying (idempotent), reading and claiming orders, and the
 * verbs other features reach it by through their ports (user listings sold, order writes).
 */
import type { Database } from '../../shared/database.js';
import type { Clock } from '../core/clock.js';
import { refuseOnly } from '../core/refuse.js';
import type { UnitOfWork, UnitOfWorkRunner } from '../core/unit-of-work.js';
import { FAULT_ERRORS } from './faults.js';
import { IdempotencyKeys, isReplay, KEY_ERRORS, type KeyClaim } from './idempotency.js';
import { CLAIM_ERRORS, OrderLifecycle } from './order-lifecycle.js';
import { type BuyRequest, type CheckedBuy, OrderPlacement, PLACEMENT_ERRORS } from './order-placement.js';
import type { OrderRecord } from './order-record.js';
import { type OrderPageQuery, OrderStore } from './order-store.js';
import {
  type AccountSettings,
  type Funds,
  type ListingSource,
  type OrderWrittenListener,
  PLAIN_PLACEMENT,
  type PlacementWrapper,
  PORT_ERRORS,
  type TradePlatform,
  type UserListings,
} from './ports.js';
import type { TradingSettings } from './trading-settings.js';
import { UserSales } from './user-sales.js';

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
  /** Per-account verification thresholds. */
  tradingSettings: TradingSettings;
  /** Wraps every placement (the sandbox's faults). @default placing as asked */
  placement?: PlacementWrapper;
  /** Games whose listings can be bought through the API. */
  buyableAppIds: readonly number[];
}

/** A buy's answer: the receipt of its order, placed now or replayed for its key. */
export interface Bought {
  receipt: string;
  replayed: boolean;
}

/** Orders from placement to their end. */
export class Trading {
  private readonly store: OrderStore;
  private readonly lifecycle: OrderLifecycle;
  /** Listings users sell (P2P), delivered by their sellers' own offers. */
  private readonly userSales = new UserSales();
  private readonly placement: OrderPlacement;
  private readonly keys: IdempotencyKeys;
  private readonly wrapper: PlacementWrapper;

  constructor(private readonly deps: TradingDeps) {
    this.store = new OrderStore(deps.db);
    this.keys = new IdempotencyKeys(deps.db);
    this.wrapper = deps.placement ?? PLAIN_PLACEMENT;
    this.placement = new OrderPlacement({ ...deps, store: this.store, userSales: this.userSales });
    this.lifecycle = new OrderLifecycle({ ...deps, store: this.store, userSales: this.userSales });
  }

  /** Loads what trading keeps in memory. */
  async load(): Promise<void> {
    await this.store.load();
    await this.deps.tradingSettings.load();
    await this.keys.load();
  }

  /** Buys: replays the receipt of a used key, else checks the buyer and places the order. */
  async buy(request: BuyRequest): Promise<Bought> {
    let claim: KeyClaim | null = null;
    if (request.customId !== null) {
      const begun = await this.keys.begin(request.account.id, request.customId, request.fingerprint);
      if (isReplay(begun)) return { receipt: begun.receipt, replayed: true };
      claim = begun;
    }
    try {
      const checked = this.checkBuyer(request);
      const placed = await this.wrapper.around((lastStep) => this.placement.place(checked, claim, lastStep));
      return { receipt: placed.receipt, replayed: false };
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

  /** The account's order created with a custom_id in a game, or undefined. */
  findByCustomId(accountId: string, customId: string, appId: number): Promise<OrderRecord | undefined> {
    return this.store.byCustomId(accountId, appId, customId);
  }

  /** The account's order created with a custom_id in a game, or 404. */
  async orderByCustomId(accountId: string, customId: string, appId: number): Promise<OrderRecord> {
    const order = await this.findByCustomId(accountId, customId, appId);
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

  /** Sells user listings through `seller` (the feature that owns them): their sellers deliver them. */
  sellUserListingsWith(seller: UserListings): void {
    this.userSales.use(seller);
  }

  /** A user's own offer for an item of a user listing is out: the item carries it and the order delivers. */
  userOfferSent(uow: UnitOfWork, sale: { orderId: string; itemKey: string; offerId: string }): Promise<void> {
    return this.lifecycle.userOfferSent(uow, sale);
  }

  /** The seller of a user listing could not send it: the item returns and is refunded. */
  userSendFailed(uow: UnitOfWork, sale: { orderId: string; itemKey: string }): Promise<void> {
    return this.lifecycle.userSendFailed(uow, sale);
  }

  /** Moves every order along to `now`. */
  runDue(now: number): Promise<void> {
    return this.lifecycle.runDue(now);
  }

  /** The earliest time from `from` on at which an order has work due, or null. */
  nextDueFrom(from: number): Promise<number | null> {
    return this.lifecycle.nextDueFrom(from);
  }

  /** The buy, once its buyer may make it; its items have somewhere to go. */
  private checkBuyer(request: BuyRequest): CheckedBuy {
    const { account, steamId } = request;
    if (account.status === 'restricted')
      throw refuse('account_restricted', 'this account is restricted; contact support on the website');
    if (steamId === null)
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
    return { ...request, steamId };
  }
}
