/**
 * The stream source: follows GET /listings/stream with the `eventsource` package and lands every
 * event with its id as the progress marker in the same transaction. It works around the
 * library's traps: the stored Last-Event-ID is injected through our fetch (the library keeps it
 * only in memory); every failure, including a non-200 answer that closes the library for good,
 * is followed by our own reconnect with backoff and jitter; and a watchdog reads the bytes of the
 * response body (comments such as heartbeats never reach listeners) and reconnects a silent
 * connection. On `resync` it reconnects at once without Last-Event-ID and, once connected, catches
 * up on the listings that appeared since the last landed event (see `resync-recovery.ts`).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { EventSource } from 'eventsource';
import type { Logger } from 'pino';
import type { MarketClient } from '../../client/index.js';
import { APP_IDS } from '../../contract/common.js';
import type { Listing } from '../../contract/listing.js';
import { Backoff } from '../../shared/jobs/index.js';
import type { BatchWriter, StreamEventRow, Warehouse } from '../../warehouse/index.js';
import { isKeyRefused, keyRefusedReason } from '../key-refusal.js';
import { PayloadWatch } from '../payload-watch.js';
import { StatusBoard } from '../source-status.js';
import { ResyncRecovery } from './resync-recovery.js';

/** Settings of the stream source. */
export interface StreamSourceOptions {
  /** Silence (no byte at all) after which the connection is presumed dead. @default 40_000 (25 s heartbeat + margin) */
  watchdogMs?: number;
  /** Filters passed to the stream (query string without `?`). @default '' */
  query?: string;
  /** Where a new upstream field is reported. */
  log?: Logger;
}

const SOURCE = 'stream';
/** Events queued for the warehouse before the stream stops reading. */
const MAX_BACKLOG_ROWS = 20_000;
/** Largest piece of the response body handed to the SSE parser. */
const MAX_PIECE_BYTES = 16_384;

/** Follows the listing stream until stopped. */
export class StreamSource {
  readonly board = new StatusBoard(SOURCE);
  private lastEventId = '';
  /** Events received and not yet handed to the writer. */
  private received: StreamEventRow[] = [];
  private readonly stopping = new AbortController();
  private current: EventSource | null = null;
  private running: Promise<void> | null = null;
  private readonly recovery: ResyncRecovery;
  private readonly watch: PayloadWatch;

  constructor(
    private readonly client: MarketClient,
    private readonly warehouse: Warehouse,
    private readonly writer: BatchWriter,
    private readonly options: StreamSourceOptions = {},
  ) {
    this.recovery = new ResyncRecovery(client, warehouse, writer, SOURCE, this.board, this.stopping.signal);
    this.watch = new PayloadWatch(warehouse, this.board, options.log);
  }

  /** Reads the committed resume point (and any catch-up still owed) and starts following. */
  async start(): Promise<void> {
    const state = await this.warehouse.readState(SOURCE);
    this.lastEventId = state.last_event_id ?? '';
    this.recovery.restore(state);
    await this.watch.refresh();
    this.running = this.loop();
  }

