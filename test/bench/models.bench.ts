/**
 * Refreshing the SQL models as the history grows: for each history (default 30 and 90 days, at the
 * same events a day), a warehouse is generated in DuckDB in the collector's landing layout at its
 * default cadence (stream events, polls, a sweep of every live listing each 10 minutes landing
 * mostly repeats, a price snapshot a minute landing mostly repeated lines), then every model is
 * built in full in a fresh process (its time and that process's peak RSS), then each round lands
 * one more minute through the real landing code and refreshes incrementally. After the rounds, a full rebuild (the
 * baseline of the speed-up, with its peak RSS) is compared with the incremental tables. The ratio
 * that matters: the refresh of one more minute at the longest history over the shortest.
 *
 * BENCH_EVENTS_PER_DAY (default 333,333: 10,000,000 in 30 days), BENCH_HISTORIES (days, default
 * `30,90`), BENCH_GROUPS (2,000), BENCH_ROUNDS (3), BENCH_COMPARE (1; 0 skips the full rebuild);
 * the warehouse's memory limit is its own default (MARKET_WAREHOUSE_MEMORY sets another).
 * BENCH_WAREHOUSE=<prefix> keeps each generated warehouse at `<prefix>-<days>d.duckdb` (with
 * `.json`, its plan), and a later run with the same sizes starts from a copy instead of generating.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { projectPath } from '../../src/shared/project-root.js';
import { type ModelRunResult, type ModelRunSummary, Warehouse } from '../../src/warehouse/index.js';
import buildCli from '../helpers/build-cli.js';
import { print } from './fixtures.js';
import { diffModelTables, keepModelTables, type ModelDiff } from './model-compare.js';
import { type FullBuildResult, peakRssMiB } from './models-full-build.js';
import { generateWarehouse, planWarehouse } from './warehouse-generator.js';
import { landMinute } from './warehouse-minute.js';
import type { WarehousePlan } from './warehouse-sql.js';

const EVENTS_PER_DAY = Number(process.env.BENCH_EVENTS_PER_DAY ?? 333_333);
const HISTORIES = (process.env.BENCH_HISTORIES ?? '30,90').split(',').map(Number);
const GROUPS = Number(process.env.BENCH_GROUPS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const COMPARE = process.env.BENCH_COMPARE !== '0';
const MEMORY = process.env.MARKET_WAREHOUSE_MEMORY;
const KEPT = process.env.BENCH_WAREHOUSE;
const MINUTE_MS = 60_000;
/** The full build's script compiled, so its process holds what the collector's would (no TypeScript loader). */
const BUILD_SCRIPT = projectPath('.build', 'test', 'bench', 'models-full-build.js');

/** One round: the minute landed, then its incremental refresh. */
interface Round {
  incremental: ModelRunSummary;
  incrementalMs: number;
}

/** What one history measured. */
interface History {
  days: number;
  first: ModelRunSummary;
  firstMs: number;
  firstPeakMiB: number;
  rounds: Round[];
  /** A read of the live set (`SELECT count(*) FROM live_listings`) after the rounds. */
  liveReadMs: number;
  /** The full rebuild after the rounds, when compared. */
  full: { summary: ModelRunSummary; ms: number; peakMiB: number; diffs: ModelDiff[] } | null;
}

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  const histories: History[] = [];
  for (const days of HISTORIES) {
    const history = await measureHistory(days);
    if (!history) return;
    histories.push(history);
  }
  printSummary(histories);
}

