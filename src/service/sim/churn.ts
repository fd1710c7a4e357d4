/**
 * Market churn: listings appear and leave at a steady pace while the service runs, and held
 * listings come back as instant ones when their trade lock ends, whether the churn is paused or
 * not (on its ticks and on every pass of the due work, so a clock jump releases them before it
 * answers). Every change goes through the catalogue's `apply`, the one code path that records
 * changes to the live set.
 */

import type { Listing } from '../../contract/listing.js';
import type { Clock } from '../core/clock.js';
import { createListingGenerator, type GeneratedListing, type ListingGenerator } from './generator.js';
import { Random } from './random.js';

/** One change the churn makes to the live set. */
export type ChurnChange = { kind: 'add'; appId: number; listing: Listing } | { kind: 'remove'; id: string };

/** A live listing as the churn sees it. */
export interface ChurnListing {
  readonly id: string;
  readonly appId: number;
  readonly listing: Listing;
}

/** The catalogue the churn drives (the market's catalogue provides it). */
export interface ChurnCatalogue {
  /** The sequence number the next new listing takes. */
  readonly nextSequence: number;
  size(): number;
  /** A live listing picked by a number in [0, 1). */
  sample(fraction: number): ChurnListing | undefined;
  /** Held listings whose trade lock has ended by `now`. */
  heldUntil(now: number): Iterable<ChurnListing>;
  /** When the earliest trade lock ends, or undefined when no listing is held. */
  nextHoldEnd(): number | undefined;
  /** Applies changes in one transaction, storing the next sequence with them. */
  apply(changes: readonly ChurnChange[], nextSequence: number): Promise<unknown>;
}

/** How the churn runs. */
export interface ChurnOptions {
  seed: number;
  /** Listings appearing or leaving per second. @default 4 */
  ratePerSecond?: number;
  /** @default false */
  paused?: boolean;
  /** @default 100 */
  tickMs?: number;
}

/** What `POST /sandbox/simulator` reports. */
export interface ChurnState {
  paused: boolean;
  rate_per_second: number;
  listings: number;
}

/** Share of new listings that are earlier listings coming back (cancelled order, expired offer). */
const RELIST_SHARE = 0.1;
/** How many recently gone listings are remembered for re-listing. */
const RECENTLY_GONE = 2000;
/** The churn keeps at least this many listings, so an empty catalogue fills up. */
const MIN_TARGET = 1000;
/** Hold releases per transaction at most, so a big clock jump releases in several small commits. */
const MAX_RELEASES_PER_BATCH = 500;

/** Drives listings in and out of the catalogue on a timer. */
export class MarketChurn {
  private readonly random: Random;
  private readonly generator: ListingGenerator;
  private readonly target: number;
  private readonly gone: GeneratedListing[] = [];
  private ratePerSecond: number;
  private paused: boolean;
  private budget = 0;
  private lastTick: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly catalogue: ChurnCatalogue,
    private readonly clock: Clock,
    private readonly options: ChurnOptions,
  ) {
    this.random = new Random(options.seed ^ 0x5eed);
    this.generator = createListingGenerator({ seed: options.seed, firstSequence: catalogue.nextSequence });
    this.target = Math.max(MIN_TARGET, catalogue.size());
    this.ratePerSecond = options.ratePerSecond ?? 4;
    this.paused = options.paused ?? false;
    this.lastTick = clock.now();
  }

  /** Starts the timer. */
  start(): void {
    this.timer ??= setInterval(() => {
      this.running = this.running.then(() => this.tick()).catch(() => undefined);
    }, this.options.tickMs ?? 100);
  }

  /** Stops the timer and waits for the tick in flight. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Pauses, resumes or paces the churn; a pause takes effect before this resolves. */
  async configure(change: { paused?: boolean; ratePerSecond?: number }): Promise<void> {
    if (change.ratePerSecond !== undefined) this.ratePerSecond = change.ratePerSecond;
    if (change.paused !== undefined) this.paused = change.paused;
    this.budget = 0;
    this.lastTick = this.clock.now();
    await this.running;
  }

  /** The current pace and the number of live listings. */
  state(): ChurnState {
    return {
      paused: this.paused,
      rate_per_second: this.ratePerSecond,
      listings: this.catalogue.size(),
    };
  }

  /** Releases every held listing whose lock has ended by the clock, after the tick in flight. */
  releaseHolds(): Promise<void> {
    const end = this.catalogue.nextHoldEnd();
    if (end === undefined || end > this.clock.now()) return Promise.resolve();
    const released = this.running.then(() => this.releaseDue(this.clock.now()));
    this.running = released.catch(() => undefined);
    return released;
  }

  /** One step: releases ended holds (paused or not) and makes the changes the elapsed time calls for. */
  async tick(): Promise<void> {
    const now = this.clock.now();
    const elapsed = Math.max(0, Math.min(now - this.lastTick, 5_000));
    this.lastTick = now;
    await this.releaseDue(now);
    if (this.paused) return;
    this.budget += (this.ratePerSecond * elapsed) / 1000;
    const changes: ChurnChange[] = [];
    for (; this.budget >= 1; this.budget -= 1) changes.push(this.nextChange(now));
    await this.catalogue.apply(changes, this.generator.nextSequence);
  }

  /** Held listings whose lock has ended by `now` come back released, in batches until none is left. */
  private async releaseDue(now: number): Promise<void> {
    for (;;) {
      const changes = [...this.holdReleases(now)];
      if (changes.length === 0) return;
      await this.catalogue.apply(changes, this.generator.nextSequence);
    }
  }

  private nextChange(now: number): ChurnChange {
    const size = this.catalogue.size();
    // Leave more often above the starting size and less below it, so the catalogue stays near it.
    const leaveProbability = Math.min(0.9, Math.max(0.1, (0.5 * size) / this.target));
    const picked =
      size > 0 && this.random.next() < leaveProbability
        ? this.catalogue.sample(this.random.next())
        : undefined;
    // A user's P2P listing leaves only when it is bought or withdrawn, never by market churn.
    const leaving = picked?.listing.source === 'p2p' ? undefined : picked;
    if (leaving) {
      this.remember(leaving);
      return { kind: 'remove', id: leaving.id };
    }
    const back = this.gone.length > 0 && this.random.next() < RELIST_SHARE ? this.takeGone() : undefined;
    const next = back ? this.generator.relist(back, now) : this.generator.next(now);
    return { kind: 'add', appId: next.appId, listing: next.listing };
  }

  /** Held listings whose lock has ended come back released (same id, new listed_at). */
  private *holdReleases(now: number): Iterable<ChurnChange> {
    let released = 0;
    for (const entry of this.catalogue.heldUntil(now)) {
      if (released++ >= MAX_RELEASES_PER_BATCH) return;
      const relisted = this.generator.relist({ appId: entry.appId, listing: entry.listing }, now);
      yield { kind: 'add', appId: relisted.appId, listing: relisted.listing };
    }
  }

  private remember(entry: ChurnListing): void {
    this.gone.push({ appId: entry.appId, listing: entry.listing });
    if (this.gone.length > RECENTLY_GONE) this.gone.shift();
  }

  private takeGone(): GeneratedListing | undefined {
    const index = Math.floor(this.random.next() * this.gone.length);
    const [taken] = this.gone.splice(index, 1);
    return taken;
  }
}
