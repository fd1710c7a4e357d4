/**
 * The simulated game platform: linked accounts and their inventories, and trade offers that the
 * simulated recipient accepts, declines or ignores on the service clock. Every timed step is a due
 * time stored with the offer and fired by `runDue`; nothing waits on the wall clock.
 */

import type { Database } from '../../shared/database.js';
import type { Clock } from '../core/clock.js';
import { refuse } from '../core/refuse.js';
import type { UnitOfWork, UnitOfWorkRunner } from '../core/unit-of-work.js';
import { Inventories } from './inventories.js';
import { InventoryStates, type InventoryVisibility } from './inventory-proof.js';
import { InventoryStore } from './inventory-store.js';
import { nextOfferState, type OfferEvent } from './offer-states.js';
import { type OfferRecord, OfferStore, type StoredOffer } from './offer-store.js';
import type {
  InventoryItem,
  NewOffer,
  NewUserOffer,
  OfferClosed,
  OfferListener,
  OfferView,
  SentOffer,
} from './offer-types.js';
import { sellerDelayMs } from './seller-delay.js';
import { resolveTradeUrl, type TradeUrlCheck, tradeUrlFor } from './trade-urls.js';
import { type BehaviourChange, planAnswer, UserBehaviours } from './user-behaviours.js';
import { prepareUserOffer } from './user-offer.js';

export type { InventoryProof, InventoryVisibility } from './inventory-proof.js';
export type { OfferOutcome, OfferState } from './offer-states.js';
export type {
  InventoryItem,
  NewUserOffer,
  OfferClosed,
  OfferItem,
  OfferListener,
  OfferView,
  OwnedCopy,
  UserOfferItem,
} from './offer-types.js';

/** What the platform is built from. */
export interface PlatformDeps {
  db: Database;
  units: UnitOfWorkRunner;
  clock: Clock;
}

/** A sandbox operator's step on an offer. */
export type OfferAction = 'accept' | 'decline' | 'rollback';

/**
 * The simulated platform. Features use it through this API: the marketplace's bots send offers
 * (`sendOffer`), users send offers from their own inventories (`sendUserOffer`), every offer that
 * closes or is rolled back is told to `onOfferClosed` listeners in the same unit of work, and
 * `inventories` reads and changes what each account holds (with its inventory proof).
 */
export class Platform {
  /** Offers close by themselves after this long unanswered (about 15 minutes per the spec). */
  static readonly OFFER_TTL_MS = 15 * 60_000;
  /** How long after acceptance a trade can still be rolled back: the platform's trade protection (8 days). */
  static readonly TRADE_PROTECTION_MS = 8 * 86_400_000;

  /** Accounts' inventories and their proofs. */
  readonly inventories: Inventories;
  private readonly offers: OfferStore;
  private readonly inventory: InventoryStore;
  private readonly states = new InventoryStates();
  private readonly users = new UserBehaviours();
  private readonly listeners: OfferListener[] = [];
  /** Committed active offers per recipient. */
  private readonly active = new Map<string, number>();
  /** Offers sent per recipient in each open transaction (not yet in `active`). */
  private readonly sentIn = new WeakMap<object, Map<string, number>>();

  constructor(private readonly deps: PlatformDeps) {
    this.offers = new OfferStore(deps.db);
    this.inventory = new InventoryStore(deps.db);
    this.inventories = new Inventories({ units: deps.units, inventory: this.inventory, states: this.states });
  }

  /** Reads the active offer counts at start-up. */
  async load(): Promise<void> {
    this.active.clear();
    for (const [steamId, count] of await this.offers.activeCounts()) this.active.set(steamId, count);
  }

  /** Adds a listener called inside the unit of work that closes or rolls back an offer. */
  onOfferClosed(listener: OfferListener): void {
    this.listeners.push(listener);
  }

  /** Sends an offer inside the caller's unit of work; the recipient acts per its settings. */
  async sendOffer(uow: UnitOfWork, offer: NewOffer): Promise<SentOffer> {
    checkOffer(offer);
    return this.send(uow, { ...offer, senderSteamId: null });
  }

