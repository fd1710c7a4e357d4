/**
 * Webhooks, in one run against one service process and a local HTTPS receiver:
 * 1. POST /orders latency and throughput from accounts with 5 endpoints registered against
 *    accounts with none (every order then queues 5 deliveries in its own transaction);
 * 2. deliveries per second draining a backlog queued to 5 endpoints (queued while the receiver held
 *    each endpoint's first request), against the same number of POSTs a plain client makes to the
 *    same receiver over 5 connections.
 */
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, Pool, request } from 'undici';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { benchDatabase, percentile, print } from './fixtures.js';
import { createBuyer as buyer, request as call, listingIds } from './orders.bench.js';
import { spawnService } from './service-process.js';

const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 20_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const BACKLOG_ORDERS = Number(process.env.BENCH_BACKLOG_ORDERS ?? 400);
const CLIENTS = 8;
const ENDPOINTS = 5;

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'market-bench-webhooks-'));
  const receiver = await startWebhookReceiver();
  try {
    const db = join(dir, 'market.duckdb');
    await copyFile(await benchDatabase(LISTINGS), db);
    await writeFile(join(dir, 'ca.pem'), receiver.ca);
    const service = await spawnService([
      ...['--db', db, '--churn-paused', '--read-limit', '100000000', '--order-limit', '100000000'],
      ...['--webhook-allow-loopback', '--webhook-ca', join(dir, 'ca.pem')],
    ]);
    const pool = new Pool(service.origin, { connections: CLIENTS });
    try {
      const api = (method: 'GET' | 'POST', path: string, key: string, body?: unknown) =>
        call(pool, method, path, key, body);
      const ids = await listingIds(pool, await buyer(service.origin), 30_000);
      let next = 0;
      const take = () => ids[next++ % ids.length] as string;
      const plain = await Promise.all(Array.from({ length: CLIENTS }, () => buyer(service.origin)));
      const hooked = await Promise.all(Array.from({ length: CLIENTS }, () => buyer(service.origin)));
      for (const key of hooked)
        for (let i = 0; i < ENDPOINTS; i++)
          await api('POST', '/v1/webhooks', key, { url: `${receiver.origin}/load-${i}` });
      const without = await measure((c, n) =>
        api('POST', '/v1/orders', plain[c] as string, { listing_ids: [take()], custom_id: `a-${c}-${n}` }),
      );
      const withHooks = await measure((c, n) =>
        api('POST', '/v1/orders', hooked[c] as string, { listing_ids: [take()], custom_id: `b-${c}-${n}` }),
      );
      print('POST /orders, accounts with 0 endpoints (baseline)', summary(without));
      print(`POST /orders, accounts with ${ENDPOINTS} endpoints`, summary(withHooks));
      print('ratio p50 latency, 5 endpoints to 0', (withHooks.p50 / without.p50).toFixed(2));
      print('ratio p99 latency, 5 endpoints to 0', (withHooks.p99 / without.p99).toFixed(2));
      print('ratio orders/s, 5 endpoints to 0', (withHooks.rps / without.rps).toFixed(2));
      await settle(() => receiver.requests.length);
      const queued = await backlog(api, service.origin, receiver, take);
      const raw = await plainPosts(receiver, queued.count, queued.body);
      print(
        `deliveries/s draining ${queued.count} queued deliveries to ${ENDPOINTS} endpoints`,
        queued.rps.toFixed(0),
      );
      print(`plain POSTs/s to the same receiver over ${ENDPOINTS} connections (baseline)`, raw.toFixed(0));
      print('ratio queued deliveries/s to plain POSTs/s', (queued.rps / raw).toFixed(2));
    } finally {
      await pool.close();
      await service.stop();
    }
  } finally {
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  }
}

type Api = (
  method: 'GET' | 'POST',
  path: string,
  key: string,
  body?: unknown,
) => Promise<{ status: number; body: string }>;

