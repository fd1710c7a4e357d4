/**
 * Warehouse growth against market changes: the real service (in this process) with BENCH_LISTINGS
 * (20,000) listings churning at BENCH_CHURN (10) changes a second, and the built `market collect`
 * (`npm run build` first) against it on its default schedules. After BENCH_WARMUP_SECONDS (180),
 * over BENCH_WINDOW_SECONDS (300): the bytes the warehouse gained over the bytes of the stream
 * events this bench's own SSE connection received (every line of each event frame, heartbeats left
 * out). Goal: at most 3x. The warehouse is measured checkpointed at both ends of the window: the
 * collector is stopped (its clean close checkpoints the write-ahead log into the file), the file's
 * used blocks and each table's rows are read, and (at the start) the collector starts again on the
 * same file. Without that, the figure swung by up to the 64 MB log with when DuckDB last checkpointed.
 * Then, per table, the compact bytes its window rows cost (table-bytes.ts), against which the
 * file's figure shows what DuckDB's storage adds (partly filled blocks, metadata).
 * BENCH_KEEP_WAREHOUSE, a path: the warehouse is copied there at the end (e.g. to compare models),
 * and as it was at the window's start to `<path>.before`.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, statSync } from 'node:fs';
import { copyFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Database } from '../../src/shared/database.js';
import { findSqlDir } from '../../src/shared/project-root.js';
import { hotTableOf, lakeRelationsOf } from '../../src/warehouse/lake/relations.js';
import { readLakeLines } from '../../src/warehouse/models/index.js';
import { print } from './fixtures.js';
import { envWords, spawnBuiltMarket, startBenchService } from './service-process.js';
import { compactTableBytes, parquetTableBytes } from './table-bytes.js';

const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 20_000);
const CHURN = Number(process.env.BENCH_CHURN ?? 10);
const WARMUP_MS = Number(process.env.BENCH_WARMUP_SECONDS ?? 180) * 1000;
const WINDOW_MS = Number(process.env.BENCH_WINDOW_SECONDS ?? 300) * 1000;
const KEEP = process.env.BENCH_KEEP_WAREHOUSE;
const CS2 = 730;

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  const { dir, service } = await startBenchService('growth', LISTINGS, CHURN);
  const warehousePath = join(dir, 'warehouse.duckdb');
  const streamStop = new AbortController();
  let collector: ChildProcess | undefined;
  try {
    const { rawKey } = await service.context.accounts.createAccount({ appIds: [CS2], balanceCents: 100 });
    const stream = countStreamBytes(`${service.baseUrl}/listings/stream`, rawKey, streamStop.signal);
    await fetch(`${service.origin}/sandbox/simulator`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ paused: false, rate_per_second: CHURN }),
    });
    const collect = () =>
      spawnBuiltMarket([
        'collect',
        ...['--base-url', service.baseUrl, '--api-key', rawKey, '--warehouse', warehousePath],
        ...['--status-seconds', '0', '--log-level', 'error'],
        ...envWords('BENCH_COLLECTOR_FLAGS'),
      ]);
    collector = collect();
    await new Promise((r) => setTimeout(r, WARMUP_MS));
    await stopCollector(collector);
    const streamBefore = stream.bytes();
    const before = await measureWarehouse(warehousePath);
    const start = join(dir, 'window-start.duckdb');
    await copyFile(warehousePath, start);
    if (KEEP) await copyFile(warehousePath, `${KEEP}.before`);
    collector = collect();
    await new Promise((r) => setTimeout(r, WINDOW_MS));
    await stopCollector(collector);
    const events = stream.bytes() - streamBefore;
    const after = await measureWarehouse(warehousePath);
    const gained = after.bytes - before.bytes;
    const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
    print(`warehouse gained (used blocks, checkpointed) over ${WINDOW_MS / 1000} s`, mib(gained));
    print('stream event bytes received in the same seconds', mib(events));
    print('warehouse bytes / stream event bytes (goal <= 3)', `${(gained / events).toFixed(1)}x`);
    // Where the rows went: the tables that gained most in the window.
    const gains = [...after.rows].map(
      ([table, rows]) => [table, rows - (before.rows.get(table) ?? 0)] as const,
    );
    for (const [table, rows] of gains.sort((a, b) => b[1] - a[1]).slice(0, 10))
      print(`  rows gained: ${table}`, String(rows));
    await printCompactGains(start, warehousePath, dir, events);
    if (KEEP) await copyFile(warehousePath, KEEP);
  } finally {
    streamStop.abort();
    if (collector) await stopCollector(collector);
    await service.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Per table, the compact bytes gained between the warehouse files `start` and `end`; then what the
 * window costs once the hot window is full and the days move nightly (the default `--lake-cron`):
 * the lake relations' rows as the lake writes them, and the tables that stay in the file.
 */
