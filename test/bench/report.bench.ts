/**
 * Building the market report over the models benchmark's warehouse at 1,000,000 listing events:
 * the whole build (queries, Vega-Lite compilation, SVG rendering, HTML, atomic writes) against a
 * baseline measured in the same run, the same queries alone (what the report reads from the models).
 * Goal: the whole build under 5 s.
 *
 * BENCH_EVENTS (default 1,000,000), BENCH_DAYS (3), BENCH_GROUPS (2,000), BENCH_ROUNDS (3),
 * BENCH_WINDOW (7d); the warehouse's memory limit is its own default (MARKET_WAREHOUSE_MEMORY sets another).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildReport, Warehouse } from '../../src/warehouse/index.js';
import { readReport } from '../../src/warehouse/report/read-report.js';
import { reportWindow } from '../../src/warehouse/report/report-window.js';
import { percentile, print } from './fixtures.js';
import { generateWarehouse, planWarehouse } from './warehouse-generator.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const DAYS = Number(process.env.BENCH_DAYS ?? 3);
const GROUPS = Number(process.env.BENCH_GROUPS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WINDOW = process.env.BENCH_WINDOW ?? '7d';
const MEMORY = process.env.MARKET_WAREHOUSE_MEMORY;
const MINUTE_MS = 60_000;
const ITEMS = 8;

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'market-report-bench-'));
  const endMs = Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS - 10 * MINUTE_MS;
  try {
    const warehouse = await Warehouse.open(join(dir, 'warehouse.duckdb'), {
      clock: () => endMs + 1000,
      ...(MEMORY ? { memoryLimit: MEMORY } : {}),
    });
    try {
      let started = performance.now();
      const plan = planWarehouse({ events: EVENTS, days: DAYS, groups: GROUPS, endMs });
      const counts = await generateWarehouse(warehouse, plan, dir);
      print(
        `generated ${DAYS} days, ${GROUPS} groups, ${counts.raw_listing_events?.toLocaleString('en')} events`,
        seconds(performance.now() - started),
      );
      started = performance.now();
      await warehouse.refreshModels();
      print('built the models', seconds(performance.now() - started));
      const queries: number[] = [];
      const builds: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        started = performance.now();
        await readReport(warehouse, { window: reportWindow(WINDOW, warehouse.clock()), items: ITEMS });
        queries.push(performance.now() - started);
        const summary = await buildReport(warehouse, {
          out: join(dir, 'reports'),
          window: WINDOW,
          items: ITEMS,
        });
        builds.push(summary.durationMs);
        print(
          `round ${r + 1}: queries alone vs the whole report (${summary.svgs.length} charts drawn)`,
          `${seconds(queries[r] ?? 0)} vs ${seconds(builds[r] ?? 0)}`,
        );
      }
      const query = percentile(queries, 50);
      const build = percentile(builds, 50);
      print(`report build, window ${WINDOW}, median of ${ROUNDS}`, `${seconds(build)} (goal < 5 s)`);
      print('the model queries it reads, alone (baseline), median', seconds(query));
      print('ratio build / queries', `${(build / query).toFixed(2)}×`);
    } finally {
      await warehouse.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}
