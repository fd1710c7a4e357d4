/**
 * Recovery of the stream after a `resync`. The resync commits where the catch-up must start
 * (`catch_up_after` in the stream's state, with `last_event_id` cleared), and the stream reconnects
 * without Last-Event-ID at once. Once the new connection is open, the catch-up reads what appeared
 * since the last landed event: what appears after the connection opened comes through the stream,
 * what appeared before it through the catch-up, so nothing falls between the two. The marker is
 * cleared in the transaction that records the catch-up, so a collector killed before then catches
 * up after its restart.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { MarketClient } from '../../client/index.js';
import { Backoff } from '../../shared/jobs/index.js';
import type { BatchWriter, Warehouse } from '../../warehouse/index.js';
import type { StatusBoard } from '../source-status.js';
import { catchUpAfterResync, resyncPoint } from './catch-up.js';

/** A catch-up owed: from `after` (null: the whole catalogue), and why. */
interface DueCatchUp {
  after: string | null;
  reason: string;
}

/** The state key of the owed catch-up: an ISO time, `*` for the whole catalogue, empty for none. */
const MARKER = 'catch_up_after';

/** The catch-ups a stream source owes after resyncs. */
export class ResyncRecovery {
  private due: DueCatchUp | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly client: MarketClient,
    private readonly warehouse: Warehouse,
    private readonly writer: BatchWriter,
    private readonly source: string,
    private readonly board: StatusBoard,
    private readonly stopping: AbortSignal,
  ) {}

  /** Takes up a catch-up a previous run of the collector committed but did not finish. */
  restore(state: Record<string, string>): void {
    const marker = state[MARKER];
    if (marker)
      this.due = { after: marker === '*' ? null : marker, reason: 'resync (resumed after a restart)' };
  }

  /** Commits that a catch-up is owed and that the stream resumes from nowhere (no Last-Event-ID). */
  async owe(detail: string): Promise<void> {
    const after = await resyncPoint(this.warehouse, this.writer);
    await this.writer.add({ source: this.source, state: { last_event_id: '', [MARKER]: after ?? '*' } });
    this.due = { after, reason: `resync: ${detail}` };
  }

  /** Starts the catch-up owed, if any and none runs; call it once a connection is open. */
  start(): void {
    if (!this.due || this.running) return;
    this.running = this.recover(this.due).finally(() => {
      this.running = null;
      // A resync that came meanwhile is owed too.
      if (this.due && !this.stopping.aborted) this.start();
    });
  }

  /** Waits for the catch-up in progress, which the stop signal cuts short. */
  async stop(): Promise<void> {
    await this.running;
  }

  /** Catches up, retrying with backoff until it lands or the source stops. */
  private async recover(due: DueCatchUp): Promise<void> {
    const backoff = new Backoff({ baseMs: 500, capMs: 30_000 });
    while (!this.stopping.aborted) {
      try {
        const rows = await catchUpAfterResync(this.client, this.warehouse, this.writer, {
          source: this.source,
          reason: due.reason,
          after: due.after,
          // A newer resync's marker stays: its catch-up is still owed.
          stateAtEnd: () => (this.due === due ? { [MARKER]: '' } : {}),
          signal: this.stopping,
        });
        this.board.status.received += rows;
        if (this.due === due) this.due = null;
        return;
      } catch (error) {
        if (this.stopping.aborted) return;
        this.board.error(error);
        await delay(backoff.next(), undefined, { signal: this.stopping }).catch(stopped);
      }
    }
  }
}

/** A wait the stop cut short: the loop sees the stop and ends, so nothing failed. */
function stopped(): void {}
