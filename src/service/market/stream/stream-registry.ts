/**
 * The open listing streams per key: at most {@link MAX_STREAMS_PER_KEY} each, freed the moment one
 * closes; and the signal that ends them all when the service stops.
 */
import { refuse } from '../../core/refuse.js';

/** Streams allowed per key at once. */
export const MAX_STREAMS_PER_KEY = 3;

/**
 * The Retry-After of a refused stream: a place frees the moment one of the key's streams closes,
 * which no clock foretells, so the shortest wait (as `concurrent_update`'s).
 */
const RETRY_AFTER_SECONDS = 1;

/** Counts open streams per key id. */
export class StreamRegistry {
  private readonly open = new Map<string, number>();
  private readonly stopping = new AbortController();
  private onAllReleased: (() => void) | undefined;

  /**
   * Aborted when the service stops: a stream then ends its response (its client resumes against
   * the next process with its last id) and releases its place once the response is closed.
   */
  get stopSignal(): AbortSignal {
    return this.stopping.signal;
  }

  /** Takes a place for `keyId` or throws 429 too_many_streams; returns the release function (idempotent). */
  acquire(keyId: string): () => void {
    const count = this.open.get(keyId) ?? 0;
    if (count >= MAX_STREAMS_PER_KEY) {
      throw refuse(
        'too_many_streams',
        `at most ${MAX_STREAMS_PER_KEY} streams may be open per key; close one first`,
        { limit: MAX_STREAMS_PER_KEY, retry_after_seconds: RETRY_AFTER_SECONDS },
      );
    }
    this.open.set(keyId, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(keyId) ?? 1) - 1;
      if (left > 0) this.open.set(keyId, left);
      else this.open.delete(keyId);
      if (this.open.size === 0) this.onAllReleased?.();
    };
  }

  /**
   * Tells every stream to end and resolves once each has released its place. A client that does
   * not read holds its response open: the caller bounds the wait by cutting connections.
   */
  async stopAll(): Promise<void> {
    const released = new Promise<void>((resolve) => {
      this.onAllReleased = resolve;
    });
    this.stopping.abort();
    if (this.open.size > 0) await released;
  }

  /** Open streams per key id (keys with none are absent). */
  snapshot(): Record<string, number> {
    return Object.fromEntries(this.open);
  }
}
