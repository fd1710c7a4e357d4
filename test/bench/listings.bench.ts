/**
 * GET /listings over 1,000,000 listings (limit 200, a filter and a sort) against a trivial route
 * of the same server returning a body of the same size; also the service's RSS and its start-up
 * time on an existing database.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { benchDatabase, print } from './fixtures.js';
import { rssMiB, spawnService } from './service-process.js';

const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
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
        const real = await load(`${service.baseUrl}${query}`, headers);
        const baseline = await load(`${service.origin}/sandbox/payload?bytes=${bytes}`, {});
        print(
          `${query} (${bytes} B)`,
          `${real.rps.toFixed(0)} req/s, p50 ${real.p50} ms, p99 ${real.p99} ms`,
        );
        print(`  trivial route, same size`, `${baseline.rps.toFixed(0)} req/s, p50 ${baseline.p50} ms`);
        print('  ratio (goal >= 0.5)', (real.rps / baseline.rps).toFixed(2));
      }
      print('service RSS after load test', `${rssMiB(service.child.pid).toFixed(0)} MiB`);
    } finally {
      await service.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function load(url: string, headers: Record<string, string>) {
  const result = await autocannon({ url, headers, connections: 10, duration: SECONDS });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}
