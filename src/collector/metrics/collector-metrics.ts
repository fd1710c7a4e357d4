/**
 * The collector's Prometheus instruments (prom-client), on a registry of its own: per source what
 * landed from the upstream, the requests and their answers, the stream's lag and reconnects, the
 * last success and the freshness against its thresholds; what the daemon's own work made (model
 * rows, exported rows, charts) and how long it took; the warehouse's bytes and DuckDB's memory; and
 * the process' default metrics. The figures the sources already keep on their status boards are
 * read from them at each scrape, so nothing is counted twice.
 */

import { Counter, Gauge, Histogram } from 'prom-client';
import { fileBytes } from '../../shared/file-bytes.js';
import { registryWithProcessMetrics } from '../../shared/prometheus-registry.js';
import { FRESHNESS_STATES } from '../freshness.js';
import type { SourceStatus } from '../source-status.js';
import type { UpstreamClock } from '../upstream-clock.js';
import type { AnswerTiming, RequestObserver } from './request-meter.js';

const PREFIX = 'market_collector_';

/** Durations of warehouse work: a refresh of a small warehouse takes a second, a report a minute. */
const WORK_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** A counter per source read from the boards at each scrape. */
type BoardCount = (s: SourceStatus) => number | undefined;

/**
 * The boards of the daemon's own work, whose `landed` counts what the work made, not what came
 * from the upstream: each has a counter of its own name, and none counts as a payload.
 */
const WORK_COUNTERS: Record<string, { name: string; help: string }> = {
  models: { name: 'model_rows_built_total', help: 'Rows of the SQL models built by refreshes' },
  export: { name: 'export_rows_total', help: 'Rows written to parquet exports' },
  report: { name: 'report_charts_total', help: 'Charts drawn into market reports' },
};

/** The figure of an upstream source only (none for the boards of {@link WORK_COUNTERS}). */
const fromUpstream =
  (figure: BoardCount): BoardCount =>
  (s) =>
    s.name in WORK_COUNTERS ? undefined : figure(s);

/** The collector's registry and the instruments the daemon feeds. */
export class CollectorMetrics implements RequestObserver {
  readonly registry = registryWithProcessMetrics();
  private readonly requests: Counter<'source' | 'status'>;
  private readonly rateLimited: Counter<'source'>;
  private readonly retries: Counter<'source'>;
  private readonly bytes: Counter<'source'>;
  private readonly work: Record<'models' | 'export' | 'report', Histogram>;

  constructor(
    /** The boards of every source, with their freshness. */
    private readonly status: () => SourceStatus[],
    /** The warehouse file, whose bytes (with its WAL) are reported. */
    warehousePath: string,
    /** The upstream's clock as measured. */
    upstream?: UpstreamClock,
    /** Bytes DuckDB's buffer manager holds for the warehouse (`duckdb_memory()`). */
    duckdbMemory?: () => Promise<number>,
  ) {
    const registers = [this.registry];
    this.requests = new Counter({
      name: `${PREFIX}requests_total`,
      help: 'Requests to the API by source and answer status (error: no answer)',
      labelNames: ['source', 'status'],
      registers,
    });
    this.rateLimited = new Counter({
      name: `${PREFIX}rate_limited_total`,
      help: 'Answers 429 Too Many Requests by source',
      labelNames: ['source'],
      registers,
    });
    this.retries = new Counter({
      name: `${PREFIX}retries_total`,
      help: 'Requests sent again after a transient failure, by source',
      labelNames: ['source'],
      registers,
    });
    this.bytes = new Counter({
      name: `${PREFIX}received_bytes_total`,
      help: 'Bytes of the API answers received (the payloads landed) by source',
      labelNames: ['source'],
      registers,
    });
    this.work = {
      models: this.histogram('model_refresh', 'SQL model refreshes'),
      export: this.histogram('export', 'parquet exports'),
      report: this.histogram('report', 'market reports'),
    };
    this.boardCounter(
      'payloads_landed_total',
      'Rows landed in the warehouse from the upstream, by source',
      fromUpstream((s) => s.landed),
    );
    this.boardCounter(
      'payloads_received_total',
      'Events or rows received from the upstream, by source',
      fromUpstream((s) => s.received),
    );
    for (const [board, { name, help }] of Object.entries(WORK_COUNTERS)) this.workCounter(board, name, help);
    this.boardCounter(
      'payloads_rejected_total',
      'Payloads landed that could not be typed',
      (s) => s.rejected,
    );
    this.boardCounter(
      'payloads_partly_typed_total',
      'Payloads landed typed with a note',
      (s) => s.partlyTyped,
    );
    this.boardCounter('failures_total', 'Failed runs (or lost connections) by source', (s) => s.failures);
    this.boardCounter(
      'stream_reconnects_total',
      'Connections of the stream opened again',
      (s) => s.reconnects,
    );
    this.boardGauge('source_up', 'Whether the source runs (and the stream is connected), 1 or 0', (s) =>
      s.stopped === null && s.connected ? 1 : 0,
    );
    this.boardGauge(
      'stream_lag_seconds',
      'Age of the last listing received on the stream',
      (s) => s.lagSeconds ?? undefined,
    );
    this.boardGauge('last_success_timestamp_seconds', 'When the source last succeeded (Unix time)', (s) =>
      s.lastSuccessAt ? Date.parse(s.lastSuccessAt) / 1000 : undefined,
    );
    this.boardGauge(
      'freshness_age_seconds',
      'Seconds since the last success',
      (s) => s.freshness?.ageSeconds,
    );
    this.boardGauge(
      'freshness_warn_seconds',
      'Age past which the source is in warn',
      (s) => s.freshness?.warnSeconds,
    );
    this.boardGauge(
      'freshness_error_seconds',
      'Age past which the source is in error',
      (s) => s.freshness?.errorSeconds,
    );
    this.freshnessStates();
    new Gauge({
      name: `${PREFIX}upstream_clock_offset_seconds`,
      help: "The upstream's clock minus the collector's, measured from its Date headers",
      registers,
      collect() {
        const offset = upstream?.offsetMs() ?? null;
        if (offset !== null) this.set(offset / 1000);
      },
    });
    new Gauge({
      name: `${PREFIX}warehouse_bytes`,
      help: 'Bytes of the warehouse file and its write-ahead log',
      registers,
      collect() {
        this.set(fileBytes(warehousePath) + fileBytes(`${warehousePath}.wal`));
      },
    });
    // The heap and RSS are the default metrics' nodejs_heap_size_used_bytes and
    // process_resident_memory_bytes; DuckDB's share of the RSS is only known by asking it.
    new Gauge({
      name: `${PREFIX}duckdb_memory_bytes`,
      help: "Bytes DuckDB's buffer manager holds for the warehouse (duckdb_memory()); its allocations outside the pool show only in the RSS",
      registers,
      async collect() {
        if (duckdbMemory) this.set(await duckdbMemory());
      },
    });
  }

