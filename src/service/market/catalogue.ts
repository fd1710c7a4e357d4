/**
 * The live catalogue: every listing that can be bought now, durable in DuckDB and indexed in
 * memory. Every change to it goes through `apply`, which commits the rows in one transaction and
 * only then updates the index and tells the listeners, in commit order.
 */

import { usdToCents } from '../../contract/common.js';
import type { Listing } from '../../contract/listing.js';
import type { Database, Tx } from '../../shared/database.js';
import type { UnitOfWork, UnitOfWorkRunner } from '../core/unit-of-work.js';
import { type CatalogueSeeder, NEXT_SEQUENCE, seedCatalogue } from './catalogue-seed.js';
import { orderListingKeys } from './listing-index/indexed-listing.js';
import { type IndexedListing, ListingIndex } from './listing-index/listing-index.js';
import { SortedList } from './listing-index/sorted-list.js';
import { deleteListings, insertListings, readListings } from './listing-rows.js';
import { EventLog, type LogEvent, type RetentionOptions } from './stream/event-log.js';

/** One change to the set of live listings. */
export type ListingChange = { kind: 'add'; appId: number; listing: Listing } | { kind: 'remove'; id: string };

/** A change as it was applied: removals carry the listing that left; each has its logged event. */
export type AppliedChange =
  | { kind: 'add'; entry: IndexedListing; event: LogEvent }
  | { kind: 'remove'; entry: IndexedListing; event: LogEvent };

/** Told of every committed batch of changes, in commit order. */
export type ChangeListener = (changes: readonly AppliedChange[]) => void;

/** The changes of one open transaction: the final state per touched id, the events, the sequence. */
interface PendingChanges {
  finals: Map<string, ListingChange | null>;
  events: LogEvent[];
  /** Last log position taken. */
  position: number;
  nextSequence: number;
}

/** A held listing and the end of its trade lock. */
interface Hold {
  id: string;
  untilMs: number;
}

