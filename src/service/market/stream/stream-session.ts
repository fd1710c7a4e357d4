/**
 * One listing-stream connection, independent of HTTP: replays the log after a resume point, then
 * follows the live tail with no gap and no duplicate at the seam. Live events that arrive during
 * the replay wait in a queue and are sent after it, skipping what the replay already sent.
 */

import { APP_IDS } from '../../../contract/common.js';
import type { Listing } from '../../../contract/listing.js';
import { type FilterFields, filterFieldsOf, type ListingPredicate } from '../listing-index/listing-filter.js';
import type { EventLog, LogEvent } from './event-log.js';
import { eventData, sseFrame } from './sse-frame.js';

/** A committed change as a session sees it: its logged event and the listing's filter fields. */
export interface LiveChange {
  event: LogEvent;
  entry: FilterFields & { appId: number };
}

/** What a session follows: the log it replays and the committed changes it sends live (the catalogue). */
export interface StreamFeed {
  readonly log: EventLog;
  /** Subscribes to committed changes; returns the unsubscribe function. */
  onChange(listener: (changes: readonly LiveChange[]) => void): () => void;
}

/** Where a session writes: `write` returns false once the peer is too far behind. */
export interface StreamSink {
  write(chunk: string): boolean;
  /** Resolves when the peer has taken what was written (used while replaying). */
  drained(): Promise<void>;
  /** Ends the connection (the client resumes from its last id). */
  close(reason: string): void;
}

/** Limits of a session. */
export interface StreamSessionOptions {
  /** Log positions per replay step (events per step with a filter). @default 5000 (2000 with a filter) */
  replayBatch?: number;
  /** Live events held while replaying before the session gives up. @default 100000 */
  maxPending?: number;
}

const frames = new WeakMap<LogEvent, string>();

/** The SSE frame of an event, built once and shared by every session. */
export function frameOf(event: LogEvent, eventId: string): string {
  let frame = frames.get(event);
  if (frame === undefined) {
    frame = sseFrame({ id: eventId, event: event.kind, data: eventData(event) });
    frames.set(event, frame);
  }
  return frame;
}

/**
 * The SSE frame of a resync notice; its id is the position the stream goes on from, so a client
 * that keeps it as its last id resumes after it (what follows on this connection comes after it too).
 */
export function resyncFrame(detail: string, resumeId: string): string {
  return sseFrame({
    id: resumeId,
    event: 'resync',
    data: JSON.stringify({ reason: 'last_event_id_expired', detail }),
  });
}

/** A running stream: call `start`, and `stop` when the connection ends. */
export class StreamSession {
  private lastSent: number;
  private replaying = true;
  private pending: LiveChange[] = [];
  private unsubscribe: (() => void) | undefined;
  private closed = false;

  /** `keep` narrows new events; null keeps them all without looking (no filter was sent). */
  constructor(
    private readonly catalogue: StreamFeed,
    private readonly keep: ListingPredicate | null,
    private readonly sink: StreamSink,
    private readonly options: StreamSessionOptions = {},
  ) {
    this.lastSent = catalogue.log.head;
  }

  /** Replays everything after `after` (a log position; null for live only), then goes live. */
  async start(after: number | null): Promise<void> {
    this.unsubscribe = this.catalogue.onChange((changes) => this.onLive(changes));
    if (after !== null) {
      this.lastSent = after;
      await this.replay();
    }
    this.replaying = false;
    const queued = this.pending;
    this.pending = [];
    this.onLive(queued);
  }

  /** Stops following the catalogue. */
  stop(): void {
    this.closed = true;
    this.unsubscribe?.();
    this.pending = [];
  }

  private async replay(): Promise<void> {
    if (this.keep === null) await this.replayFrames();
    else await this.replayFiltered();
  }

  /**
   * Replay without a filter: steps of log positions whose frames DuckDB builds, one write per step;
   * the next step is read from the log while this one drains to the peer.
   */
  private async replayFrames(): Promise<void> {
    const log = this.catalogue.log;
    const step = this.options.replayBatch ?? 5000;
    const until = log.head;
    const read = (after: number) => {
      const through = Math.min(after + step, until);
      return log.framesOf(APP_IDS.cs2, after, through).then((frames) => ({ frames, through }));
    };
    let next = this.lastSent < until ? read(this.lastSent) : null;
    try {
      while (!this.closed && next !== null) {
        const { frames, through } = await next;
        next = through < until ? read(through) : null;
        if (frames.length > 0) this.sink.write(frames.join(''));
        this.lastSent = through;
        await this.sink.drained();
      }
    } finally {
      // A read still in flight when the session ends is not waited for.
      next?.catch(() => undefined);
    }
  }

  /** Replay with a filter: events read from the log and kept one by one. */
  private async replayFiltered(): Promise<void> {
    const log = this.catalogue.log;
    const batch = this.options.replayBatch ?? 2000;
    const until = log.head;
    let next = this.lastSent < until ? log.readAfter(this.lastSent, batch) : null;
    try {
      while (!this.closed && next !== null) {
        const events = await next;
        if (events.length === 0) break;
        const last = (events[events.length - 1] as LogEvent).position;
        next = last < until ? log.readAfter(last, batch) : null;
        for (const event of events) {
          if (event.appId === APP_IDS.cs2 && (event.kind === 'gone' || this.keepLogged(event))) {
            this.sink.write(frameOf(event, log.eventId(event.position)));
          }
          this.lastSent = event.position;
        }
        await this.sink.drained();
      }
    } finally {
      next?.catch(() => undefined);
    }
  }

  private onLive(changes: readonly LiveChange[]): void {
    if (this.closed) return;
    if (this.replaying) {
      this.pending.push(...changes);
      if (this.pending.length > (this.options.maxPending ?? 100_000))
        this.fail('too far behind while replaying');
      return;
    }
    for (const change of changes) {
      const { event, entry } = change;
      if (event.position <= this.lastSent || entry.appId !== APP_IDS.cs2) continue;
      this.lastSent = event.position;
      if (event.kind === 'new' && this.keep !== null && !this.keep(entry)) continue;
      if (!this.sink.write(frameOf(event, this.catalogue.log.eventId(event.position)))) {
        this.fail('client too slow');
        return;
      }
    }
  }

  private keepLogged(event: LogEvent): boolean {
    if (this.keep === null) return true;
    const listing = JSON.parse(event.listing ?? 'null') as Listing | null;
    return listing !== null && this.keep(filterFieldsOf(listing));
  }

  private fail(reason: string): void {
    this.stop();
    this.sink.close(reason);
  }
}
