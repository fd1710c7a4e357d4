/** Child processes of the benchmarks: `market serve` and the built `market`; their memory and CPU. */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ControlFile } from '../../src/collector/control/protocol.js';
import { type RunningService, startService } from '../../src/service/service.js';
import { projectPath } from '../../src/shared/project-root.js';
import { spawnMarket, waitForLine } from '../helpers/cli.js';
import { shebangLaunch } from '../helpers/launch-line.js';

/** A started service process. */
export interface ServiceProcess {
  child: ChildProcess;
  baseUrl: string;
  origin: string;
  /** Milliseconds from spawn to the base URL line. */
  startMs: number;
  stop(): Promise<void>;
}

/** Spawns `market serve` with the given flags and waits until it prints its base URL. */
export async function spawnService(flags: string[]): Promise<ServiceProcess> {
  const started = performance.now();
  const child = spawnMarket(['serve', '--port', '0', '--sandbox', '--log-level', 'error', ...flags]);
  const baseUrl = await waitForLine(child, /^http:\/\/.+\/v1$/);
  return {
    child,
    baseUrl,
    origin: baseUrl.replace(/\/v1$/, ''),
    startMs: performance.now() - started,
    async stop() {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** Resident memory of a process in MiB, from /proc. */
export function rssMiB(pid: number | undefined): number {
  return statusMiB(pid, 'VmRSS');
}

/** The anonymous part of a process' resident memory in MiB (the rest is mapped files: code, the warehouse). */
export function anonymousMiB(pid: number | undefined): number {
  return statusMiB(pid, 'RssAnon');
}

/** A memory figure of `/proc/<pid>/status` (given in kB) in MiB. */
function statusMiB(pid: number | undefined, field: string): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/**
 * CPU time the main thread of a process has used so far (user and system) in ms, from /proc: the
 * thread that answers requests, without DuckDB's threads running background queries.
 */
export function mainThreadCpuMs(pid: number | undefined): number {
  return statCpuMs(`/proc/${pid}/task/${pid}/stat`);
}

/** CPU time a whole process (every thread) has used so far (user and system) in ms, from /proc. */
export function processCpuMs(pid: number | undefined): number {
  return statCpuMs(`/proc/${pid}/stat`);
}

/** utime + stime of a /proc `stat` file, in ms. */
function statCpuMs(path: string): number {
  const stat = readFileSync(path, 'utf8');
  // The fields after the command name, which may hold spaces: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticksPerMs = 100 / 1000;
  return (Number(fields[11]) + Number(fields[12])) / ticksPerMs;
}

/**
 * Spawns `market <args>` from the build (`npm run build` first; its output is not read, so it goes
 * nowhere) with the environment and Node flags its shebang gives it, as `market` (npm link)
 * starts, then the flags of BENCH_COLLECTOR_NODE_OPTIONS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
export function spawnBuiltMarket(args: string[]): ChildProcess {
  const launch = shebangLaunch();
  return spawn(
    process.execPath,
    [
      ...launch.nodeFlags,
      ...envWords('BENCH_COLLECTOR_NODE_OPTIONS'),
      projectPath('.build', 'src', 'cli', 'main.js'),
      ...args,
    ],
    {
      cwd: projectPath(),
      env: { ...process.env, ...launch.env },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
}

/** The space-separated words of an environment variable (none when unset). */
export function envWords(name: string): string[] {
  return process.env[name]?.split(' ').filter(Boolean) ?? [];
}

/** Builds the CLI into `.build` (`npm run build`), which the spawned `market` commands run. */
export function buildCli(): void {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: projectPath(), stdio: 'inherit' });
}

/**
 * Builds the CLI (the build blocks this process, the service's too, so it goes first), then starts
 * an in-process sandbox service in a new temporary folder, churn paused and reads unlimited, for a
 * benchmark whose built collector runs against it. The caller removes `dir`.
 */
export async function startBenchService(
  name: string,
  listings: number,
  churnRate: number,
): Promise<{ dir: string; service: RunningService }> {
  buildCli();
  const dir = await mkdtemp(join(tmpdir(), `market-${name}-bench-`));
  const service = await startService({
    dbPath: join(dir, 'service.duckdb'),
    port: 0,
    sandbox: true,
    listings,
    churnRate,
    churnPaused: true,
    rateLimits: { read: 1e8 },
  });
  return { dir, service };
}

/** The collector's unlabelled series from its `/metrics`, by name. */
export async function scrapeMetrics(control: ControlFile): Promise<Map<string, number>> {
  const response = await fetch(`http://127.0.0.1:${control.port}/metrics`, {
    headers: { authorization: `Bearer ${control.token}` },
  });
  const series = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
    const match = /^([a-z_]+) (\S+)$/.exec(line);
    if (match?.[1] && match[2]) series.set(match[1], Number(match[2]));
  }
  return series;
}
