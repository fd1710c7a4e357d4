/** What each source reports about itself, for the status line, `market status` and `/metrics`. */
import type { Freshness } from './freshness.js';

/** The state of one source. */
export interface SourceStatus {
  name: string;
  /** Running and, for the stream, connected. */
  connected: boolean;
  /** Events (stream) or rows (others) received. */
  received: number;
  /** Rows committed to the warehouse. */
  landed: number;
  /** Seconds behind the feed, when the source can tell (stream: age of the last event), else null. */
  lagSeconds: number | null;
  lastError: string | null;
  lastErrorAt: string | null;
  /** A source stopped for good says why here. */
  stopped: string | null;
  /** Payloads landed that could not be typed at all (see `rejected_payloads`), for sources that count them. */
  rejected?: number;
  /** Payloads landed typed with a note: a field missing or not cast (null). */
  partlyTyped?: number;
  /** Fields of the payloads the contract does not name, each with when it was first seen and how often. */
  newFields?: NewField[];
  /** When the source last succeeded (a run ended, or the stream read a byte), ISO 8601 UTC; null before. */
  lastSuccessAt?: string | null;
  /** The age of the last success against the source's thresholds; absent for warehouse work. */
  freshness?: Freshness;
  /** Connections of the stream lost and opened again. */
  reconnects?: number;
  /** Failures recorded (failed runs, lost connections). */
  failures?: number;
  /**
   * A sweep's first complete read of its game, while it runs (the live set is incomplete until it
   * ends): the pages read so far, and about how many it has (from the game's last minAsk list's
   * listing counts; null before one landed).
   */
  firstPass?: { page: number; pages: number | null };
}

/** A field the upstream sends that the contract does not name. */
export interface NewField {
  field: string;
  /** ISO 8601 UTC. */
  firstSeenAt: string;
  /** Landed payloads that carry it. */
  count: number;
}

/** A mutable status with helpers. */
export class StatusBoard {
  readonly status: SourceStatus;

  constructor(name: string) {
    this.status = {
      name,
      connected: false,
      received: 0,
      landed: 0,
      lagSeconds: null,
      lastError: null,
      lastErrorAt: null,
      stopped: null,
    };
  }

  /** Epoch ms of the last success, null before the first. */
  lastSuccessMs: number | null = null;

  /** Records a success now (cheap: the stream calls it on every read). */
  succeeded(nowMs = Date.now()): void {
    this.lastSuccessMs = nowMs;
  }

  /** A copy of the status, with the time of the last success. */
  snapshot(): SourceStatus {
    const at = this.lastSuccessMs === null ? null : new Date(this.lastSuccessMs).toISOString();
    return { ...this.status, lastSuccessAt: at };
  }

  /** Records an error (its message only). */
  error(error: unknown): void {
    this.status.failures = (this.status.failures ?? 0) + 1;
    this.status.lastError = error instanceof Error ? error.message : String(error);
    this.status.lastErrorAt = new Date().toISOString();
  }
}
