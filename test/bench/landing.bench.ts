/**
 * The warehouse's share of the ingest: the same events the `ingest` benchmark replays, handed to
 * `Warehouse.write` in this process as the stream source hands them over (data as bytes), in writes
 * of BENCH_WRITE_ROWS (default 20,000, the collector's largest write), with no service, stream or
 * HTTP around them; BENCH_CHECKPOINT sets the warehouse's checkpoint threshold (e.g. `10GB` for
 * none while it lands); BENCH_APPLY_ROWS applies the landed loads (`Warehouse.applyLanded`: the live
 * set's state, the payload counts) once that many rows landed, as the collector's batch writer does
 * in a burst (default 100,000, as the batch writer's `refreshRows`; 0 for never). The baseline, in the same run, is DuckDB's own
 * `read_json` of the events. Also where the time goes, statement by statement, and what DuckDB's
 * own accounting holds after each write and each apply (`duckdb_memory()` by tag, the write-ahead log).
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { type StreamEventRow, Warehouse } from '../../src/warehouse/index.js';
import { copyOfEventLog, readJsonBaseline } from './event-log.js';
import { print } from './fixtures.js';

const WRITE_ROWS = Number(process.env.BENCH_WRITE_ROWS ?? 20_000);
const CHECKPOINT = process.env.BENCH_CHECKPOINT;
const APPLY_ROWS = Number(process.env.BENCH_APPLY_ROWS ?? 100_000);

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'market-landing-bench-'));
  try {
    const instance = await DuckDBInstance.create(await copyOfEventLog(dir));
    const connection = await instance.connect();
    const baselineMs = await readJsonBaseline((sql) => connection.run(sql), dir);
    const writes = await streamWrites(connection);
    connection.closeSync();
    instance.closeSync();
    const count = writes.reduce((sum, w) => sum + w.length, 0);
    const warehouse = await Warehouse.open(
      join(dir, 'warehouse.duckdb'),
      CHECKPOINT ? { checkpointThreshold: CHECKPOINT } : {},
    );
    const memory = await probeMemory(warehouse, join(dir, 'warehouse.duckdb'));
    const statements = timeStatements();
    let landingMs = 0;
    let applyMs = 0;
    let unapplied = 0;
    try {
      for (const [i, events] of writes.entries()) {
        const started = performance.now();
        await warehouse.write([
          { source: 'stream', events, state: { last_event_id: String(events.at(-1)?.eventId) } },
        ]);
        unapplied += events.length;
        landingMs += performance.now() - started;
        await memory.sample('write');
        if (APPLY_ROWS > 0 && (unapplied >= APPLY_ROWS || i === writes.length - 1)) {
          const landed = performance.now();
          statements.phase = 'apply: ';
          await warehouse.applyLanded();
          statements.phase = '';
          unapplied = 0;
          applyMs += performance.now() - landed;
          landingMs += performance.now() - landed;
          await memory.sample('apply');
        }
      }
    } finally {
      statements.stop();
      await warehouse.close();
    }
    print(`DuckDB read_json of ${count} events from NDJSON`, `${(baselineMs / 1000).toFixed(1)} s`);
    print(
      `Warehouse.write of the same events, ${WRITE_ROWS} per write${CHECKPOINT ? `, checkpoints at ${CHECKPOINT}` : ''}`,
      `${(landingMs / 1000).toFixed(1)} s (${Math.round(count / (landingMs / 1000)).toLocaleString('en')} events/s)`,
    );
    print(
      `of which applying the landed loads${APPLY_ROWS > 0 ? ` every ${APPLY_ROWS} rows` : ' (never)'}`,
      `${(applyMs / 1000).toFixed(1)} s`,
    );
    print('ratio, read_json / landing', (baselineMs / landingMs).toFixed(2));
    for (const [statement, ms] of statements.slowest(14)) {
      print(`  ${statement}`, `${(ms / 1000).toFixed(2)} s (${((100 * ms) / landingMs).toFixed(0)} %)`);
    }
    for (const line of memory.peaks()) print(...line);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The CS2 events of the log as the stream source hands them over, in writes of WRITE_ROWS. */
async function streamWrites(connection: DuckDBConnection): Promise<StreamEventRow[][]> {
  const reader = await connection.runAndReadAll(
    `SELECT position, kind, listing_id, listing FROM listing_events WHERE app_id = 730 ORDER BY position`,
  );
  const receivedAt = Date.now();
  const events: StreamEventRow[] = reader.getRowObjectsJS().map((row) => ({
    eventId: `benchlog-${row.position}`,
    kind: row.kind as 'new' | 'gone',
    appId: 730,
    receivedAt,
    data: Buffer.from(row.kind === 'new' ? String(row.listing) : JSON.stringify({ id: row.listing_id })),
  }));
  const writes: StreamEventRow[][] = [];
  for (let start = 0; start < events.length; start += WRITE_ROWS)
    writes.push(events.slice(start, start + WRITE_ROWS));
  return writes;
}

/**
 * Reads `duckdb_memory()` by tag and the write-ahead log's size after a write or an apply, keeping
 * the largest of each; the caller leaves its time out of the figures.
 */
async function probeMemory(warehouse: Warehouse, file: string) {
  const largest = new Map<string, { mib: number; tags: string; wal: number }>();
  const probe = {
    async sample(after: 'write' | 'apply') {
      const [row] = await warehouse.query(
        `SELECT sum(memory_usage_bytes) / 2 ** 20 AS mib,
           string_agg(lower(tag) || ' ' || (memory_usage_bytes >> 20), ', ' ORDER BY memory_usage_bytes DESC)
             FILTER (WHERE memory_usage_bytes >= 2 ** 20) AS tags
         FROM duckdb_memory()`,
      );
      const wal = await stat(`${file}.wal`).then(
        (s) => s.size / 2 ** 20,
        () => 0,
      );
      const mib = Number(row?.mib ?? 0);
      if (mib >= (largest.get(after)?.mib ?? -1))
        largest.set(after, { mib, tags: String(row?.tags ?? ''), wal });
    },
    peaks: (): [string, string][] =>
      [...largest].map(([after, { mib, tags, wal }]) => [
        `DuckDB's accounted memory at its largest after ${after === 'apply' ? 'an apply' : 'a write'} (by tag, MiB)`,
        `${mib.toFixed(0)} MiB (${tags}; write-ahead log ${wal.toFixed(0)} MiB)`,
      ]),
  };
  return probe;
}

/**
 * Adds up the time of every statement run through `DuckDBConnection.run` from now until `stop`,
 * keyed by the statement's first words (COMMIT included: its checkpoints are timed with it).
 */
function timeStatements() {
  const totals = new Map<string, number>();
  const original = DuckDBConnection.prototype.run;
  const timer = {
    /** Put before each statement's key: tells the statements of applying the loads from the write's. */
    phase: '',
    stop: () => {
      DuckDBConnection.prototype.run = original;
    },
    slowest: (n: number) => [...totals].sort((a, b) => b[1] - a[1]).slice(0, n),
  };
  DuckDBConnection.prototype.run = async function timed(this: DuckDBConnection, ...args) {
    const started = performance.now();
    try {
      return await original.apply(this, args);
    } finally {
      const key = timer.phase + args[0].replace(/\s+/g, ' ').trim().slice(0, 60);
      totals.set(key, (totals.get(key) ?? 0) + performance.now() - started);
    }
  } as typeof original;
  return timer;
}
