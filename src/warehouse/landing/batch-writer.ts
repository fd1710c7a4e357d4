/** Queues batches from the collectors and commits them together, on size or after a short delay. */

import type { Warehouse } from '../warehouse.js';
import { countBatchRows, type WarehouseBatch } from './batch.js';
import { mergeBatches } from './merge-batches.js';

/** Options of {@link BatchWriter}. */
export interface BatchWriterOptions {
  /** Flush once the queued batches hold this many rows. @default 500 */
  maxRows?: number;
  /** Flush this long after the first batch queued since the last flush. @default 500 */
  maxDelayMs?: number;
  /**
   * Most rows one write takes (a single larger batch still goes whole): a burst queued faster than
   * it lands is written in steps, each committing soon, rather than in one long transaction.
   * @default 2000
   */
  maxWriteRows?: number;
  /**
   * Rows landed before the live set's state is brought up to date even while a burst waits (half
   * of `maxWriteRows` or more queued; otherwise it is brought up to date after every write). Reads stay exact either way
   * (`live_listings` merges the loads not applied yet); a larger value makes a burst cheaper to
   * land (most of its listings come and go before an apply, and each apply has a fixed cost) and a
   * read during it dearer (what each costs at 20,000 and 100,000 rows: test/bench/README.md,
   * landing). @default 100000
   */
  refreshRows?: number;
  /**
   * While a trickle lands (less than half a write's rows landed since the last refresh), its
   * writes are applied together at most this often, and this long after the first of them at the
   * latest; a burst's rows, {@link BatchWriter.flush} and closing apply at once. Each apply has a
   * fixed cost (planning its statements, reading the state: about 100 ms at 20,000 listings), and
   * the stream's trickle is written twice a second: applying every write, the main job used 53 %
   * of a core, 30 % so (test/bench/README.md, soak). Reads stay exact either way. @default 5000
   */
  refreshDelayMs?: number;
  /** Called with the error of a flush started by size or time (the batches' own promises reject too). */
  onError?: (error: unknown) => void;
  /** The upstream's measured clock offset (ms), stamped on every load written. @default none */
  upstreamOffsetMs?: () => number | null;
}

interface Pending {
  batch: WarehouseBatch;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Groups batches into one `Warehouse.write` (one transaction) per flush. Batches keep their order;
 * adjacent ones of a source are merged into one load when that changes nothing (see
 * `mergeBatches`), so a source's `state` ends as the last value added for each key.
 *
 * @example
 * const writer = new BatchWriter(warehouse, { maxRows: 1000, onError: (e) => log.error(e) });
 * await writer.add({ source: 'stream', events: [event], state: { last_event_id: event.eventId } });
 */
export class BatchWriter {
  private readonly maxRows: number;
  private readonly maxDelayMs: number;
  private readonly maxWriteRows: number;
  private readonly refreshRows: number;
  private readonly refreshDelayMs: number;
  /** Rows landed since the live set's state was last brought up to date. */
  private unrefreshedRows = 0;
  /** When the state was last brought up to date (`performance.now()`), and the refresh a trickle waits for. */
  private refreshedAt = Number.NEGATIVE_INFINITY;
  private refreshTimer: NodeJS.Timeout | undefined;
  private readonly onError: ((error: unknown) => void) | undefined;
  private readonly upstreamOffsetMs: (() => number | null) | undefined;
  private pending: Pending[] = [];
  private pendingRows = 0;
  private timer: NodeJS.Timeout | undefined;
  private lastFlush: Promise<void> = Promise.resolve();
  private closed = false;
  /** A write is in flight; size and time triggers then wait for it and take everything queued meanwhile. */
  private writing = false;
  private flushWanted = false;
  /** Rows taken for a write and not yet committed (or failed). */
  private takenRows = 0;
  /** Rows the last write finished took: a burst fills its writes, its last one does not. */
  private lastWriteRows = 0;
  /** The end of the burst being written, one promise for every caller of {@link calm}. */
  private burstEnd: { landed: Promise<void>; resolve: () => void } | undefined;