/** The live listings, their index, and the one code path that changes them. */
export class Catalogue {
  readonly index = new ListingIndex();
  private readonly listeners = new Set<ChangeListener>();
  private readonly holds = new SortedList<Hold>(
    (a, b) => a.untilMs - b.untilMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  private readonly holdById = new Map<string, Hold>();
  /** Per open transaction: what its units changed so far, written once just before its commit. */
  private readonly pending = new WeakMap<object, PendingChanges>();

  private constructor(
    private readonly units: UnitOfWorkRunner,
    readonly log: EventLog,
    private sequence: number,
  ) {}

  /** Opens the catalogue: generates the initial listings into an empty database, then loads them. */
  static async open(
    db: Database,
    units: UnitOfWorkRunner,
    seeder: CatalogueSeeder,
    retention: RetentionOptions = {},
  ): Promise<Catalogue> {
    const stored = await db.all<{ value: string }>(
      `SELECT value FROM service_meta WHERE key = '${NEXT_SEQUENCE}'`,
    );
    const sequence = stored[0] === undefined ? await seedCatalogue(db, seeder) : Number(stored[0].value);
    const catalogue = new Catalogue(units, await EventLog.open(db, retention), sequence);
    for await (const row of readListings(db)) catalogue.add(row.appId, row.listing);
    catalogue.index.flush();
    return catalogue;
  }

  /** The sequence number the next new listing takes; ids derive from it and never repeat. */
  get nextSequence(): number {
    return this.sequence;
  }

  /** The live listing with this id, or undefined. */
  get(id: string): IndexedListing | undefined {
    return this.index.get(id);
  }

  /** The live listing as a unit of work sees it (earlier units of its transaction included). */
  getIn(
    uow: UnitOfWork,
    id: string,
  ): { id: string; appId: number; priceCents: number; listing: Listing } | undefined {
    const final = this.pending.get(uow.batch)?.finals.get(id);
    if (final === undefined) return this.index.get(id);
    if (final === null || final.kind !== 'add') return undefined;
    return {
      id,
      appId: final.appId,
      priceCents: usdToCents(final.listing.price_usd),
      listing: final.listing,
    };
  }

  /** The number of live listings. */
  size(): number {
    return this.index.size();
  }

  /** A live listing picked by a number in [0, 1): uniform over all games. */
  sample(fraction: number): IndexedListing | undefined {
    return this.index.at(Math.floor(fraction * this.index.size()));
  }

  /** Held listings whose trade lock has ended by `now`, soonest first. */
  *heldUntil(now: number): Iterable<IndexedListing> {
    const due: string[] = [];
    for (const hold of this.holds.valuesFrom(() => true)) {
      if (hold.untilMs > now) break;
      due.push(hold.id);
    }
    for (const id of due) {
      const entry = this.index.get(id);
      if (entry) yield entry;
    }
  }

  /** When the earliest trade lock of a live listing ends (epoch ms), or undefined when none is held. */
  nextHoldEnd(): number | undefined {
    return this.holds.at(0)?.untilMs;
  }

  /** Subscribes to committed changes; returns the unsubscribe function. */
  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Applies changes in their own unit of work; resolves with them once committed and indexed. */
  async apply(changes: readonly ListingChange[], nextSequence = this.sequence): Promise<AppliedChange[]> {
    return this.units.run((uow) => this.applyIn(uow, changes, nextSequence));
  }

  /**
   * Applies changes in order inside the caller's unit of work, with their events. Removing an
   * absent listing is skipped; adding a present id replaces it (a re-listing: gone, then new).
   * `nextSequence` is stored with the rows it covers. Only after the commit do the index and the
   * listeners see it: the array returned is filled then (empty while the transaction is open).
   * Several units of one transaction plan against the live set the earlier ones left.
   */
  async applyIn(
    uow: UnitOfWork,
    changes: readonly ListingChange[],
    nextSequence = this.sequence,
  ): Promise<AppliedChange[]> {
    let pending = this.pending.get(uow.batch);
    if (!pending) {
      pending = { finals: new Map(), events: [], position: this.log.head, nextSequence: this.sequence };
      this.pending.set(uow.batch, pending);
    }
    const { finals, events } = this.plan(changes, uow.now, pending.finals);
    const applied: AppliedChange[] = [];
    if (events.length === 0 && nextSequence === this.sequence) return applied;
    const start = pending.position;
    const logged = events.map((e, i) => ({ ...e, position: start + 1 + i }));
    pending.position += logged.length;
    pending.events.push(...logged);
    pending.nextSequence = nextSequence;
    for (const [id, final] of finals) pending.finals.set(id, final);
    const written = pending;
    // The rows of every unit of the transaction are written together, just before it commits.
    uow.beforeCommit('catalogue', (tx) => this.write(tx, written));
    uow.afterCommit(() => {
      this.log.committed(logged);
      this.sequence = nextSequence;
      applied.push(...this.applyToIndex(changes, logged));
      for (const listener of this.listeners) listener(applied);
    });
    return applied;
  }

  /** Writes a transaction's changes: the touched rows, their events, the sequence. */
  private async write(tx: Tx, pending: PendingChanges): Promise<void> {
    const adds = [...pending.finals.values()].flatMap((c) =>
      c?.kind === 'add' ? [{ appId: c.appId, listing: c.listing }] : [],
    );
    await deleteListings(tx, [...pending.finals.keys()]);
    await insertListings(tx, adds);
    if (pending.nextSequence !== this.sequence)
      await tx.runPrepared(`INSERT OR REPLACE INTO service_meta VALUES ('${NEXT_SEQUENCE}', $v)`, {
        v: String(pending.nextSequence),
      });
    await this.log.write(tx, pending.events);
  }

  /** The final state of each touched id and the events the changes make, against the live set. */
  private plan(
    changes: readonly ListingChange[],
    at: number,
    before: ReadonlyMap<string, ListingChange | null>,
  ) {
    const finals = new Map<string, ListingChange | null>();
    const events: Omit<LogEvent, 'position'>[] = [];
    const stateOf = (id: string) => (finals.has(id) ? finals.get(id) : before.get(id));
    const isLive = (id: string) => {
      const final = stateOf(id);
      return final === undefined ? this.index.get(id) !== undefined : final !== null;
    };
    const appOf = (id: string) => {
      const final = stateOf(id);
      return final?.kind === 'add' ? final.appId : (this.index.get(id)?.appId ?? 0);
    };
    for (const change of changes) {
      const id = change.kind === 'add' ? change.listing.id : change.id;
      if (isLive(id)) events.push({ kind: 'gone', appId: appOf(id), listingId: id, listing: null, at });
      if (change.kind === 'add') {
        const listing = JSON.stringify(orderListingKeys(change.listing));
        events.push({ kind: 'new', appId: change.appId, listingId: id, listing, at });
        finals.set(id, change);
      } else if (finals.has(id) || isLive(id)) {
        finals.set(id, null);
      }
    }
    return { finals, events };
  }

  private applyToIndex(changes: readonly ListingChange[], events: readonly LogEvent[]): AppliedChange[] {
    const applied: AppliedChange[] = [];
    let next = 0;
    const eventAt = () => events[next++] as LogEvent;
    for (const change of changes) {
      const id = change.kind === 'add' ? change.listing.id : change.id;
      const previous = this.remove(id);
      if (previous) applied.push({ kind: 'remove', entry: previous, event: eventAt() });
      if (change.kind === 'add')
        applied.push({ kind: 'add', entry: this.add(change.appId, change.listing), event: eventAt() });
    }
    return applied;
  }

  private add(appId: number, listing: Listing): IndexedListing {
    const entry = this.index.upsert(appId, listing);
    this.trackHold(listing);
    return entry;
  }

  private trackHold(listing: Listing): void {
    if (listing.delivery !== 'hold' || listing.tradable_at === null) return;
    const hold = { id: listing.id, untilMs: Date.parse(listing.tradable_at) };
    this.holds.insert(hold);
    this.holdById.set(hold.id, hold);
  }

  private remove(id: string): IndexedListing | undefined {
    const hold = this.holdById.get(id);
    if (hold) {
      this.holds.delete(hold);
      this.holdById.delete(id);
    }
    return this.index.remove(id);
  }
}
