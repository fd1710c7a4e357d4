/**
 * Refreshing the SQL models of a month-old warehouse: about 10,000,000 listing events and a price
 * snapshot a minute, generated in DuckDB. After a first full build, each round lands one more
 * minute through the real landing code, refreshes incrementally, then rebuilds everything in full;
 * the full rebuild is the baseline of the ratio. Each round also checks that the incremental
 * refresh left the same tables as the full rebuild.
 *
 * BENCH_EVENTS (default 10,000,000), BENCH_DAYS (30), BENCH_GROUPS (2,000), BENCH_ROUNDS (3); the
 * warehouse's memory limit is its own default (MARKET_WAREHOUSE_MEMORY sets another).
 * BENCH_WAREHOUSE=<file> keeps the generated warehouse there (with `<file>.json`, its plan), and a
 * later run with the same sizes starts from a copy of it instead of generating again.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ModelRunResult, type ModelRunSummary, Warehouse } from '../../src/warehouse/index.js';
import { print } from './fixtures.js';
import { diffModelTables, keepModelTables, type ModelDiff } from './model-compare.js';
import { generateWarehouse, planWarehouse } from './warehouse-generator.js';
import { landMinute } from './warehouse-minute.js';
import type { WarehousePlan } from './warehouse-sql.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000_000);
const DAYS = Number(process.env.BENCH_DAYS ?? 30);
const GROUPS = Number(process.env.BENCH_GROUPS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const MEMORY = process.env.MARKET_WAREHOUSE_MEMORY;
const KEPT = process.env.BENCH_WAREHOUSE;
const MINUTE_MS = 60_000;

/** One round: the minute landed, then its incremental refresh and a full rebuild. */
interface Round {
  incremental: ModelRunSummary;
  incrementalMs: number;
  full: ModelRunSummary;
  fullMs: number;
  diffs: ModelDiff[];
}

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'market-models-bench-'));
  try {
    const path = join(dir, 'warehouse.duckdb');
    const { plan, endMs } = await prepare(path, dir);
    const clock = { now: endMs };
    const warehouse = await Warehouse.open(path, {
      clock: () => clock.now,
      ...(MEMORY ? { memoryLimit: MEMORY } : {}),
    });
    try {
      const limit = await warehouse.query("SELECT current_setting('memory_limit') AS v");
      print("the warehouse's DuckDB memory limit", String(limit[0]?.v));
      const tableModels = warehouse
        .models()
        .filter((m) => m.materialized !== 'view')
        .map((m) => m.name);
      if (warehouse.models().length === 0) {
        print('models in sql/models', 'none: nothing to refresh');
        return;
      }
      clock.now = endMs + 1000;
      // The generator runs with more memory: measure the builds' peak from here on.
      resetPeakRss();
      const begun = performance.now();
      const first = await warehouse.refreshModels({
        onModel: (m) =>
          process.stdout.write(
            `(built ${m.model} in ${seconds(m.durationMs)}, peak RSS so far ${peakRss()})\n`,
          ),
      });
      print(`first full build of ${first.models.length} models`, seconds(performance.now() - begun));
      print('peak RSS of the process during the first full build', peakRss());
      const rounds: Round[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        rounds.push(await runRound(warehouse, plan, clock, r, tableModels, dir));
      }
      printSummary(first, rounds, tableModels);
    } finally {
      await warehouse.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Starts the process's peak resident memory (VmHWM) over from its current size (Linux). */
function resetPeakRss(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // not Linux, or not allowed: the peak then includes the generation
  }
}

/** The process's peak resident memory (VmHWM), e.g. `812 MiB`. */
function peakRss(): string {
  const kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? Number.NaN);
  return `${(kb / 1024).toFixed(0)} MiB`;
}

/** The sizes a kept warehouse was generated with, and when its data ends. */
interface KeptPlan {
  events: number;
  days: number;
  groups: number;
  endMs: number;
}

/**
 * Generates the warehouse at `path` (closed afterwards), or copies the one BENCH_WAREHOUSE kept
 * with the same sizes; keeps a newly generated one there when asked.
 */
async function prepare(path: string, dir: string): Promise<{ plan: WarehousePlan; endMs: number }> {
  const sizes = { events: EVENTS, days: DAYS, groups: GROUPS };
  if (KEPT && existsSync(KEPT)) {
    const kept = JSON.parse(await readFile(`${KEPT}.json`, 'utf8')) as KeptPlan;
    if (kept.events !== EVENTS || kept.days !== DAYS || kept.groups !== GROUPS)
      throw new Error(`${KEPT} was generated with ${JSON.stringify(kept)}, not ${JSON.stringify(sizes)}`);
    await copyFile(KEPT, path);
    print('generated warehouse', `copied from ${KEPT}, ${await sizeOnDisk(path)} on disk`);
    return { plan: planWarehouse({ ...sizes, endMs: kept.endMs }), endMs: kept.endMs };
  }
  // The data ends a few minutes ago, so the minutes the rounds land are in the past too.
  const endMs = Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS - 10 * MINUTE_MS;
  const warehouse = await Warehouse.open(path, { clock: () => endMs });
  let plan: WarehousePlan;
  try {
    plan = await generate(warehouse, dir, endMs);
  } finally {
    await warehouse.close();
  }
  if (KEPT) {
    await copyFile(path, KEPT);
    await writeFile(`${KEPT}.json`, JSON.stringify({ ...sizes, endMs } satisfies KeptPlan));
  }
  return { plan, endMs };
}

