/** Starts a real service on a free loopback port with a fresh DuckDB file, and cleans up after. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AdjustableClock, createClock } from '../../src/service/core/clock.js';
import { type RunningService, startService } from '../../src/service/service.js';
import type { ServiceOptions } from '../../src/service/service-options.js';

/** A response read whole. */
export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** A running test service with helpers to call it. */
export interface TestService {
  service: RunningService;
  baseUrl: string;
  origin: string;
  clock: AdjustableClock;
  dir: string;
  /** GET (or another method) a /v1 path with an optional key. */
  call(
    path: string,
    init?: { key?: string; method?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<TestResponse>;
  /** Calls a /sandbox path. */
  sandbox(path: string, body?: unknown, method?: string): Promise<TestResponse>;
  /** Creates an account through the sandbox and returns its id and raw key. */
  account(body?: Record<string, unknown>): Promise<{ accountId: string; key: string; keyId: string }>;
  close(): Promise<void>;
}

/** Starts a service; churn is paused unless asked for. */
export async function startTestService(options: ServiceOptions = {}): Promise<TestService> {
  const dir = await mkdtemp(join(tmpdir(), 'market-test-'));
  const clock = options.clock ?? createClock();
  const service = await startService({
    dbPath: join(dir, 'market.duckdb'),
    port: 0,
    sandbox: true,
    listings: 500,
    churnPaused: true,
    ...options,
    clock,
  });
  const call: TestService['call'] = async (path, init = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.key !== undefined) headers.authorization = `Bearer ${init.key}`;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${service.baseUrl}${path}`, {
      method: init.method ?? 'GET',
      headers,
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    return read(response);
  };
  const sandbox: TestService['sandbox'] = async (path, body, method) => {
    const response = await fetch(`${service.origin}/sandbox${path}`, {
      method: method ?? (body === undefined ? 'GET' : 'POST'),
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    return read(response);
  };
  return {
    service,
    baseUrl: service.baseUrl,
    origin: service.origin,
    clock,
    dir,
    call,
    sandbox,
    async account(body = { balance_usd: 100, trading: true }) {
      const created = await sandbox('/accounts', body);
      if (created.status !== 201) throw new Error(`account creation failed: ${created.text}`);
      return { accountId: created.body.account_id, key: created.body.api_key, keyId: created.body.key_id };
    },
    async close() {
      await service.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Reads a fetch response whole, parsing JSON when it is JSON. */
export async function read(response: Response): Promise<TestResponse> {
  const text = await response.text();
  const json = (response.headers.get('content-type') ?? '').includes('json') && text.length > 0;
  return { status: response.status, headers: response.headers, body: json ? JSON.parse(text) : text, text };
}