  constructor(
    private readonly warehouse: Warehouse,
    options: BatchWriterOptions = {},
  ) {
    this.maxRows = options.maxRows ?? 500;
    this.maxDelayMs = options.maxDelayMs ?? 500;
    this.maxWriteRows = options.maxWriteRows ?? 2000;
    this.refreshRows = options.refreshRows ?? 100_000;
    this.refreshDelayMs = options.refreshDelayMs ?? 5000;
    this.onError = options.onError;
    this.upstreamOffsetMs = options.upstreamOffsetMs;
  }

  /** Queues `batch`; resolves once it is committed, rejects if the flush that carried it failed. */
  add(batch: WarehouseBatch): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the BatchWriter is closed'));
    const committed = new Promise<void>((resolve, reject) => this.pending.push({ batch, resolve, reject }));
    this.pendingRows += countBatchRows(batch);
    if (this.pendingRows >= this.maxRows) this.flushInBackground();
    else this.timer ??= setTimeout(() => this.flushInBackground(), this.maxDelayMs);
    return committed;
  }

  /** Rows queued and not yet committed. */
  get backlog(): number {
    return this.pendingRows;
  }

  /**
   * Whether a burst is being written: half a write or more waits or is being written, or the last
   * write took that much and more rows came since (the writes of a burst are full, and between two
   * of them the queue may be briefly short; a burst has ended when nothing came).
   */
  get bursting(): boolean {
    const half = this.maxWriteRows / 2;
    const unwritten = this.pendingRows + this.takenRows;
    return unwritten >= half || (this.lastWriteRows >= half && unwritten > 0);
  }

  /**
   * Resolves once no burst is being written (at once when none is), the live set brought up to date
   * after it: work that can wait, a model refresh say, then does not hold a transaction open beside
   * the burst (the rows landed meanwhile stay in memory until it ends) nor take its CPU.
   */
  calm(): Promise<void> {
    if (!this.bursting) return Promise.resolve();
    if (!this.burstEnd) {
      let resolve = () => {};
      const landed = new Promise<void>((r) => {
        resolve = r;
      });
      this.burstEnd = { landed, resolve };
    }
    return this.burstEnd.landed;
  }

  /** Resolves once fewer than `rows` rows wait to be written (a source's backpressure). */
  async room(rows: number): Promise<void> {
    while (this.pendingRows >= rows && !this.closed) {
      this.flushInBackground();
      await this.lastFlush;
    }
  }

