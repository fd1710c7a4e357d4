/**
 * The listing event log: every change to the set of live listings at a strictly increasing
 * position, written in the same transaction as the change. Event ids carry the log's identity, so
 * ids of a wiped or different database are recognised as foreign. Old positions are pruned by age
 * and by a row cap.
 */

import type { Database, Tx } from '../../../shared/database.js';
import { randomId } from '../../core/api-keys.js';
import { EVENT_DATA_SQL, sseFrameSql } from './sse-frame.js';

/** One logged change. `listing` is the Listing JSON of a `new` event, null for `gone`. */
export interface LogEvent {
  position: number;
  kind: 'new' | 'gone';
  appId: number;
  listingId: string;
  listing: string | null;
  at: number;
}

/** How long and how much the log keeps. */
export interface RetentionOptions {
  /** @default 24 hours */
  retentionMs?: number;
  /** @default 2_000_000 */
  maxRows?: number;
}

/** What an event id from a client turns out to be: a position of this log, one of another log, or no event id at all. */
export type ParsedEventId =
  | { kind: 'position'; position: number }
  | { kind: 'foreign' }
  | { kind: 'malformed' };

const LOG_ID_KEY = 'listing_log_id';

/** A `listing_events` row's frame, with its event id made of the `$log` parameter and the position. */
const REPLAY_FRAME_SQL = sseFrameSql({
  id: `$log || '-' || position`,
  event: 'kind',
  data: EVENT_DATA_SQL,
});

/** The log: positions, ids, appends inside a transaction, reads and pruning. */
export class EventLog {
  private constructor(
    private readonly db: Database,
    readonly logId: string,
    private headPosition: number,
    private oldestPosition: number,
    private readonly retention: Required<RetentionOptions>,
  ) {}

  /** Opens the log of a database, giving it an identity the first time. */
  static async open(db: Database, retention: RetentionOptions = {}): Promise<EventLog> {
    const stored = await db.all<{ value: string }>(
      `SELECT value FROM service_meta WHERE key = '${LOG_ID_KEY}'`,
    );
    let logId = stored[0]?.value;
    if (logId === undefined) {
      logId = randomId(8);
      await db.run('INSERT INTO service_meta VALUES ($k, $v)', { k: LOG_ID_KEY, v: logId });
    }
    const [bounds] = await db.all<{ head: number | null; oldest: number | null }>(
      'SELECT max(position) AS head, min(position) AS oldest FROM listing_events',
    );
    const head = Number(bounds?.head ?? 0);
    return new EventLog(db, logId, head, Number(bounds?.oldest ?? head + 1), {
      retentionMs: retention.retentionMs ?? 24 * 3_600_000,
      maxRows: retention.maxRows ?? 2_000_000,
    });
  }

  /** Position of the last committed event (0 when none). */
  get head(): number {
    return this.headPosition;
  }

  /** Position of the oldest retained event (head + 1 when the log is empty). */
  get oldest(): number {
    return this.oldestPosition;
  }

  /** The opaque id of a position. */
  eventId(position: number): string {
    return `${this.logId}-${position}`;
  }

  /** Reads an event id from a client: a position of this log, foreign (another log's), or malformed. */
  parseEventId(id: string): ParsedEventId {
    const match = /^([a-z2-7]{8})-(\d{1,15})$/.exec(id.trim());
    if (!match) return { kind: 'malformed' };
    if (match[1] !== this.logId) return { kind: 'foreign' };
    return { kind: 'position', position: Number(match[2]) };
  }

  /**
   * Writes events at their positions (the next ones after the head, in order: the caller numbers
   * them) inside the caller's transaction. The head moves only when the caller reports the commit
   * with {@link committed}.
   */
  async write(tx: Tx, positioned: readonly LogEvent[]): Promise<void> {
    if (positioned.length === 0) return;
    const [only] = positioned;
    if (positioned.length === 1 && only) {
      // One event (a sale, a churn step) is one row of values, cheaper than parsing a JSON array.
      await tx.runPrepared(
        'INSERT INTO listing_events VALUES ($position, $kind, $app_id, $listing_id, $listing, make_timestamp($at * 1000))',
        {
          position: only.position,
          kind: only.kind,
          app_id: only.appId,
          listing_id: only.listingId,
          listing: only.listing,
          at: only.at,
        },
      );
      return;
    }
    await tx.runPrepared(
      `INSERT INTO listing_events
       SELECT e.position, e.kind, e.app_id, e.listing_id, e.listing, make_timestamp(e.at * 1000)
       FROM (SELECT unnest(from_json($rows::JSON,
         '[{"position":"BIGINT","kind":"VARCHAR","app_id":"INTEGER","listing_id":"VARCHAR","listing":"VARCHAR","at":"BIGINT"}]')) AS e)`,
      {
        rows: JSON.stringify(
          positioned.map((e) => ({
            position: e.position,
            kind: e.kind,
            app_id: e.appId,
            listing_id: e.listingId,
            listing: e.listing,
            at: e.at,
          })),
        ),
      },
    );
  }