  /**
   * Sends a user's own offer inside the caller's unit of work: the copies leave the sender's
   * inventory now, arrive in the recipient's (new asset ids) on acceptance, and come back (new
   * revisions) on a decline or an expiry; a rollback gives the sender new copies of them. The
   * recipient acts per its settings, as with the bots' offers. Refused (`unknown_asset`,
   * `cannot_trade`) when a copy is not at home or the sender is trade banned.
   */
  async sendUserOffer(uow: UnitOfWork, offer: NewUserOffer): Promise<SentOffer> {
    const stored = await prepareUserOffer(uow, { inventory: this.inventory, states: this.states }, offer);
    const sent = await this.send(uow, stored);
    await this.inventory.hold(
      uow,
      sent.offerId,
      offer.items.map((i) => i.assetId),
    );
    return sent;
  }

  private async send(uow: UnitOfWork, offer: StoredOffer): Promise<SentOffer> {
    const sentAt = offer.sentAt ?? uow.now;
    const expiresAt = sentAt + Platform.OFFER_TTL_MS;
    const answerer = offer.answererSteamId ?? offer.steamId;
    const due = planAnswer(await this.users.of(uow, answerer), sentAt, expiresAt);
    const offerId = await this.offers.insert(uow, offer, { sentAt, expiresAt, due });
    const sent = this.sentIn.get(uow.batch) ?? new Map<string, number>();
    sent.set(offer.steamId, (sent.get(offer.steamId) ?? 0) + 1);
    this.sentIn.set(uow.batch, sent);
    uow.afterCommit(() => this.countActive(offer.steamId, +1));
    return { offerId, sentAt, expiresAt };
  }

  /** Active (unanswered) offers to a recipient, as committed, plus those a unit of work's transaction sent. */
  pendingOfferCount(steamId: string, uow?: UnitOfWork): number {
    const sent = uow === undefined ? 0 : (this.sentIn.get(uow.batch)?.get(steamId) ?? 0);
    return (this.active.get(steamId) ?? 0) + sent;
  }

