/**
 * GET /listings over 1,000,000 listings (limit 200, a filter and a sort) against a trivial route
 * of the same server returning a body of the same size; also the service's RSS and its start-up
 * time on an existing database. On a shared machine the load of other processes drifts, so the two
 * are measured in alternating slices (BENCH_SLICES of BENCH_SECONDS / BENCH_SLICES each) and
 * compared over the same stretch of time. The CPU time of the service's main thread per request,
 * which the load of other processes disturbs less than throughput, is printed beside.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchDatabase, percentile, print } from './fixtures.js';
import { httpLoad } from './http-load.js';
import { mainThreadCpuMs, rssMiB, spawnService } from './service-process.js';

const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const SLICES = Number(process.env.BENCH_SLICES ?? 5);
const QUERIES = [
  '/listings?limit=200&category=Rifle&sort=price_asc',
  '/listings?limit=200&wear=Factory%20New&sort=newest',
  '/listings?limit=200&min_price=10&max_price=100&sort=price_desc',
];

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'market-bench-'));
  const db = join(dir, 'market.duckdb');
  try {
    await copyFile(await benchDatabase(LISTINGS), db);

    const service = await spawnService(['--db', db, '--churn-paused', '--read-limit', '100000000']);
    print('start-up on the existing database', `${(service.startMs / 1000).toFixed(1)} s`);
    try {
      const created = await fetch(`${service.origin}/sandbox/accounts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"balance_usd": 10}',
      });
      const { api_key: key } = (await created.json()) as { api_key: string };
      const headers = { authorization: `Bearer ${key}` };
      print('service RSS after load', `${rssMiB(service.child.pid).toFixed(0)} MiB`);
      for (const query of QUERIES) {
        const sample = await fetch(`${service.baseUrl}${query}`, { headers });
        const bytes = (await sample.arrayBuffer()).byteLength;
        const real: Load[] = [];
        const baseline: Load[] = [];
        for (let slice = 0; slice < SLICES; slice++) {
          real.push(await load(service.child.pid, `${service.baseUrl}${query}`, headers));
          baseline.push(
            await load(service.child.pid, `${service.origin}/sandbox/payload?bytes=${bytes}`, {}),
          );
        }
        const ratios = real.map((r, i) => r.rps / (baseline[i] as Load).rps);
        print(
          `${query} (${bytes} B)`,
          `${mean(real, 'rps').toFixed(0)} req/s, p50 ${median(real, 'p50').toFixed(2)} ms, p99 ${median(real, 'p99').toFixed(2)} ms, ${cpuPerRequest(real)} ms main-thread CPU/req`,
        );
        print(
          `  trivial route, same size`,
          `${mean(baseline, 'rps').toFixed(0)} req/s, p50 ${median(baseline, 'p50').toFixed(2)} ms, ${cpuPerRequest(baseline)} ms main-thread CPU/req`,
        );
        print(
          `  ratio (goal >= 0.5): overall; per slice`,
          `${(mean(real, 'rps') / mean(baseline, 'rps')).toFixed(2)}; ${ratios.map((r) => r.toFixed(2)).join(' ')}`,
        );
      }
      print('service RSS after load test', `${rssMiB(service.child.pid).toFixed(0)} MiB`);
    } finally {
      await service.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** CPU time of the service's main thread over the slice, in ms. */
  cpuMs: number;
}

async function load(pid: number | undefined, url: string, headers: Record<string, string>): Promise<Load> {
  const cpuBefore = mainThreadCpuMs(pid);
  const result = await httpLoad({ url, headers, connections: 10, seconds: SECONDS / SLICES });
  if (result.failures > 0) throw new Error(`${result.failures} answers to ${url} were not 200`);
  return { ...result, cpuMs: mainThreadCpuMs(pid) - cpuBefore };
}

/** Main-thread CPU time per answered request over all slices, in ms. */
function cpuPerRequest(loads: readonly Load[]): string {
  const cpu = loads.reduce((sum, l) => sum + l.cpuMs, 0);
  const requests = loads.reduce((sum, l) => sum + l.requests, 0);
  return (cpu / requests).toFixed(3);
}

function mean(loads: readonly Load[], key: 'rps'): number {
  return loads.reduce((sum, l) => sum + l[key], 0) / loads.length;
}

function median(loads: readonly Load[], key: 'p50' | 'p99'): number {
  return percentile(
    loads.map((l) => l[key]),
    50,
  );
}