/** Generates (or copies) the warehouse of `days` days and measures its builds and refreshes. */
async function measureHistory(days: number): Promise<History | null> {
  process.stdout.write(`\n-- ${days} days of history --\n`);
  const dir = await mkdtemp(join(tmpdir(), 'market-models-bench-'));
  try {
    const path = join(dir, 'warehouse.duckdb');
    const { plan, endMs } = await prepare(path, dir, days);
    const clock = { now: endMs + 1000 };
    // Built in a process of its own: its peak RSS is the build's, not the generator's.
    const built = await fullBuildInFreshProcess(path, clock.now);
    const first = built.summary;
    const firstMs = built.ms;
    const firstPeakMiB = built.peakMiB;
    print(`first full build of ${first.models.length} models, in a fresh process`, seconds(firstMs));
    print('peak RSS of that process', `${firstPeakMiB} MiB`);
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
        return null;
      }
      const rounds: Round[] = [];
      for (let r = 0; r < ROUNDS; r++) rounds.push(await runRound(warehouse, plan, clock, r, dir));
      const liveReadMs = await timeLiveRead(warehouse);
      const full = COMPARE ? await rebuildAndCompare(warehouse, tableModels) : null;
      return { days, first, firstMs, firstPeakMiB, rounds, liveReadMs, full };
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

/** The sizes a kept warehouse was generated with, and when its data ends. */
interface KeptPlan {
  events: number;
  days: number;
  groups: number;
  endMs: number;
}

/**
 * Generates the warehouse of `days` days at `path` (closed afterwards), or copies the one
 * BENCH_WAREHOUSE kept with the same sizes; keeps a newly generated one there when asked.
 */
async function prepare(
  path: string,
  dir: string,
  days: number,
): Promise<{ plan: WarehousePlan; endMs: number }> {
  const sizes = { events: Math.round(EVENTS_PER_DAY * days), days, groups: GROUPS };
  const kept = KEPT ? `${KEPT}-${days}d.duckdb` : null;
  if (kept && existsSync(kept)) {
    const keptPlan = JSON.parse(await readFile(`${kept}.json`, 'utf8')) as KeptPlan;
    if (keptPlan.events !== sizes.events || keptPlan.days !== days || keptPlan.groups !== GROUPS)
      throw new Error(`${kept} was generated with ${JSON.stringify(keptPlan)}, not ${JSON.stringify(sizes)}`);
    await copyFile(kept, path);
    print('generated warehouse', `copied from ${kept}, ${await sizeOnDisk(path)} on disk`);
    return { plan: planWarehouse({ ...sizes, endMs: keptPlan.endMs }), endMs: keptPlan.endMs };
  }
  // The data ends a few minutes ago, so the minutes the rounds land are in the past too.
  const endMs = Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS - 10 * MINUTE_MS;
  const plan = planWarehouse({ ...sizes, endMs });
  const warehouse = await Warehouse.open(path, { clock: () => endMs });
  try {
    await generate(warehouse, plan, dir, days);
  } finally {
    await warehouse.close();
  }
  if (kept) {
    await copyFile(path, kept);
    await writeFile(`${kept}.json`, JSON.stringify({ ...sizes, endMs } satisfies KeptPlan));
  }
  return { plan, endMs };
}

/** Generates the warehouse and prints how long it took, its rows and its size. */
async function generate(warehouse: Warehouse, plan: WarehousePlan, dir: string, days: number): Promise<void> {
  const started = performance.now();
  const counts = await generateWarehouse(warehouse, plan, dir, (day, total) => {
    if (day % 5 === 0 || day === total) process.stdout.write(`(generated day ${day} of ${total})\n`);
  });
  const generationMs = performance.now() - started;
  for (const [table, rows] of Object.entries(counts))
    print(`  ${table}`, `${rows.toLocaleString('en')} rows`);
  print(
    `generated ${days} days, ${GROUPS} groups, ${counts.raw_listing_events?.toLocaleString('en')} events`,
    `${seconds(generationMs)}, ${await sizeOnDisk(warehouse.path)} on disk`,
  );
}

/**
 * Builds every model in full on the warehouse at `path` in a child process at clock `nowMs`
 * (the compiled script, built first when a source changed), relaying its progress lines; returns
 * what it measured.
 */
async function fullBuildInFreshProcess(path: string, nowMs: number): Promise<FullBuildResult> {
  buildCli();
  const child = spawn(process.execPath, [BUILD_SCRIPT, path, String(nowMs)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let result: FullBuildResult | null = null;
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => {
    if (line.startsWith('RESULT ')) result = JSON.parse(line.slice('RESULT '.length)) as FullBuildResult;
    else process.stdout.write(`${line}\n`);
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0 || result === null) throw new Error(`the full build's process exited with ${code}`);
  return result;
}

/** Round `r`: lands its minute and refreshes incrementally. */
async function runRound(
  warehouse: Warehouse,
  plan: WarehousePlan,
  clock: { now: number },
  r: number,
  dir: string,
): Promise<Round> {
  const minute = await landMinute(warehouse, plan, clock, plan.endUs + r * MINUTE_MS * 1000, dir);
  clock.now = plan.endUs / 1000 + (r + 1) * MINUTE_MS + 1000;
  const begun = performance.now();
  const incremental = await warehouse.refreshModels();
  const incrementalMs = performance.now() - begun;
  const landed = Object.entries(minute.tables)
    .map(([table, n]) => `${table} ${n}`)
    .join(', ');
  print(
    `round ${r + 1}: one more minute in ${minute.writes} writes (${landed})`,
    `incremental ${seconds(incrementalMs)}`,
  );
  return { incremental, incrementalMs };
}

/** Times a count of `live_listings`, which reads the live set's state and what landed since. */
async function timeLiveRead(warehouse: Warehouse): Promise<number> {
  const begun = performance.now();
  const [row] = await warehouse.query('SELECT count(*) AS n FROM live_listings');
  const ms = performance.now() - begun;
  print(`a count of live_listings (${Number(row?.n).toLocaleString('en')} live)`, seconds(ms));
  return ms;
}

/** Keeps the incremental tables, rebuilds every model in full (its peak RSS measured) and compares. */
async function rebuildAndCompare(
  warehouse: Warehouse,
  tableModels: readonly string[],
): Promise<History['full']> {
  await keepModelTables(warehouse, tableModels);
  resetPeakRss();
  const begun = performance.now();
  const summary = await warehouse.refreshModels({ fullRefresh: true });
  const ms = performance.now() - begun;
  const peakMiB = peakRssMiB();
  const diffs = await diffModelTables(warehouse, tableModels);
  print('full rebuild after the rounds', `${seconds(ms)}, peak RSS ${peakMiB} MiB`);
  for (const diff of diffs) reportDiff(diff);
  return { summary, ms, peakMiB, diffs };
}

/** Per history, the per-model table; then refresh, builds and peaks side by side, and the verdicts. */
function printSummary(histories: readonly History[]): void {
  for (const history of histories) printPerModel(history);
  for (const h of histories) {
    const incrementalMs = median(h.rounds.map((r) => r.incrementalMs));
    print(
      `${h.days} days: incremental refresh of one more minute (median of ${h.rounds.length})`,
      seconds(incrementalMs),
    );
    print(`${h.days} days: a count of live_listings`, seconds(h.liveReadMs));
    print(`${h.days} days: first full build, peak RSS`, `${seconds(h.firstMs)}, ${h.firstPeakMiB} MiB`);
    if (h.full) {
      print(
        `${h.days} days: full rebuild after the rounds, peak RSS`,
        `${seconds(h.full.ms)}, ${h.full.peakMiB} MiB`,
      );
      print(`${h.days} days: speed-up, full / incremental`, `${(h.full.ms / incrementalMs).toFixed(1)}x`);
    }
  }
  const shortest = histories[0];
  const longest = histories.at(-1);
  if (shortest && longest && longest !== shortest) {
    const refresh = (h: History) => median(h.rounds.map((r) => r.incrementalMs));
    print(
      `refresh after one more minute, ${longest.days} days / ${shortest.days} days (goal <= 1.3)`,
      (refresh(longest) / refresh(shortest)).toFixed(2),
    );
  }
  const wrong = [
    ...new Set(histories.flatMap((h) => h.full?.diffs.map((d) => `${d.model} (${h.days} days)`) ?? [])),
  ];
  if (COMPARE)
    print('incremental tables equal a full rebuild', wrong.length === 0 ? 'yes' : `NO: ${wrong.join(', ')}`);
  if (wrong.length > 0) process.exitCode = 1;
}

/** Per model of one history: its first build, the median incremental build and rows, the full rebuild. */
function printPerModel(history: History): void {
  const columns = ['first', 'incr.', 'incr. rows', 'full'].map((c) => c.padStart(10)).join(' ');
  process.stdout.write(
    `\n${`${history.days} days: model`.padEnd(32)} ${'materialized'.padEnd(12)} ${columns}\n`,
  );
  for (const model of history.first.models) {
    const of = (value: (m: ModelRunResult) => number) =>
      median(
        history.rounds.map((r) => value(r.incremental.models.find((m) => m.model === model.model) ?? model)),
      );
    const rows = of((m) => m.rows ?? Number.NaN);
    const full = history.full?.summary.models.find((m) => m.model === model.model)?.durationMs;
    const cells = [
      ms(model.durationMs),
      ms(of((m) => m.durationMs)),
      (Number.isNaN(rows) ? '' : rows.toLocaleString('en')).padStart(10),
      full === undefined ? ''.padStart(10) : ms(full),
    ];
    process.stdout.write(`${model.model.padEnd(32)} ${model.materialized.padEnd(12)} ${cells.join(' ')}\n`);
  }
  process.stdout.write('\n');
}

function reportDiff(diff: ModelDiff): void {
  process.stderr.write(
    [
      '',
      `!!! MODEL ${diff.model} IS WRONG: the incremental refresh differs from a full rebuild`,
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
