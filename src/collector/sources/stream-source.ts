/**
 * The stream source: follows GET /listings/stream over undici, parsed by `eventsource-parser`, and
 * lands every event with its id as the progress marker in the same transaction. The reconnect is
 * its own: each connection sends the last landed event id as Last-Event-ID; every failure,
 * including an answer that is not a stream, is followed by a reconnect with backoff and jitter
 * (a refused key stops the source); and a watchdog reads the bytes of the response body
 * (heartbeat comments included) and reconnects a silent connection. On `resync` it reconnects at
 * once without Last-Event-ID and, once connected, catches up on the listings that appeared since
 * the last landed event (see `resync-recovery.ts`).
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import { untilAborted } from '../../client/abortable.js';
import type { MarketClient } from '../../client/index.js';
import { APP_IDS } from '../../contract/common.js';
import type { Listing } from '../../contract/listing.js';
import { Backoff } from '../../shared/jobs/index.js';
import {
  type BatchWriter,
  LISTING_KEYS,
  type StreamEventRow,
  type Warehouse,
} from '../../warehouse/index.js';
import { isKeyRefused, keyRefusedReason } from '../key-refusal.js';
import { PayloadWatch } from '../payload-watch.js';
import { StatusBoard } from '../source-status.js';
import { readEvents } from './event-stream.js';
import { ResyncRecovery } from './resync-recovery.js';

/** Settings of the stream source. */
export interface StreamSourceOptions {
  /** Silence (no byte at all) after which the connection is presumed dead. @default 40_000 (25 s heartbeat + margin) */
  watchdogMs?: number;
  /** Filters passed to the stream (query string without `?`). @default '' */
  query?: string;
  /** Where a new upstream field is reported. */
  log?: Logger;
  /** The upstream's measured clock offset (ms), so the lag compares times on one clock. @default 0 */
  upstreamOffsetMs?: () => number | null;
}

const SOURCE = 'stream';
/** Events queued for the warehouse before the stream stops reading. */
const MAX_BACKLOG_ROWS = 20_000;

/** Follows the listing stream until stopped. */
export class StreamSource {
  readonly board = new StatusBoard(SOURCE);
  private lastEventId = '';
  /** Events received and not yet handed to the writer. */
  private received: StreamEventRow[] = [];
  private readonly stopping = new AbortController();
  private running: Promise<void> | null = null;
  private readonly recovery: ResyncRecovery;
  private readonly watch: PayloadWatch;

  constructor(
    private readonly client: MarketClient,
    private readonly warehouse: Warehouse,
    private readonly writer: BatchWriter,
    private readonly options: StreamSourceOptions = {},
  ) {
    this.board.status.reconnects = 0;
    this.recovery = new ResyncRecovery(client, warehouse, writer, SOURCE, this.board, this.stopping.signal);
    // The stream's catch-ups read pages: their items are counted as `catch_up`, shown here too.
    this.watch = new PayloadWatch(warehouse, this.board, options.log, LISTING_KEYS, [SOURCE, 'catch_up']);
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
      this.board.status.reconnects = (this.board.status.reconnects ?? 0) + 1;
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
  private async follow(): Promise<FollowOutcome> {
    const connection = new AbortController();
    const cut = () => connection.abort();
    this.stopping.signal.addEventListener('abort', cut, { once: true });
    const watchdogMs = this.options.watchdogMs ?? 40_000;
    let lastByteAt = Date.now();
    let silent = false;
    const watchdog = setInterval(
      () => {
        if (Date.now() - lastByteAt <= watchdogMs) return;
        silent = true;
        connection.abort();
      },
      Math.min(1000, watchdogMs / 4),
    );
    const progress = { hadEvents: false };
    try {
      return await this.connect(connection.signal, progress, () => {
        lastByteAt = Date.now();
        this.board.succeeded(lastByteAt);
      });
    } catch (error) {
      if (silent) return { kind: 'watchdog_reconnect', reason: `no byte for ${watchdogMs} ms` };
      if (this.stopping.signal.aborted) return { kind: 'reconnect', reason: 'stopping', ...progress };
      return { kind: 'reconnect', reason: `connection lost: ${messageOf(error)}`, ...progress };
    } finally {
      clearInterval(watchdog);
      this.stopping.signal.removeEventListener('abort', cut);
      connection.abort();
      this.board.status.connected = false;
    }
  }

  /**
   * Opens the stream from the last landed event id and lands its events until it ends or asks for
   * a resync; `touched` is called on every byte read (comments such as heartbeats included).
   */
  private async connect(
    signal: AbortSignal,
    progress: { hadEvents: boolean },
    touched: () => void,
  ): Promise<FollowOutcome> {
    const headers: Record<string, string> = { accept: 'text/event-stream', 'cache-control': 'no-store' };
    if (this.lastEventId) headers['last-event-id'] = this.lastEventId;
    const query = this.options.query ? `?${this.options.query}` : '';
    const fetchStream = this.client.listings.streamFetch();
    const response = await fetchStream(`${this.client.baseUrl}/listings/stream${query}`, { headers, signal });
    if (response.status !== 200 || !response.body || !isEventStream(response)) return refused(response);
    this.board.status.connected = true;
    this.recovery.start();
    let resync: string | null = null;
    const writer = this.writer;
    const ended = await readEvents(response.body, {
      // Backpressure: while the warehouse lags, stop reading; the server holds or drops us and we resume.
      async onChunk() {
        touched();
        if (writer.backlog >= MAX_BACKLOG_ROWS) await untilAborted(writer.room(MAX_BACKLOG_ROWS / 2), signal);
        touched();
      },
      onEvent: (event) => {
        if (event.type === 'resync') {
          resync = event.data;
          return true;
        }
        if (event.type === 'new' || event.type === 'gone') {
          progress.hadEvents = true;
          this.onEvent(event.type, event.lastEventId, event.data);
        }
        return false;
      },
    });
    if (ended === 'stopped' && resync !== null) return { kind: 'resync', detail: resync };
    return { kind: 'reconnect', reason: 'the stream ended', ...progress };
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
      // Both times on the upstream's clock: the receipt moved by its measured offset.
      this.board.status.lagSeconds = Math.max(
        0,
        (last.receivedAt + (this.options.upstreamOffsetMs?.() ?? 0) - Date.parse(listedAt)) / 1000,
      );
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

/** True when the answer is an event stream (what an EventSource requires before it opens). */
function isEventStream(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
}

/**
 * The outcome of an answer that did not open the stream: a refused key stops the source; a ban,
 * an allowlist refusal or any other answer ends by itself, so it reconnects with backoff.
 */
async function refused(response: Response): Promise<FollowOutcome> {
  const status = response.status;
  if (status !== 401 && status !== 403) {
    await response.body?.cancel().catch(() => undefined);
    return { kind: 'reconnect', reason: `the stream answered ${status}`, hadEvents: false };
  }
  const refusal = await refusalOf(response);
  if (isKeyRefused(refusal.code))
    return { kind: 'terminal', reason: keyRefusedReason(refusal.code, refusal.detail) };
  return { kind: 'reconnect', reason: `the stream answered ${status} ${refusal.code}`, hadEvents: false };
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

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A wait the stop cut short: the loop sees the stop and ends, so nothing failed. */
function stopped(): void {}
