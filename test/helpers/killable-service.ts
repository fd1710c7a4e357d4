/** A service in a child process on a database in a temporary folder, to kill -9 and restart in crash tests. */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnMarket, waitForLine } from './cli.js';
import { read, type TestService } from './service.js';

/** A service process that can be killed and started again on the same database. */
export interface KillableService {
  /** Starts `market serve --sandbox` on the database with the extra flags. */
  start(): Promise<void>;
  /** Kills the process with SIGKILL and waits for it to exit. */
  kill(): Promise<void>;
  /** Stops the process with SIGTERM and waits for it to exit. */
  stop(): Promise<void>;
  /** Sends `signal` to the running process (SIGSTOP freezes it, SIGCONT wakes it). */
  signal(signal: NodeJS.Signals): void;
  /** The running process as the test helpers see it: `call`, `sandbox` and `account` only. */
  readonly t: TestService;
  /** `http://host:port` of the running process. */
  readonly origin: string;
  /** Kills any process left and removes the folder. */
  cleanUp(): Promise<void>;
}

/** Prepares a killable service in a fresh temporary folder; `flags` are added to `market serve`. */
export async function killableService(flags: string[]): Promise<KillableService> {
  const dir = await mkdtemp(join(tmpdir(), 'market-crash-'));
  let child: ChildProcess | undefined;
  let origin = '';
  const end = async (signal: NodeJS.Signals) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    await once(child, 'exit');
  };
  const t = {
    call: async (
      path: string,
      init: { key?: string; method?: string; body?: unknown; headers?: Record<string, string> } = {},
    ) =>
      read(
        await fetch(`${origin}/v1${path}`, {
          method: init.method ?? 'GET',
          headers: {
            ...init.headers,
            ...(init.key === undefined ? {} : { authorization: `Bearer ${init.key}` }),
            ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        }),
      ),
    sandbox: async (path: string, body?: unknown, method?: string) =>
      read(
        await fetch(`${origin}/sandbox${path}`, {
          method: method ?? (body === undefined ? 'GET' : 'POST'),
          ...(body === undefined
            ? {}
            : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
        }),
      ),
    async account(body: Record<string, unknown> = { balance_usd: 100, trading: true }) {
      const created = await t.sandbox('/accounts', body);
      if (created.status !== 201) throw new Error(`account creation failed: ${created.text}`);
      return { accountId: created.body.account_id, key: created.body.api_key, keyId: created.body.key_id };
    },
  } as unknown as TestService;
  return {
    async start() {
      child = spawnMarket([
        'serve',
        '--port',
        '0',
        '--sandbox',
        '--db',
        join(dir, 'market.duckdb'),
        ...flags,
      ]);
      origin = (await waitForLine(child, /^http:\/\/.+\/v1$/)).replace(/\/v1$/, '');
    },
    kill: () => end('SIGKILL'),
    signal(signal) {
      child?.kill(signal);
    },
    stop: () => end('SIGTERM'),
    t,
    get origin() {
      return origin;
    },
    async cleanUp() {
      child?.kill('SIGCONT');
      await end('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