  /**
   * Does everything due by `now`, earliest first: simulated users answer, unanswered offers expire.
   * Each offer closes in its own unit of work with the listeners; one that fails stays due for the
   * next pass, and the failures are thrown together once the others are done.
   */
  async runDue(now: number): Promise<void> {
    const failures: unknown[] = [];
    for (const id of await this.offers.dueBy(now)) {
      try {
        await this.deps.units.run((uow) => this.fireDue(uow, id, now));
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length > 0)
      throw new AggregateError(
        failures,
        `${failures.length} due trade offer(s) failed to close; they stay due`,
      );
  }

  /** When the next offer's timed step from `from` on falls due, or null. */
  nextDueFrom(from: number): Promise<number | null> {
    return this.offers.nextDueFrom(from);
  }

  /** Sandbox: accepts or declines an active offer, or rolls back an accepted one, now. */
  async act(offerId: string, action: OfferAction): Promise<OfferView> {
    // A step that fell due before the operator acted happens first, as it would have on the platform.
    await this.deps.units.run((uow) => this.fireDue(uow, offerId, this.deps.clock.now()));
    return this.deps.units.run(async (uow) => {
      const offer = await this.offers.findIn(uow, offerId);
      if (!offer) throw refuse('not_found', `no trade offer ${offerId}`);
      return viewOf(await this.step(uow, offer, action, uow.now));
    });
  }

  /** Offers sent to or by an account, newest first, as committed. */
  async offersOf(steamId: string): Promise<OfferView[]> {
    return (await this.offers.involving(steamId)).map(viewOf);
  }

  /**
   * Stores how a user answers offers (missing fields keep their value; default: accept after 30 s);
   * the user's active offers are re-planned from their send time by the new behaviour.
   */
  async setUserBehaviour(uow: UnitOfWork, steamId: string, change: BehaviourChange): Promise<void> {
    const behaviour = await this.users.set(uow, steamId, change);
    for (const offer of await this.offers.activeOf(uow, steamId))
      await this.offers.reschedule(uow, offer.id, planAnswer(behaviour, offer.sentAt, offer.expiresAt));
  }

  /** Sandbox: how the platform shows a user's inventory (see {@link Inventories.setVisibility}). */
  setInventoryVisibility(uow: UnitOfWork, steamId: string, visibility: InventoryVisibility): Promise<void> {
    return this.inventories.setVisibility(uow, steamId, visibility);
  }

  /** Inventory of a platform account as the sandbox shows it: one row per copy at home (asset_id). */
  inventoryOf(steamId: string): Promise<InventoryItem[]> {
    return this.inventory.of(steamId);
  }

  /**
   * Checks a trade URL: `https://steamcommunity.com/tradeoffer/new/?partner=<id32>&token=<8 chars>` with the
   * token issued for that partner and an inventory that is not private (simulator rule: id32 % 10 === 0).
   */
  resolveTradeUrl(url: string): TradeUrlCheck {
    return resolveTradeUrl(url);
  }

  /** The trade URL the platform issued for a partner id32 (sandbox helper). */
  tradeUrlFor(partner: number): string {
    return tradeUrlFor(partner);
  }

  /** For an `up_to_12h` listing, after how long its seller sends, or null when the seller never does. */
  sellerDelayMs(listingId: string): number | null {
    return sellerDelayMs(listingId);
  }

  /** Fires the offer's timed step if it is still active and due by `now`; otherwise does nothing. */
  private async fireDue(uow: UnitOfWork, offerId: string, now: number): Promise<void> {
    const offer = await this.offers.findIn(uow, offerId);
    if (offer?.state !== 'active' || !offer.due || offer.due.at > now) return;
    await this.step(uow, offer, offer.due.event, offer.due.at);
  }

  /** Applies one step of the state table with its effects and tells the listeners, all in `uow`. */
  private async step(
    uow: UnitOfWork,
    offer: OfferRecord,
    event: OfferEvent,
    at: number,
  ): Promise<OfferRecord> {
    const state = nextOfferState(offer.state, event);
    if (state === 'rolled_back') {
      const endsAt = (offer.closedAt ?? at) + Platform.TRADE_PROTECTION_MS;
      if (at > endsAt)
        throw refuse(
          'invalid_request',
          `trade offer ${offer.id} can no longer be rolled back: its trade protection ended at ${new Date(endsAt).toISOString()}`,
        );
    }
    await this.moveItems(uow, offer, state, at);
    await this.offers.moveTo(uow, offer.id, state, at);
    if (offer.state === 'active') uow.afterCommit(() => this.countActive(offer.steamId, -1));
    const closed: OfferClosed = {
      offerId: offer.id,
      orderId: offer.orderId,
      steamId: offer.steamId,
      outcome: state,
      senderSteamId: offer.senderSteamId,
      at,
      itemKeys: await this.offers.itemKeys(uow, offer.id),
    };
    for (const listener of this.listeners) await listener(uow, closed);
    return { ...offer, state, due: null };
  }

  /** Where the offer's copies go as it takes a step. */
  private async moveItems(uow: UnitOfWork, offer: OfferRecord, state: OfferRecord['state'], at: number) {
    const sender = offer.senderSteamId;
    if (state === 'accepted') {
      await this.inventory.deliver(uow, offer.id, offer.steamId, at);
      if (sender !== null) await this.inventory.dropCarried(uow, offer.id);
    } else if (state === 'rolled_back') {
      await this.inventory.takeBack(uow, offer.id);
      if (sender !== null) await this.inventory.deliver(uow, offer.id, sender, at);
    } else if (sender !== null) await this.inventory.release(uow, offer.id);
  }

  private countActive(steamId: string, delta: number): void {
    const count = (this.active.get(steamId) ?? 0) + delta;
    if (count > 0) this.active.set(steamId, count);
    else this.active.delete(steamId);
  }
}

function checkOffer(offer: NewOffer): void {
  if (!/^[0-9]{17}$/.test(offer.steamId)) throw new RangeError(`not a 17-digit steam id: ${offer.steamId}`);
  if (offer.items.length === 0) throw new RangeError('a trade offer needs at least one item');
  const keys = new Set(offer.items.map((item) => item.itemKey));
  if (keys.size !== offer.items.length) throw new RangeError('item keys of an offer must be unique');
}

function viewOf(offer: OfferRecord): OfferView {
  return {
    offer_id: offer.id,
    order_id: offer.orderId,
    state: offer.state,
    from_steam_id: offer.senderSteamId,
    to_steam_id: offer.steamId,
    sent_at: new Date(offer.sentAt).toISOString(),
    expires_at: new Date(offer.expiresAt).toISOString(),
  };
}