  /** Moves the head past events whose transaction committed. */
  committed(events: readonly LogEvent[]): void {
    const last = events.at(-1);
    if (last) this.headPosition = last.position;
  }

  /** The id of the last committed event of a game, or null when the log holds none. */
  async lastEventIdOf(appId: number): Promise<string | null> {
    const [row] = await this.db.read<{ position: number | null }>(
      'SELECT max(position) AS position FROM listing_events WHERE app_id = $app AND position <= $head',
      { app: appId, head: this.headPosition },
    );
    return row?.position === null || row?.position === undefined ? null : this.eventId(Number(row.position));
  }

  /** Positions of committed events of one game after `position`, in order, at most `limit`. */
  async positionsOf(appId: number, after: number, limit: number): Promise<number[]> {
    const rows = await this.db.read<{ position: number }>(
      'SELECT position FROM listing_events WHERE app_id = $app AND position > $after AND position <= $head ORDER BY position LIMIT $limit',
      { app: appId, after, head: this.headPosition, limit },
    );
    return rows.map((r) => Number(r.position));
  }

  /** Committed events after `position`, in order, at most `limit`. */
  async readAfter(position: number, limit: number): Promise<LogEvent[]> {
    const rows = await this.db.read<Record<string, unknown>>(
      `SELECT position, kind, app_id, listing_id, listing, epoch_ms(created_at) AS at
       FROM listing_events WHERE position > $after AND position <= $head ORDER BY position LIMIT $limit`,
      { after: position, head: this.headPosition, limit },
    );
    return rows.map(logEventOf);
  }

  /**
   * The SSE frames (as `frameOf` writes them live, from the same `sse-frame.ts`) of one game's
   * committed events at positions after `after` and at most `through`, in order, built by DuckDB:
   * a replay step moves one string per event and no event objects.
   */
  async framesOf(appId: number, after: number, through: number): Promise<string[]> {
    const rows = await this.db.read<{ frame: string }>(
      `SELECT ${REPLAY_FRAME_SQL} AS frame
       FROM listing_events
       WHERE position > $after AND position <= least($through, $head) AND app_id = $app
       ORDER BY position`,
      { log: this.logId, after, through, head: this.headPosition, app: appId },
    );
    return rows.map((r) => r.frame);
  }

  /** Deletes events older than the retention or beyond the row cap. */
  async prune(now: number): Promise<void> {
    const byCap = this.headPosition - this.retention.maxRows;
    await this.db.transaction(async (tx) => {
      await tx.run(
        'DELETE FROM listing_events WHERE position <= $cap OR created_at < make_timestamp(CAST($cutoff AS BIGINT) * 1000)',
        { cap: byCap, cutoff: now - this.retention.retentionMs },
      );
    });
    const [bounds] = await this.db.read<{ oldest: number | null }>(
      'SELECT min(position) AS oldest FROM listing_events',
    );
    this.oldestPosition = Number(bounds?.oldest ?? this.headPosition + 1);
  }
}

/**
 * A `listing_events` row as `readAfter` reads it, as its event. Decoded by hand on purpose: a
 * replay step reads up to 2000 events, and a zod row schema of the same shape costs 2-19× this
 * (0.7-1.0 µs a row here, 1.7-11.8 µs with zod: `npm run bench rows`, five runs on 2 busy cores).
 */
export function logEventOf(r: Record<string, unknown>): LogEvent {
  return {
    position: Number(r.position),
    kind: r.kind === 'new' ? 'new' : 'gone',
    appId: Number(r.app_id),
    listingId: String(r.listing_id),
    listing: r.listing === null ? null : String(r.listing),
    at: Number(r.at),
  };
}