/** Queues BACKLOG_ORDERS × 5 deliveries while the receiver answers 503, then times their drain. */
async function backlog(api: Api, origin: string, receiver: WebhookReceiver, take: () => string) {
  const key = await buyer(origin);
  const hooks: string[] = [];
  for (let i = 0; i < ENDPOINTS; i++)
    hooks.push(
      JSON.parse((await api('POST', '/v1/webhooks', key, { url: `${receiver.origin}/drain-${i}` })).body).data
        .id,
    );
  // Each endpoint's first request is held (a lane sends one at a time), so the rest queue behind it.
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  receiver.answer((r) =>
    r.path.startsWith('/drain') ? { status: 200, body: 'ok', hold: gate } : { status: 200 },
  );
  let count = 0;
  for (let n = 0; n < BACKLOG_ORDERS; n++)
    if ((await api('POST', '/v1/orders', key, { listing_ids: [take()] })).status === 201) count += ENDPOINTS;
  const body = receiver.requests.find((r) => r.path.startsWith('/drain'))?.raw.toString('utf8') ?? '{}';
  receiver.answer(() => ({ status: 200, body: 'ok' }));
  const started = performance.now();
  release();
  // A held request that outlived the 10 s timeout is due again 10 s later on the service clock.
  await fetch(`${origin}/sandbox/clock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"advance_seconds": 10}',
  });
  // Every one recorded delivered (a query every half second per endpoint, not to load the database).
  for (const hook of hooks)
    await until(
      async () => {
        const page = await api('GET', `/v1/webhooks/${hook}/deliveries?status=pending&limit=1`, key);
        return (JSON.parse(page.body) as { data: unknown[] }).data.length === 0;
      },
      `the queue of ${hook} to drain`,
      500,
    );
  return { count, rps: count / ((performance.now() - started) / 1000), body };
}

/** The same number of POSTs of the same body, by a plain client over 5 keep-alive connections. */
async function plainPosts(receiver: WebhookReceiver, count: number, body: string): Promise<number> {
  const agents = Array.from({ length: ENDPOINTS }, () => new Agent({ connect: { ca: receiver.ca } }));
  const started = performance.now();
  await Promise.all(
    agents.map(async (dispatcher, i) => {
      for (let n = i; n < count; n += ENDPOINTS) {
        const answer = await request(`${receiver.origin}/plain`, {
          method: 'POST',
          dispatcher,
          headers: { 'content-type': 'application/json' },
          body,
        });
        await answer.body.dump();
      }
    }),
  );
  const rps = count / ((performance.now() - started) / 1000);
  await Promise.all(agents.map((a) => a.close()));
  return rps;
}

/** Waits until `progress` has not moved for half a second (the deliveries of the load phase are in). */
async function settle(progress: () => number): Promise<void> {
  let last = -1;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = progress();
    if (now === last) return;
    last = now;
  }
}

/** Polls `check` until it holds; gives up after 3 minutes naming what it waited for. */
async function until(check: () => Promise<boolean>, what = 'a condition', pollMs = 20): Promise<void> {
  const deadline = Date.now() + 180_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** CLIENTS loops for SECONDS; requests per second and latency percentiles of 2xx answers. */
async function measure(send: (client: number, n: number) => Promise<{ status: number; body: string }>) {
  const latencies: number[] = [];
  const refused = new Map<string, number>();
  const end = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let n = 0; performance.now() < end; n++) {
        const started = performance.now();
        const { status, body } = await send(client, n);
        if (status < 300) latencies.push(performance.now() - started);
        else refused.set(body.slice(0, 60), (refused.get(body.slice(0, 60)) ?? 0) + 1);
      }
    }),
  );
  return {
    rps: latencies.length / SECONDS,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    refused: [...refused].map(([b, n]) => `${n}× ${b}`).join('; '),
  };
}

function summary(m: { rps: number; p50: number; p99: number; refused: string }): string {
  return `${m.rps.toFixed(0)} orders/s, p50 ${m.p50.toFixed(1)} ms, p99 ${m.p99.toFixed(1)} ms${m.refused ? ` (refused: ${m.refused})` : ''}`;
}
