/**
 * The live catalogue: every listing that can be bought now, durable in DuckDB and indexed in
 * memory. Every change to it goes through `apply`, which commits the rows in one transaction and
 * only then updates the index and tells the listeners, in commit order.
 */

import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Listing } from '../../contract/listing.js';
import { generateCatalogue } from '../sim/generator.js';
import type { Database } from '../store/database.js';
import {
  deleteListings,
  insertListings,
  loadListingFile,
  readListings,
  rowJson,
} from '../store/listing-rows.js';
import { type IndexedListing, ListingIndex } from './listing-index.js';
import { SortedList } from './sorted-list.js';

/** One change to the set of live listings. */
export type ListingChange = { kind: 'add'; appId: number; listing: Listing } | { kind: 'remove'; id: string };

/** A change as it was applied: removals carry the listing that left. */
export type AppliedChange =
  | { kind: 'add'; entry: IndexedListing }
  | { kind: 'remove'; entry: IndexedListing };

/** Told of every committed batch of changes, in commit order. */
export type ChangeListener = (changes: readonly AppliedChange[]) => void;

/** How the catalogue starts when its database is empty. */
export interface CatalogueSeed {
  seed: number;
  listings: number;
  nowMs: number;
}

const NEXT_SEQUENCE = 'next_listing_sequence';

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

  private constructor(
    private readonly db: Database,
    private sequence: number,
  ) {}

  /** Opens the catalogue: loads the stored listings, or generates the initial ones into an empty database. */
  static async open(db: Database, seed: CatalogueSeed): Promise<Catalogue> {
    const stored = await db.all<{ value: string }>(
      `SELECT value FROM service_meta WHERE key = '${NEXT_SEQUENCE}'`,
    );
    const first = stored[0];
    if (first !== undefined) {
      const catalogue = new Catalogue(db, Number(first.value));
      for (const row of await readListings(db)) catalogue.add(row.appId, row.listing);
      return catalogue;
    }
    const catalogue = new Catalogue(db, seed.listings + 1);
    await catalogue.generate(seed);
    return catalogue;
  }

  /** The sequence number the next new listing takes; ids derive from it and never repeat. */
  get nextSequence(): number {
    return this.sequence;
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

  /** Subscribes to committed changes; returns the unsubscribe function. */
  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Applies changes in order as one transaction. Removing an absent listing is skipped. Adding a
   * present id replaces it (a re-listing). `nextSequence` is stored with the rows it covers.
   */
  async apply(changes: readonly ListingChange[], nextSequence = this.sequence): Promise<AppliedChange[]> {
    if (changes.length === 0) return [];
    const final = new Map<string, ListingChange>();
    for (const change of changes) final.set(change.kind === 'add' ? change.listing.id : change.id, change);
    const adds = [...final.values()].flatMap((c) =>
      c.kind === 'add' ? [{ appId: c.appId, listing: c.listing }] : [],
    );
    await this.db.transaction(async (db) => {
      await deleteListings(db, [...final.keys()]);
      await insertListings(db, adds);
      await db.run(`INSERT OR REPLACE INTO service_meta VALUES ('${NEXT_SEQUENCE}', $v)`, {
        v: String(nextSequence),
      });
    });
    this.sequence = nextSequence;
    const applied = this.applyToIndex(changes);
    for (const listener of this.listeners) listener(applied);
    return applied;
  }

  private applyToIndex(changes: readonly ListingChange[]): AppliedChange[] {
    const applied: AppliedChange[] = [];
    for (const change of changes) {
      if (change.kind === 'add') {
        const previous = this.remove(change.listing.id);
        if (previous) applied.push({ kind: 'remove', entry: previous });
        applied.push({ kind: 'add', entry: this.add(change.appId, change.listing) });
      } else {
        const removed = this.remove(change.id);
        if (removed) applied.push({ kind: 'remove', entry: removed });
      }
    }
    return applied;
  }

  private add(appId: number, listing: Listing): IndexedListing {
    const entry = this.index.upsert(appId, listing);
    if (listing.delivery === 'hold' && listing.tradable_at !== null) {
      const hold = { id: listing.id, untilMs: Date.parse(listing.tradable_at) };
      this.holds.insert(hold);
      this.holdById.set(hold.id, hold);
    }
    return entry;
  }

  private remove(id: string): IndexedListing | undefined {
    const hold = this.holdById.get(id);
    if (hold) {
      this.holds.delete(hold);
      this.holdById.delete(id);
    }
    return this.index.remove(id);
  }

  /** Streams the generated catalogue to a temporary NDJSON file and bulk-loads it with read_json. */
  private async generate(seed: CatalogueSeed): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), 'market-seed-'));
    const file = join(dir, 'listings.ndjson');
    try {
      const out = createWriteStream(file);
      let buffered: string[] = [];
      for (const { appId, listing } of generateCatalogue({
        seed: seed.seed,
        count: seed.listings,
        nowMs: seed.nowMs,
      })) {
        this.add(appId, listing);
        buffered.push(rowJson({ appId, listing }));
        if (buffered.length === 4096) {
          if (!out.write(`${buffered.join('\n')}\n`)) await once(out, 'drain');
          buffered = [];
        }
      }
      out.end(buffered.length > 0 ? `${buffered.join('\n')}\n` : '');
      await once(out, 'finish');
      await this.db.transaction(async (db) => {
        await loadListingFile(db, file);
        await db.run(`INSERT OR REPLACE INTO service_meta VALUES ('${NEXT_SEQUENCE}', $v)`, {
          v: String(this.sequence),
        });
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
