/**
 * The price history endpoint over a long history: the models bench's generated warehouse (90 days
 * by default, in the collector's landing layout), its models built, then one item group's 1h
 * candles over the 90 days (every page) and its 90-day stats, asked over HTTP with a key and gzip,
 * against the same reads run on DuckDB directly in the same process (the endpoint's own queries,
 * without HTTP), alternating. Goal: direct p50 / HTTP p50 ≥ 0.5 and HTTP p99 < 100 ms.
 *
 * BENCH_DAYS (90), BENCH_EVENTS_PER_DAY (20,000), BENCH_GROUPS (2,000), BENCH_REQUESTS (200 of
 * each kind).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCandles } from '../../src/collector/history/candles.js';
import { HistoryReader } from '../../src/collector/history/history-reader.js';
import { digestKey } from '../../src/collector/history/keys-file.js';
import { startHistoryServer } from '../../src/collector/history/server.js';
import { readStats } from '../../src/collector/history/stats.js';
import { candlesQuerySchema, statsQuerySchema } from '../../src/contract/history.js';
import { Warehouse } from '../../src/warehouse/index.js';
import { percentile, print } from './fixtures.js';
import { generateWarehouse, planWarehouse } from './warehouse-generator.js';

const DAYS = Number(process.env.BENCH_DAYS ?? 90);
const EVENTS_PER_DAY = Number(process.env.BENCH_EVENTS_PER_DAY ?? 20_000);
const GROUPS = Number(process.env.BENCH_GROUPS ?? 2000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const KEY = 'bench_history_key_0123456789';

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'market-history-bench-'));
  const endMs = Math.floor(Date.now() / 60_000) * 60_000 - 600_000;
  const now = () => endMs + 1000;
  const warehouse = await Warehouse.open(join(dir, 'warehouse.duckdb'), { clock: now });
  try {
    const plan = planWarehouse({ events: EVENTS_PER_DAY * DAYS, days: DAYS, groups: GROUPS, endMs });
    let started = performance.now();
    await generateWarehouse(warehouse, plan, dir);
    print(`generated ${DAYS} days of ${EVENTS_PER_DAY} events a day, ${GROUPS} groups`, seconds(started));
    started = performance.now();
    await warehouse.refreshModels();
    print('models built', seconds(started));
    const [busiest] = await warehouse.query(
      `SELECT market_hash_name AS name, wear, doppler_phase AS phase, count(*) AS rows FROM fct_minask_history
       GROUP BY ALL ORDER BY rows DESC LIMIT 1`,
    );
    if (!busiest) throw new Error('the generated warehouse has no cheapest ask');
    print('item group', `${busiest.name} (${busiest.rows} rows of fct_minask_history)`);
    const group: Record<string, string> = { market_hash_name: String(busiest.name) };
    if (busiest.wear) group.wear = String(busiest.wear);
    if (busiest.phase) group.phase = String(busiest.phase);
    const from = new Date(Math.floor((endMs - DAYS * 86_400_000) / 3_600_000) * 3_600_000).toISOString();
    const to = new Date(Math.ceil(endMs / 3_600_000) * 3_600_000).toISOString();
    const candlesQuery = { ...group, interval: '1h', from, to };
    const statsQuery = { ...group, window: '90d' };
    const server = await startHistoryServer(warehouse, {
      port: 0,
      keys: new Set([digestKey(KEY)]),
      ratePerMinute: 1_000_000_000,
      now,
    });
    const reader = new HistoryReader(warehouse);
    try {
      const base = `http://127.0.0.1:${server.port}/v1/history`;
      const overHttp = {
        candles: () => httpPages(`${base}/candles`, candlesQuery),
        stats: () => httpPages(`${base}/stats`, statsQuery),
      };
      const direct = {
        candles: () => directCandles(reader, candlesQuery, now()),
        stats: async () => [await readStats(reader, statsQuerySchema.parse(statsQuery), now())],
      };
      for (const kind of ['candles', 'stats'] as const) {
        // Both answer the same figures.
        const [a, b] = [await overHttp[kind](), await direct[kind]()];
        if (JSON.stringify(a) !== JSON.stringify(b))
          throw new Error(`${kind}: HTTP and direct answers differ`);
        const http: number[] = [];
        const db: number[] = [];
        for (let i = 0; i < REQUESTS; i++) {
          http.push(await timed(overHttp[kind]));
          db.push(await timed(direct[kind]));
        }
        const ratio = percentile(db, 50) / percentile(http, 50);
        print(
          `${kind}: HTTP p50 / p99 vs DuckDB directly p50 / p99 (${REQUESTS} each)`,
          `${ms(percentile(http, 50))} / ${ms(percentile(http, 99))} vs ${ms(percentile(db, 50))} / ${ms(percentile(db, 99))}`,
        );
        print(`${kind}: ratio (direct p50 / HTTP p50; goal ≥ 0.5, HTTP p99 < 100 ms)`, ratio.toFixed(2));
      }
    } finally {
      await reader.stop();
      await server.close();
    }
  } finally {
    await warehouse.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Every page of an HTTP read, gzip asked for and undone, each answer parsed. */
async function httpPages(url: string, query: Record<string, string>): Promise<unknown[]> {
  const pages: unknown[] = [];
  let cursor: string | null = null;
  do {
    const params = new URLSearchParams({ ...query, ...(cursor ? { cursor } : {}) });
    const response = await fetch(`${url}?${params}`, {
      headers: { authorization: `Bearer ${KEY}`, 'accept-encoding': 'gzip' },
    });
    if (response.status !== 200) throw new Error(`${url}: ${response.status} ${await response.text()}`);
    const page = (await response.json()) as { next_cursor?: string | null };
    pages.push(page);
    cursor = page.next_cursor ?? null;
  } while (cursor);
  return pages;
}

/** Every page of the candles, read by the endpoint's own queries without HTTP. */
async function directCandles(
  reader: HistoryReader,
  query: Record<string, string>,
  now: number,
): Promise<unknown[]> {
  const pages: unknown[] = [];
  let cursor: string | undefined;
  do {
    const parsed = candlesQuerySchema.parse({ ...query, ...(cursor ? { cursor } : {}) });
    const { answer } = await readCandles(reader, parsed, now);
    pages.push(answer);
    cursor = answer.next_cursor ?? undefined;
  } while (cursor);
  return pages;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

function ms(value: number): string {
  return `${value.toFixed(1)} ms`;
}

function seconds(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}
