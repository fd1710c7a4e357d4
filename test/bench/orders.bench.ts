/**
 * POST /orders at 32 concurrent clients over 20 keys (each order one up_to_12h listing, its own
 * custom_id), against GET /balance at the same concurrency on the same server: orders per second
 * and p99 latency beside the baseline. Limits are raised by flags so no request is refused, and
 * up_to_12h items send their offer later, so no recipient reaches the pending-offer limit.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { benchDatabase, percentile, print } from './fixtures.js';
import { spawnService } from './service-process.js';

const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CLIENTS = 32;
const KEYS = 20;

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'market-bench-'));
  const db = join(dir, 'market.duckdb');
  try {
    await copyFile(await benchDatabase(LISTINGS), db);
    const service = await spawnService([
      '--db',
      db,
      '--churn-paused',
      '--read-limit',
      '100000000',
      '--order-limit',
      '100000000',
    ]);
    const pool = new Pool(service.origin, { connections: CLIENTS });
    try {
      const keys = await Promise.all(Array.from({ length: KEYS }, () => createBuyer(service.origin)));
      const ids = await listingIds(pool, keys[0] as string, 40_000);
      print('listings to buy', String(ids.length));
      const balance = await measure(CLIENTS, (i) =>
        request(pool, 'GET', '/v1/balance', keys[i % KEYS] as string),
      );
      let next = 0;
      const orders = await measure(CLIENTS, (i, n) =>
        request(pool, 'POST', '/v1/orders', keys[i % KEYS] as string, {
          listing_ids: [ids[next++ % ids.length]],
          custom_id: `bench-${i}-${n}`,
        }),
      );
      print('GET /balance (baseline)', summary(balance));
      print('POST /orders', summary(orders));
      print('ratio orders/s to balance reads/s', (orders.rps / balance.rps).toPrecision(2));
      print('goal: >= 300 orders/s, p99 < 100 ms', orders.rps >= 300 && orders.p99 < 100 ? 'met' : 'not met');
    } finally {
      await pool.close();
      await service.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A funded trading account whose platform user accepts offers at once (so none pile up past the pending limit). */
export async function createBuyer(origin: string): Promise<string> {
  const headers = { 'content-type': 'application/json' };
  const created = await fetch(`${origin}/sandbox/accounts`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ balance_usd: 100_000_000, trading: true }),
  });
  const body = (await created.json()) as { api_key: string; account_id: string };
  await fetch(`${origin}/sandbox/accounts/${body.account_id}`, {
    method: 'PATCH',
    headers,
    body: JSON.stringify({ accept_after_seconds: 0 }),
  });
  return body.api_key;
}

/** Buyable up_to_12h listing ids, up to `wanted`. */
export async function listingIds(pool: Pool, key: string, wanted: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const path = `/v1/listings?limit=200&delivery=up_to_12h${cursor === null ? '' : `&cursor=${cursor}`}`;
    const page = JSON.parse((await request(pool, 'GET', path, key)).body) as {
      items: { id: string; source?: string; api_purchasable?: boolean }[];
      next_cursor: string | null;
    };
    ids.push(
      ...page.items.filter((l) => l.source !== 'external' && l.api_purchasable !== false).map((l) => l.id),
    );
    cursor = page.next_cursor;
  } while (cursor !== null && ids.length < wanted);
  return ids;
}

/** One request through the pool, its body read whole. */
export async function request(pool: Pool, method: 'GET' | 'POST', path: string, key: string, body?: unknown) {
  const response = await pool.request({
    method,
    path,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.statusCode, body: await response.body.text() };
}

/** Runs `clients` loops for SECONDS; returns requests per second and latency percentiles of 2xx answers. */
async function measure(
  clients: number,
  send: (client: number, n: number) => Promise<{ status: number; body: string }>,
) {
  const latencies: number[] = [];
  const statuses = new Map<string, number>();
  const end = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let n = 0; performance.now() < end; n++) {
        const started = performance.now();
        const { status, body } = await send(client, n);
        const label =
          status < 300 ? String(status) : `${status} ${(JSON.parse(body) as { code: string }).code}`;
        statuses.set(label, (statuses.get(label) ?? 0) + 1);
        if (status < 300) latencies.push(performance.now() - started);
      }
    }),
  );
  return {
    rps: latencies.length / SECONDS,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    statuses: [...statuses].map(([s, n]) => `${s}×${n}`).join(' '),
  };
}

function summary(m: { rps: number; p50: number; p99: number; statuses: string }): string {
  return `${m.rps.toFixed(0)} req/s, p50 ${m.p50.toFixed(1)} ms, p99 ${m.p99.toFixed(1)} ms (${m.statuses})`;
}