/** Generates the warehouse and prints how long it took, its rows and its size. */
async function generate(warehouse: Warehouse, dir: string, endMs: number): Promise<WarehousePlan> {
  const plan = planWarehouse({ events: EVENTS, days: DAYS, groups: GROUPS, endMs });
  const started = performance.now();
  const counts = await generateWarehouse(warehouse, plan, dir, (day, days) => {
    if (day % 5 === 0 || day === days) process.stdout.write(`(generated day ${day} of ${days})\n`);
  });
  const generationMs = performance.now() - started;
  for (const [table, rows] of Object.entries(counts))
    print(`  ${table}`, `${rows.toLocaleString('en')} rows`);
  print(
    `generated ${DAYS} days, ${GROUPS} groups, ${counts.raw_listing_events?.toLocaleString('en')} events`,
    `${seconds(generationMs)}, ${await sizeOnDisk(warehouse.path)} on disk`,
  );
  return plan;
}

/** Round `r`: lands its minute, refreshes incrementally, keeps the tables, rebuilds in full, compares. */
async function runRound(
  warehouse: Warehouse,
  plan: WarehousePlan,
  clock: { now: number },
  r: number,
  tableModels: readonly string[],
  dir: string,
): Promise<Round> {
  const minute = await landMinute(warehouse, plan, clock, plan.endUs + r * MINUTE_MS * 1000, dir);
  clock.now = plan.endUs / 1000 + (r + 1) * MINUTE_MS + 1000;
  let begun = performance.now();
  const incremental = await warehouse.refreshModels();
  const incrementalMs = performance.now() - begun;
  await keepModelTables(warehouse, tableModels);
  begun = performance.now();
  const full = await warehouse.refreshModels({ fullRefresh: true });
  const fullMs = performance.now() - begun;
  const diffs = await diffModelTables(warehouse, tableModels);
  const landed = Object.entries(minute.tables)
    .map(([table, n]) => `${table} ${n}`)
    .join(', ');
  print(
    `round ${r + 1}: one more minute in ${minute.writes} writes (${landed})`,
    `incremental ${seconds(incrementalMs)}, full ${seconds(fullMs)}, ${(fullMs / incrementalMs).toFixed(1)}x`,
  );
  for (const diff of diffs) reportDiff(r + 1, diff);
  return { incremental, incrementalMs, full, fullMs, diffs };
}

/** The per-model table, the medians, the ratio and the verdict of the comparisons (a failure sets the exit code). */
function printSummary(
  first: ModelRunSummary,
  rounds: readonly Round[],
  tableModels: readonly string[],
): void {
  printPerModel(first, rounds);
  const incrementalMs = median(rounds.map((r) => r.incrementalMs));
  const fullMs = median(rounds.map((r) => r.fullMs));
  print(`incremental refresh of one more minute (median of ${rounds.length})`, seconds(incrementalMs));
  print(`full rebuild of the same data, the baseline (median of ${rounds.length})`, seconds(fullMs));
  print('speed-up, full / incremental (goal >= 20)', `${(fullMs / incrementalMs).toFixed(1)}x`);
  const wrong = [...new Set(rounds.flatMap((r) => r.diffs.map((d) => d.model)))];
  print(
    `incremental tables equal a full rebuild (${tableModels.length} table models)`,
    wrong.length === 0 ? 'yes' : `NO: ${wrong.join(', ')}`,
  );
  if (wrong.length > 0) process.exitCode = 1;
}

/** Per model: how it was built, its first build, and the medians of the rounds (rows: written incrementally). */
function printPerModel(first: ModelRunSummary, rounds: readonly Round[]): void {
  const columns = ['first', 'incr.', 'incr. rows', 'full', 'full/incr.'].map((c) => c.padStart(10)).join(' ');
  process.stdout.write(`\n${'model'.padEnd(32)} ${'materialized'.padEnd(12)} ${columns}\n`);
  for (const model of first.models) {
    const of = (pick: (r: Round) => ModelRunSummary, value: (m: ModelRunResult) => number) =>
      median(rounds.map((r) => value(pick(r).models.find((m) => m.model === model.model) ?? model)));
    const incremental = of(
      (r) => r.incremental,
      (m) => m.durationMs,
    );
    const rows = of(
      (r) => r.incremental,
      (m) => m.rows ?? Number.NaN,
    );
    const full = of(
      (r) => r.full,
      (m) => m.durationMs,
    );
    const cells = [
      ms(model.durationMs),
      ms(incremental),
      (Number.isNaN(rows) ? '' : rows.toLocaleString('en')).padStart(10),
      ms(full),
      `${(full / incremental).toFixed(1)}x`.padStart(10),
    ];
    process.stdout.write(`${model.model.padEnd(32)} ${model.materialized.padEnd(12)} ${cells.join(' ')}\n`);
  }
  process.stdout.write('\n');
}

function reportDiff(round: number, diff: ModelDiff): void {
  process.stderr.write(
    [
      '',
      `!!! MODEL ${diff.model} IS WRONG (round ${round}): the incremental refresh differs from a full rebuild`,
      `!!!   rows: incremental ${diff.incrementalRows}, full ${diff.fullRows}; only in incremental ${diff.onlyIncremental}, only in full ${diff.onlyFull}`,
      ...diff.sample.onlyIncremental.map((row) => `!!!   only in incremental: ${JSON.stringify(row)}`),
      ...diff.sample.onlyFull.map((row) => `!!!   only in full:        ${JSON.stringify(row)}`),
      '',
    ].join('\n'),
  );
}

async function sizeOnDisk(path: string): Promise<string> {
  let bytes = (await stat(path)).size;
  if (existsSync(`${path}.wal`)) bytes += (await stat(`${path}.wal`)).size;
  return `${(bytes / 2 ** 30).toFixed(2)} GiB`;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? Number.NaN)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

function seconds(milliseconds: number): string {
  return `${(milliseconds / 1000).toFixed(2)} s`;
}

function ms(milliseconds: number): string {
  return `${milliseconds.toFixed(0)} ms`.padStart(10);
}