  answered(source: string, status: number, _timing: AnswerTiming): void {
    this.requests.inc({ source, status: String(status) });
    if (status === 429) this.rateLimited.inc({ source });
  }

  failed(source: string): void {
    this.requests.inc({ source, status: 'error' });
  }

  received(source: string, bytes: number): void {
    this.bytes.inc({ source }, bytes);
  }

  /** A request of `source` is sent again after a transient failure. */
  retried(source: string): void {
    this.retries.inc({ source });
  }

  /** A model refresh, export or report took `durationMs`. */
  workDone(kind: 'models' | 'export' | 'report', durationMs: number): void {
    this.work[kind].observe(durationMs / 1000);
  }

  /** The exposition in Prometheus' text format, and its content type. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  private histogram(name: string, what: string): Histogram {
    return new Histogram({
      name: `${PREFIX}${name}_duration_seconds`,
      help: `Durations of ${what}`,
      buckets: WORK_BUCKETS,
      registers: [this.registry],
    });
  }

  private boardCounter(name: string, help: string, count: BoardCount): void {
    const status = this.status;
    new Counter({
      name: `${PREFIX}${name}`,
      help,
      labelNames: ['source'],
      registers: [this.registry],
      collect() {
        this.reset();
        eachSource(status(), count, (source, value) => this.inc({ source }, value));
      },
    });
  }

  /** A counter without labels: the `landed` of the work board `board`, when the daemon has one. */
  private workCounter(board: string, name: string, help: string): void {
    const status = this.status;
    new Counter({
      name: `${PREFIX}${name}`,
      help,
      registers: [this.registry],
      collect() {
        this.reset();
        const done = status().find((s) => s.name === board);
        if (done) this.inc(done.landed);
      },
    });
  }

  private boardGauge(name: string, help: string, value: BoardCount): void {
    const status = this.status;
    new Gauge({
      name: `${PREFIX}${name}`,
      help,
      labelNames: ['source'],
      registers: [this.registry],
      collect() {
        this.reset();
        eachSource(status(), value, (source, v) => this.set({ source }, v));
      },
    });
  }

  /** One series per source and state, 1 for the state it is in (Prometheus' enum idiom). */
  private freshnessStates(): void {
    const status = this.status;
    new Gauge({
      name: `${PREFIX}freshness_state`,
      help: 'The freshness state of the source: 1 for the one it is in (ok, warn, error)',
      labelNames: ['source', 'state'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const s of status()) {
          const current = s.freshness?.state;
          if (current === undefined) continue;
          for (const state of FRESHNESS_STATES)
            this.set({ source: s.name, state }, state === current ? 1 : 0);
        }
      },
    });
  }
}

/** Puts each source's figure, where it has one, under the source's label (a scrape's read of the board). */
function eachSource(
  sources: SourceStatus[],
  figure: BoardCount,
  put: (source: string, value: number) => void,
): void {
  for (const s of sources) {
    const value = figure(s);
    if (value !== undefined) put(s.name, value);
  }
}
