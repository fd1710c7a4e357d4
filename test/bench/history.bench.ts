/**
 * The price history endpoint over a long history: the models bench's generated warehouse (90 days
 * by default, in the collector's landing layout), its models built, then one item group's 1h
 * candles over the 90 days (every page) and its 90-day stats, asked over HTTP with a key and gzip,
 * against the same reads run on DuckDB directly in the same process (the endpoint's own queries,
 * without HTTP), alternating. Goal: direct p50 / HTTP p50 ≥ 0.5 and HTTP p99 < 100 ms.
 *
 * BENCH_DAYS (90), BENCH_EVENTS_PER_DAY (20,000), BENCH_GROUPS (2,000), BENCH_REQUESTS (200 of
 * each kind), BENCH_HOT_DAYS (7: the days older are moved to the lake first, as the collector's nightly
 * move leaves them). BENCH_WAREHOUSE=<path> generates and builds the warehouse there and keeps it (with
 * `.json`, its sizes); a later run with the same sizes refreshes its models instead of generating it
 * again.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
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
const KEPT = process.env.BENCH_WAREHOUSE;
const HOT_DAYS = Number(process.env.BENCH_HOT_DAYS ?? 7);
const DAY_MS = 86_400_000;
const KEY = 'bench_history_key_0123456789';

/** The sizes a kept warehouse was generated with, and the end of its data. */
interface KeptPlan {
  days: number;
  eventsPerDay: number;
  groups: number;
  endMs: number;
}

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'market-history-bench-'));
  const kept = KEPT && existsSync(`${KEPT}.json`) ? await readKept(KEPT) : null;
  const endMs = kept?.endMs ?? Math.floor(Date.now() / 60_000) * 60_000 - 600_000;
  const now = () => endMs + 1000;
  const path = KEPT ?? join(dir, 'warehouse.duckdb');
  // A kept warehouse without its sizes was not finished: it starts again.
  if (KEPT && !kept) await rm(KEPT, { force: true });
  const warehouse = await Warehouse.open(path, { clock: now });
  try {
    if (kept) {
      // Models whose SQL changed since are built again in full; the others have nothing new.
      const started = performance.now();
      await warehouse.refreshModels();
      print(`kept warehouse ${path}: models refreshed`, seconds(started));
    } else {
      const plan = planWarehouse({ events: EVENTS_PER_DAY * DAYS, days: DAYS, groups: GROUPS, endMs });
      let started = performance.now();
      await generateWarehouse(warehouse, plan, dir);
      print(`generated ${DAYS} days of ${EVENTS_PER_DAY} events a day, ${GROUPS} groups`, seconds(started));
      started = performance.now();
      await warehouse.refreshModels();
      print('models built', seconds(started));
      if (KEPT) await keep(KEPT, endMs);
    }
    // As the daemon's nightly move leaves it: the hot days in the file, the older ones in the lake.
    const started = performance.now();
    const today = endMs - (endMs % DAY_MS);
    const moved = await warehouse.moveToLake(today - HOT_DAYS * DAY_MS);
    const rows = Object.values(moved.relations).reduce((sum, r) => sum + r.rows, 0);
    const merged = Object.entries(moved.merged).map(
      ([relation, months]) => `${relation} ${months.join(' ')}`,
    );
    print(
      `days before the last ${HOT_DAYS} moved to the lake (${rows} rows), months merged: ${merged.join(', ') || 'none'}`,
      seconds(started),
    );
    // The group with the most runs of unchanged figures: the most rows behind its candles.
    const [busiest] = await warehouse.query(
      `SELECT market_hash_name AS name, wear, doppler_phase AS phase, count(*) AS runs FROM int_minask_spells
       GROUP BY ALL ORDER BY runs DESC LIMIT 1`,
    );
    if (!busiest) throw new Error('the generated warehouse has no cheapest ask');
    print('item group', `${busiest.name} (${busiest.runs} runs of int_minask_spells)`);
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

/** The sizes of the warehouse kept at `path`; an error when they are not this run's. */
async function readKept(path: string): Promise<KeptPlan> {
  const plan = JSON.parse(await readFile(`${path}.json`, 'utf8')) as KeptPlan;
  const sizes = { days: DAYS, eventsPerDay: EVENTS_PER_DAY, groups: GROUPS };
  if (plan.days !== DAYS || plan.eventsPerDay !== EVENTS_PER_DAY || plan.groups !== GROUPS)
    throw new Error(`${path} was generated with ${JSON.stringify(plan)}, not ${JSON.stringify(sizes)}`);
  return plan;
}

/** Writes the sizes beside the kept warehouse, once it is generated and built. */
async function keep(path: string, endMs: number): Promise<void> {
  const plan: KeptPlan = { days: DAYS, eventsPerDay: EVENTS_PER_DAY, groups: GROUPS, endMs };
  await writeFile(`${path}.json`, JSON.stringify(plan));
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