  /** Closes the connection and waits for the loop and a catch-up in progress to end. */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.current?.close();
    await this.running;
    this.handOver();
    await this.recovery.stop();
    this.watch.stop();
  }

  private async loop(): Promise<void> {
    const backoff = new Backoff({ baseMs: 500, capMs: 30_000 });
    while (!this.stopping.signal.aborted) {
      const outcome = await this.follow();
      this.handOver();
      if (this.stopping.signal.aborted) return;
      if (outcome.kind === 'terminal') {
        this.board.status.stopped = outcome.reason;
        return;
      }
      if (outcome.kind === 'resync') {
        const owed = await this.recovery.owe(outcome.detail).then(
          () => true,
          (error: unknown) => {
            if (!this.stopping.signal.aborted) this.board.error(error);
            return false;
          },
        );
        if (owed) {
          this.lastEventId = '';
          backoff.reset();
        } else await delay(backoff.next(), undefined, { signal: this.stopping.signal }).catch(stopped);
        continue;
      }
      const startedAt = Date.now();
      await this.writer.add({
        source: SOURCE,
        gaps: [{ kind: outcome.kind, startedAt, endedAt: null, rows: 0, detail: outcome.reason }],
      });
      if (outcome.kind === 'reconnect' && outcome.hadEvents) backoff.reset();
      await delay(outcome.kind === 'watchdog_reconnect' ? 0 : backoff.next(), undefined, {
        signal: this.stopping.signal,
      }).catch(stopped);
    }
  }

  /** One connection, until it fails, goes silent, asks for a resync, or the source stops. */
  private follow(): Promise<FollowOutcome> {
    return new Promise((resolve) => {
      let lastByteAt = Date.now();
      let status = 0;
      let refusal: { code: string; detail: string } | null = null;
      let hadEvents = false;
      const writer = this.writer;
      const tap = new TransformStream<Uint8Array, Uint8Array>({
        // Backpressure: while the warehouse lags, stop reading; the server holds or drops us and we resume.
        async transform(chunk, controller) {
          lastByteAt = Date.now();
          if (writer.backlog >= MAX_BACKLOG_ROWS) await writer.room(MAX_BACKLOG_ROWS / 2);
          lastByteAt = Date.now();
          // In pieces: a string decoded from a whole socket read (64 kB, UTF-16 once a ★ is in it) is
          // a large heap object, which only a full collection frees.
          for (let start = 0; start < chunk.length; start += MAX_PIECE_BYTES) {
            controller.enqueue(chunk.subarray(start, start + MAX_PIECE_BYTES));
          }
        },
      });
      const authorized = this.client.streamFetch();
      const resumeFrom = this.lastEventId;
      let first = true;
      const es = new EventSource(
        `${this.client.baseUrl}/listings/stream${this.options.query ? `?${this.options.query}` : ''}`,
        {
          fetch: async (input, init) => {
            const headers: Record<string, string> = { ...(init?.headers as Record<string, string>) };
            if (first && resumeFrom) headers['last-event-id'] = resumeFrom;
            first = false;
            const response = await authorized(input, { ...init, headers });
            status = response.status;
            if (status === 401 || status === 403) refusal = await refusalOf(response.clone());
            if (!response.ok || !response.body) return response;
            return new Response(response.body.pipeThrough(tap), {
              status: response.status,
              headers: response.headers,
            });
          },
        },
      );
      this.current = es;
      const stop = () => finish({ kind: 'reconnect', reason: 'stopping', hadEvents });
      this.stopping.signal.addEventListener('abort', stop, { once: true });
      const finish = (outcome: FollowOutcome) => {
        clearInterval(watchdog);
        this.stopping.signal.removeEventListener('abort', stop);
        es.close();
        this.board.status.connected = false;
        resolve(outcome);
      };
      const watchdogMs = this.options.watchdogMs ?? 40_000;
      const watchdog = setInterval(
        () => {
          if (Date.now() - lastByteAt > watchdogMs) {
            finish({ kind: 'watchdog_reconnect', reason: `no byte for ${watchdogMs} ms` });
          }
        },
        Math.min(1000, watchdogMs / 4),
      );
      es.addEventListener('open', () => {
        this.board.status.connected = true;
        this.recovery.start();
      });
      es.addEventListener('error', () => {
        if (refusal && isKeyRefused(refusal.code)) {
          finish({ kind: 'terminal', reason: keyRefusedReason(refusal.code, refusal.detail) });
        } else if (refusal) {
          // A ban or an allowlist refusal ends by itself: reconnect with backoff.
          finish({ kind: 'reconnect', reason: `the stream answered ${status} ${refusal.code}`, hadEvents });
        } else {
          finish({
            kind: 'reconnect',
            reason: status ? `the stream answered ${status}` : 'connection lost',
            hadEvents,
          });
        }
      });
      es.addEventListener('resync', (event) => finish({ kind: 'resync', detail: String(event.data) }));
      for (const kind of ['new', 'gone'] as const) {
        es.addEventListener(kind, (event) => {
          hadEvents = true;
          this.onEvent(kind, event.lastEventId, String(event.data));
        });
      }
    });
  }

  /**
   * Queues the event as received: its data is landed as is (DuckDB parses and checks it), so the
   * hot path does no per-event parsing. The events a read delivers go to the writer as one batch.
   * Nothing queued refers to the parser's strings, so a burst's backlog costs its bytes and no more.
   */
  private onEvent(kind: 'new' | 'gone', eventId: string, data: string): void {
    this.board.status.received += 1;
    // Copies: the parser's strings are slices of the piece of body they were read from, and would
    // keep the whole piece alive while the event waits for its write. The data waits as UTF-8 bytes.
    const id = Buffer.from(eventId).toString();
    this.lastEventId = id;
    this.received.push({
      eventId: id,
      kind,
      appId: APP_IDS.cs2,
      receivedAt: Date.now(),
      data: Buffer.from(data),
    });
    if (this.received.length === 1) setImmediate(() => this.handOver());
  }

  /** Hands the queued events to the writer as one batch, with the last one's id as the progress marker. */
  private handOver(): void {
    const events = this.received;
    if (events.length === 0) return;
    this.received = [];
    const last = events[events.length - 1] as StreamEventRow;
    this.noteLag(events);
    this.writer
      .add({ source: SOURCE, events, state: { last_event_id: last.eventId } })
      .then(() => {
        this.board.status.landed += events.length;
        this.watch.refreshSoon();
      })
      .catch((error: unknown) => this.board.error(error));
  }

  /** Lag of the batch's last `new` event: how long after its listing appeared it was received. */
  private noteLag(events: readonly StreamEventRow[]): void {
    const last = events.findLast((e) => e.kind === 'new');
    const listedAt = last?.data === undefined ? undefined : listedAtOf(last.data);
    if (last && listedAt)
      this.board.status.lagSeconds = Math.max(0, (last.receivedAt - Date.parse(listedAt)) / 1000);
  }
}

type FollowOutcome =
  | { kind: 'reconnect'; reason: string; hadEvents: boolean }
  | { kind: 'watchdog_reconnect'; reason: string }
  | { kind: 'resync'; detail: string }
  | { kind: 'terminal'; reason: string };

/**
 * The `listed_at` of an event's data, or undefined when the data is not a listing's JSON: the
 * upstream may send anything, and the events are handed over whatever they hold.
 */
function listedAtOf(data: string | Buffer): string | undefined {
  try {
    const listedAt = (JSON.parse(data.toString()) as Partial<Listing> | null)?.listed_at;
    return typeof listedAt === 'string' ? listedAt : undefined;
  } catch {
    return undefined;
  }
}

/** The code and detail of an error answer, when it has the error shape. */
async function refusalOf(response: Response): Promise<{ code: string; detail: string }> {
  try {
    const body = (await response.json()) as { code?: unknown; detail?: unknown };
    return { code: String(body.code ?? ''), detail: String(body.detail ?? '') };
  } catch {
    return { code: '', detail: `HTTP ${response.status}` };
  }
}

/** A wait the stop cut short: the loop sees the stop and ends, so nothing failed. */
function stopped(): void {}