  /**
   * Writes everything queued now, in transactions of at most `maxWriteRows` rows, and brings the
   * live set's state up to date; resolves once the last of them (and every earlier flush) is done.
   */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    let last = this.lastFlush;
    while (this.pending.length > 0) last = this.writeNext();
    return last.then(() => this.refresh());
  }

  /** The batches with the upstream's clock offset of now (none when not measured). */
  private stamped(batches: WarehouseBatch[]): WarehouseBatch[] {
    const offset = this.upstreamOffsetMs?.() ?? null;
    return offset === null ? batches : batches.map((b) => ({ ...b, upstreamOffsetMs: offset }));
  }

  /**
   * Writes the oldest queued batches, up to `maxWriteRows` rows, in one transaction after the write
   * in flight; then brings the live set's state up to date, in a transaction of its own.
   */
  private writeNext(): Promise<void> {
    const taken = this.takeForWrite();
    const rows = taken.reduce((sum, p) => sum + countBatchRows(p.batch), 0);
    this.takenRows += rows;
    this.writing = true;
    const flushed = this.lastFlush
      .then(() => this.warehouse.write(this.stamped(mergeBatches(taken.map((p) => p.batch)))))
      .then(
        (summary) => {
          for (const p of taken) p.resolve();
          this.unrefreshedRows += summary.rows;
        },
        (error: unknown) => {
          for (const p of taken) p.reject(error);
          throw error;
        },
      );
    const refreshed = flushed.then(() => this.applyLanded());
    this.lastFlush = refreshed
      .catch(() => undefined)
      .finally(() => {
        this.takenRows -= rows;
        this.lastWriteRows = rows;
        this.afterWrite(flushed);
      });
    return refreshed;
  }

  /**
   * Brings the live set's state up to date after a write, except while a burst is being written
   * (half a write or more waits): then once `refreshRows` landed, and after the burst. A trickle
   * (less than half a write landed since the last refresh) is applied at most every
   * `refreshDelayMs`, so a stream written twice a second pays the apply's fixed cost once in a
   * while, and polls and sweeps beside it keep the state and the payload counts current all the
   * same. Reads of the live set are exact either way; a failure only leaves more for the next
   * refresh, so it is reported, not thrown.
   */
  private async applyLanded(): Promise<void> {
    // The write just landed counts (its rows are still taken): a burst's writes are full, and its
    // last write, however short, is still part of it, so the burst is applied at once.
    const bursting = this.bursting;
    await this.warehouse.setBursting(bursting).catch((error: unknown) => this.onError?.(error));
    if (this.unrefreshedRows === 0) return;
    const burst = this.pendingRows >= this.maxWriteRows / 2;
    if (burst && this.unrefreshedRows < this.refreshRows) return;
    const wait = this.refreshedAt + this.refreshDelayMs - performance.now();
    if (!bursting && this.unrefreshedRows < this.maxWriteRows / 2 && wait > 0 && !this.closed) {
      this.refreshLater(wait);
      return;
    }
    await this.refresh();
  }

  /** Applies what landed since the last refresh, if anything did. */
  private async refresh(): Promise<void> {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = undefined;
    if (this.unrefreshedRows === 0) return;
    this.unrefreshedRows = 0;
    this.refreshedAt = performance.now();
    await this.warehouse.applyLanded().catch((error: unknown) => this.onError?.(error));
  }

  /** A refresh in `ms`, after the writes queued by then (one timer for the trickle; none keeps the process up). */
  private refreshLater(ms: number): void {
    if (this.refreshTimer) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      this.lastFlush = this.lastFlush.then(() => this.refresh());
    }, ms);
    this.refreshTimer.unref();
  }

  /** Flushes what is queued (in as many writes as it takes), stops the timer and refuses further batches. */
  async close(): Promise<void> {
    this.closed = true;
    try {
      await this.flush();
    } finally {
      // A failed last write skips the flush's refresh: none may come after the warehouse closed.
      clearTimeout(this.refreshTimer);
      this.refreshTimer = undefined;
    }
    this.wakeIfCalm();
  }

  private wakeIfCalm(): void {
    if (this.bursting || !this.burstEnd) return;
    this.burstEnd.resolve();
    this.burstEnd = undefined;
  }

  /** The oldest queued batches up to `maxWriteRows` rows (at least one), removed from the queue. */
  private takeForWrite(): Pending[] {
    let rows = 0;
    let count = 0;
    while (count < this.pending.length) {
      const next = countBatchRows((this.pending[count] as Pending).batch);
      if (count > 0 && rows + next > this.maxWriteRows) break;
      rows += next;
      count++;
    }
    const taken = this.pending.splice(0, count);
    this.pendingRows -= rows;
    if (this.pending.length > 0) this.flushWanted = true;
    return taken;
  }

  private flushInBackground(): void {
    if (this.writing) {
      this.flushWanted = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length > 0) this.writeNext().catch((error: unknown) => this.onError?.(error));
  }

  /** Group commit: what queued up while a write was in flight goes out together in the next one. */
  private afterWrite(finished: Promise<void>): void {
    void finished.catch(() => undefined);
    this.writing = false;
    this.wakeIfCalm();
    if (this.pending.length > 0 && (this.flushWanted || this.pendingRows >= this.maxRows)) {
      this.flushWanted = false;
      this.flushInBackground();
    }
  }
}