async function printCompactGains(start: string, end: string, scratch: string, events: number): Promise<void> {
  const gained = async (measure: (path: string) => Promise<Map<string, number>>) => {
    const [before, after] = [await measure(start), await measure(end)];
    return [...after].map(([table, bytes]) => [table, bytes - (before.get(table) ?? 0)] as const);
  };
  const sum = (rows: readonly (readonly [string, number])[]) =>
    rows.reduce((total, [, bytes]) => total + bytes, 0);
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
  const compact = await gained((path) => compactTableBytes(path, scratch));
  print('compact bytes gained, every table copied alone (16 KiB blocks)', kib(sum(compact)));
  print('compact bytes / stream event bytes', `${(sum(compact) / events).toFixed(1)}x`);
  for (const [table, bytes] of [...compact].sort((a, b) => b[1] - a[1]).slice(0, 10))
    print(`  compact bytes gained: ${table}`, kib(bytes));
  // The tables holding the lake relations' rows: a landing table's are in its __hot table.
  const moved = new Set(
    lakeRelationsOf(readLakeLines(findSqlDir('models'))).map((r) =>
      r.kind === 'raw' ? hotTableOf(r.name) : r.name,
    ),
  );
  const lake = await gained((path) => parquetTableBytes(path, scratch, [...moved]));
  const staying = compact.filter(([table]) => !moved.has(table));
  const steady = sum(lake) + sum(staying);
  print("with nightly moves: the lake relations' rows as parquet (zstd)", kib(sum(lake)));
  print('  and the tables that stay in the file (compact)', kib(sum(staying)));
  print('with nightly moves: bytes / stream event bytes (goal <= 3)', `${(steady / events).toFixed(1)}x`);
}

/** Stops the collector and waits for it to exit: its clean close checkpoints the warehouse. */
async function stopCollector(collector: ChildProcess): Promise<void> {
  if (collector.exitCode !== null || collector.signalCode !== null) return;
  const exited = once(collector, 'exit');
  collector.kill('SIGTERM');
  await exited;
}

/**
 * The stopped collector's warehouse: its used blocks (plus any write-ahead log left, none after a
 * clean close) and each table's exact row count (DuckDB's estimate counts deleted rows too).
 */
async function measureWarehouse(path: string): Promise<{ bytes: number; rows: Map<string, number> }> {
  const db = await Database.open(path, { readOnly: true });
  try {
    const [size] = await db.read<{ used: bigint }>(
      'SELECT block_size * used_blocks AS used FROM pragma_database_size()',
    );
    const tables = await db.read<{ name: string }>(
      "SELECT table_name AS name FROM duckdb_tables() WHERE schema_name = 'main' AND NOT temporary",
    );
    const rows = new Map<string, number>();
    for (const { name } of tables) {
      const [count] = await db.read<{ n: bigint }>(`SELECT count(*) AS n FROM "${name}"`);
      rows.set(name, Number(count?.n ?? 0));
    }
    const wal = `${path}.wal`;
    return { bytes: Number(size?.used ?? 0) + (existsSync(wal) ? statSync(wal).size : 0), rows };
  } finally {
    await db.close();
  }
}

/** Follows the stream at `url` and counts the bytes of its event lines (not its comments). */
function countStreamBytes(url: string, key: string, signal: AbortSignal): { bytes: () => number } {
  let bytes = 0;
  const follow = async () => {
    const response = await fetch(url, { headers: { authorization: `Bearer ${key}` }, signal });
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) if (!line.startsWith(':')) bytes += Buffer.byteLength(line) + 1;
    }
  };
  follow().catch(() => {
    // aborted at the end: the count stands
  });
  return { bytes: () => bytes };
}
