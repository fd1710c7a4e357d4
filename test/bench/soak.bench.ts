/**
 * The main job over time: the built `market run` (what `npm start` runs: the service with its
 * simulator at the demo's churn, the collector and the demo trader) on a fresh data folder of its
 * own, for BENCH_MINUTES (60). Every BENCH_SAMPLE_SECONDS (60) it samples the RSS of each process
 * of the job from /proc, the collector's V8 heap and DuckDB's memory from the collector's
 * `/metrics` (its control endpoint, found through the control file) with its cached blocks and its
 * rows in memory (`duckdb_memory()` by tag, through the same endpoint), and the warehouse file's
 * bytes and its write-ahead log's, and the CPU time of the job's processes; then prints every
 * sample with the share of a core the job used since the one before, and the slope of each figure
 * (least squares, per hour) over the samples after the first BENCH_SETTLE_MINUTES (10) with the
 * job's share of a core over them. Goal: no upward trend after the settling minutes (a leak is a
 * defect whatever its size), the job under 400 MiB.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControlClient } from '../../src/cli/control-client.js';
import { type ControlFile, controlFileOf } from '../../src/collector/control/protocol.js';
import { projectPath } from '../../src/shared/project-root.js';
import { waitForLine } from '../helpers/cli.js';
import { startScriptLaunch } from '../helpers/launch-line.js';
import { print } from './fixtures.js';
import { anonymousMiB, buildCli, processCpuMs, rssMiB, scrapeMetrics } from './service-process.js';

const MINUTES = Number(process.env.BENCH_MINUTES ?? 60);
const SAMPLE_MS = Number(process.env.BENCH_SAMPLE_SECONDS ?? 60) * 1000;
const SETTLE_MINUTES = Number(process.env.BENCH_SETTLE_MINUTES ?? 10);

/** One sample of the job, in MiB, at `minute` since it printed its address. */
interface Sample {
  minute: number;
  /** RSS of each process of the job, by pid. */
  rss: Map<number, number>;
  /** The anonymous part of the job's RSS (its processes together). */
  anonymous: number;
  heap: number;
  duckdb: number;
  /** Of DuckDB's memory: the file's blocks cached (`base_table`), and rows in memory (`in_memory_table`: not yet checkpointed, and temp tables). */
  cached: number;
  inMemory: number;
  /** The warehouse file alone, and its write-ahead log (checkpointed into it at 64 MB). */
  file: number;
  wal: number;
  /** CPU time the job's processes have used so far (user and system), in seconds. */
  cpuSeconds: number;
}

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  buildCli();
  const dir = await mkdtemp(join(tmpdir(), 'market-soak-bench-'));
  const warehouse = join(dir, 'warehouse.duckdb');
  const job = spawnMainJob(dir, warehouse);
  try {
    await waitForLine(job, /^http:\/\/.+\/v1$/);
    const started = performance.now();
    const samples: Sample[] = [];
    for (let n = 0; n * SAMPLE_MS <= MINUTES * 60_000; n += 1) {
      await new Promise((r) => setTimeout(r, Math.max(0, started + n * SAMPLE_MS - performance.now())));
      if (job.exitCode !== null)
        throw new Error(`market run exited with ${job.exitCode}: see ${dir}/run.log`);
      const sample = await takeSample(job.pid as number, warehouse, (performance.now() - started) / 60_000);
      print(`minute ${sample.minute.toFixed(1)}`, describeSample(sample, samples.at(-1)));
      samples.push(sample);
    }
    printSlopes(samples);
  } finally {
    if (job.exitCode === null) {
      const exited = once(job, 'exit');
      job.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * `market run` on `dir` (a free port, the control endpoint's too) with the environment and Node
 * flags `npm start` gives it, its log in `dir/run.log`.
 */
function spawnMainJob(dir: string, warehouse: string): ChildProcess {
  const launch = startScriptLaunch();
  const job = spawn(
    process.execPath,
    [
      ...launch.nodeFlags,
      projectPath('.build', 'src', 'cli', 'main.js'),
      'run',
      ...['--port', '0', '--db', join(dir, 'market.duckdb'), '--warehouse', warehouse],
      ...['--log-format', 'json'],
    ],
    { cwd: projectPath(), env: { ...process.env, ...launch.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  job.stderr?.pipe(createWriteStream(join(dir, 'run.log')));
  return job;
}

/** The job's figures now: every process' RSS, the collector's heap and DuckDB's memory, the file. */
async function takeSample(pid: number, warehouse: string, minute: number): Promise<Sample> {
  const rss = new Map<number, number>();
  let anonymous = 0;
  let cpuMs = 0;
  for (const p of [pid, ...descendantsOf(pid)]) {
    rss.set(p, rssMiB(p));
    anonymous += anonymousMiB(p);
    cpuMs += processCpuMs(p);
  }
  const control = JSON.parse(await readFile(controlFileOf(warehouse), 'utf8')) as ControlFile;
  const metrics = await scrapeMetrics(control);
  const tags = await duckdbTags(control);
  const mib = (bytes: number) => bytes / 2 ** 20;
  const bytesOf = (path: string) => (existsSync(path) ? statSync(path).size : 0);
  return {
    minute,
    rss,
    anonymous,
    heap: mib(metrics.get('nodejs_heap_size_used_bytes') ?? Number.NaN),
    duckdb: mib(metrics.get('market_collector_duckdb_memory_bytes') ?? Number.NaN),
    cached: mib(tags.get('BASE_TABLE') ?? 0),
    inMemory: mib(tags.get('IN_MEMORY_TABLE') ?? 0),
    file: mib(bytesOf(warehouse)),
    wal: mib(bytesOf(`${warehouse}.wal`)),
    cpuSeconds: cpuMs / 1000,
  };
}

/** The pids below `pid` (the job may run its parts as child processes), from /proc. */
function descendantsOf(pid: number): number[] {
  const children: number[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const line = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
    if (line) children.push(...line.split(' ').map(Number));
  }
  return children.flatMap((child) => [child, ...descendantsOf(child)]);
}

/** DuckDB's memory by tag (`duckdb_memory()`), in bytes, asked through the collector's control endpoint. */
async function duckdbTags(control: ControlFile): Promise<Map<string, number>> {
  const rows = await new ControlClient(control.port, control.token).query(
    'SELECT tag, memory_usage_bytes::DOUBLE AS bytes FROM duckdb_memory()',
  );
  return new Map(rows.map((r) => [String(r.tag), Number(r.bytes)]));
}

/** A sample as one line: each process' RSS, then the heap, DuckDB's memory, the file and the CPU since `previous`. */
function describeSample(sample: Sample, previous: Sample | undefined): string {
  const rss = [...sample.rss].map(([pid, mib]) => `rss[${pid}] ${mib.toFixed(0)}`).join(', ');
  const { anonymous, heap, duckdb, cached, inMemory, file, wal } = sample;
  const tags = `base_table ${cached.toFixed(0)}, in_memory_table ${inMemory.toFixed(0)}`;
  const cpu = previous ? `, cpu ${(100 * coreShare(previous, sample)).toFixed(0)} %` : '';
  return `${rss} (anonymous ${anonymous.toFixed(0)}), heap ${heap.toFixed(0)}, duckdb ${duckdb.toFixed(0)} (${tags}), file ${file.toFixed(1)} + wal ${wal.toFixed(1)} MiB${cpu}`;
}

/** The share of one core the job used between two samples. */
function coreShare(from: Sample, to: Sample): number {
  return (to.cpuSeconds - from.cpuSeconds) / ((to.minute - from.minute) * 60);
}

/** The range and the slope of each figure over the samples after the settling minutes. */
function printSlopes(samples: Sample[]): void {
  const settled = samples.filter((s) => s.minute >= SETTLE_MINUTES);
  if (settled.length < 2) {
    print('slopes', `need samples after minute ${SETTLE_MINUTES} (BENCH_MINUTES=${MINUTES})`);
    return;
  }
  const total = (s: Sample) => [...s.rss.values()].reduce((a, b) => a + b, 0);
  const peak = Math.max(...samples.map(total));
  print('highest sampled RSS of the job (every process)', `${peak.toFixed(0)} MiB (goal < 400 MiB)`);
  const share = coreShare(settled[0] as Sample, settled.at(-1) as Sample);
  print(`after minute ${SETTLE_MINUTES}: CPU of the job`, `${(100 * share).toFixed(1)} % of a core`);
  const figures: [string, (s: Sample) => number][] = [
    ['RSS of the job', total],
    ['anonymous memory of the job', (s) => s.anonymous],
    ['collector heap used', (s) => s.heap],
    ["DuckDB's memory (duckdb_memory())", (s) => s.duckdb],
    ["DuckDB's cached blocks (base_table)", (s) => s.cached],
    ["DuckDB's rows in memory (in_memory_table)", (s) => s.inMemory],
    ['warehouse file', (s) => s.file],
    ['warehouse file and WAL', (s) => s.file + s.wal],
  ];
  for (const [name, figure] of figures) {
    const values = settled.map(figure);
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    const range = `${Math.min(...values).toFixed(1)}-${Math.max(...values).toFixed(1)} MiB (mean ${mean.toFixed(1)})`;
    const slope = slopePerHour(
      settled.map((s) => s.minute),
      values,
    );
    print(`after minute ${SETTLE_MINUTES}: ${name}`, `${range}, slope ${slope.toFixed(1)} MiB/h`);
  }
}

/** The least-squares slope of `ys` over `minutes`, per hour. */
function slopePerHour(minutes: number[], ys: number[]): number {
  const n = minutes.length;
  const mx = minutes.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i += 1) {
    num += ((minutes[i] as number) - mx) * ((ys[i] as number) - my);
    den += ((minutes[i] as number) - mx) ** 2;
  }
  return den === 0 ? 0 : (num / den) * 60;
}
