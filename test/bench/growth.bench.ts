/**
 * Warehouse growth against market changes: the real service (in this process) with BENCH_LISTINGS
 * (20,000) listings churning at BENCH_CHURN (10) changes a second, and the built `market collect`
 * (`npm run build` first) against it on its default schedules. After BENCH_WARMUP_SECONDS (180),
 * over BENCH_WINDOW_SECONDS (300): the bytes the warehouse gained (DuckDB's used blocks plus the
 * write-ahead log) over the bytes of the stream events this bench's own SSE connection received
 * (every line of each event frame, heartbeats left out). Goal: at most 3x.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { askCollector } from '../helpers/cli.js';
import { print } from './fixtures.js';
import { envWords, spawnBuiltMarket, startBenchService } from './service-process.js';

const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 20_000);
const CHURN = Number(process.env.BENCH_CHURN ?? 10);
const WARMUP_MS = Number(process.env.BENCH_WARMUP_SECONDS ?? 180) * 1000;
const WINDOW_MS = Number(process.env.BENCH_WINDOW_SECONDS ?? 300) * 1000;
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
    collector = spawnBuiltMarket([
      'collect',
      ...['--base-url', service.baseUrl, '--api-key', rawKey, '--warehouse', warehousePath],
      ...['--status-seconds', '0', '--log-level', 'error'],
      ...envWords('BENCH_COLLECTOR_FLAGS'),
    ]);
    await new Promise((r) => setTimeout(r, WARMUP_MS));
    const before = { warehouse: await warehouseBytes(warehousePath), stream: stream.bytes() };
    const rowsBefore = await tableRows(warehousePath);
    await new Promise((r) => setTimeout(r, WINDOW_MS));
    const after = { warehouse: await warehouseBytes(warehousePath), stream: stream.bytes() };
    const rowsAfter = await tableRows(warehousePath);
    const gained = after.warehouse - before.warehouse;
    const events = after.stream - before.stream;
    const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
    print(`warehouse gained (used blocks + WAL) over ${WINDOW_MS / 1000} s`, mib(gained));
    print('stream event bytes received in the same seconds', mib(events));
    print('warehouse bytes / stream event bytes (goal <= 3)', `${(gained / events).toFixed(1)}x`);
    // Where the rows went: the tables that gained most in the window.
    const gains = [...rowsAfter].map(
      ([table, rows]) => [table, rows - (rowsBefore.get(table) ?? 0)] as const,
    );
    for (const [table, rows] of gains.sort((a, b) => b[1] - a[1]).slice(0, 8))
      print(`  rows gained: ${table}`, String(rows));
  } finally {
    streamStop.abort();
    if (collector && collector.exitCode === null && collector.signalCode === null) {
      collector.kill('SIGTERM');
      await once(collector, 'exit');
    }
    await service.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The warehouse's used blocks (asked of the collector holding it) plus its write-ahead log's size. */
async function warehouseBytes(path: string): Promise<number> {
  const [size] = await askCollector(
    path,
    'SELECT block_size * used_blocks AS used FROM pragma_database_size()',
  );
  if (size === undefined) throw new Error('the collector did not answer');
  const wal = `${path}.wal`;
  return Number(size.used) + (existsSync(wal) ? statSync(wal).size : 0);
}

/** Each table's row count (DuckDB's estimate), asked of the collector. */
async function tableRows(path: string): Promise<Map<string, number>> {
  const rows = await askCollector(path, 'SELECT table_name AS t, estimated_size AS n FROM duckdb_tables()');
  return new Map(rows.map((r) => [String(r.t), Number(r.n)]));
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
