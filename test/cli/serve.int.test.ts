import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openService } from '../../src/service/service.js';
import { askCollector, runMarket, spawnMarket, waitForLine } from '../helpers/cli.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'market-cli-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('market serve', () => {
  it('prints the base URL on its own line, serves, and exits 0 on SIGTERM', async () => {
    const db = join(dir, 'serve.duckdb');
    const child = spawnMarket(['serve', '--port', '0', '--db', db, '--listings', '200', '--sandbox']);
    const line = await waitForLine(child, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const health = await fetch(`${line}/health`);
    expect(health.status).toBe(200);
    const created = await fetch(`${line.replace(/\/v1$/, '')}/sandbox/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"balance_usd": 5}',
    });
    const { api_key } = (await created.json()) as { api_key: string };
    const listings = await fetch(`${line}/listings?limit=3`, {
      headers: { authorization: `Bearer ${api_key}` },
    });
    expect(((await listings.json()) as { items: unknown[] }).items).toHaveLength(3);
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });

  it('refuses a database another process holds with one clear line and exit code 2', async () => {
    const db = join(dir, 'held.duckdb');
    const holder = spawnMarket(['serve', '--port', '0', '--db', db, '--listings', '50']);
    await waitForLine(holder, /^http:\/\/.+\/v1$/);
    try {
      const second = await runMarket(['serve', '--port', '0', '--db', db]);
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(`${db} is in use`);
      expect(second.stderr).not.toContain('    at ');
    } finally {
      holder.kill('SIGTERM');
      await once(holder, 'exit');
    }
  });

  it('refuses a bad option with a clear message and exit code 2', async () => {
    const result = await runMarket(['serve', '--port', 'http']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('invalid option port: must be an integer 0-65535');
    expect(result.stderr).not.toContain('    at ');
  });
});

describe('market --version', () => {
  it('prints the version of package.json', async () => {
    const result = await runMarket(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('0.1.0\n');
  });
});

describe('market keys', () => {
  /** A service database as `market serve` leaves it. */
  async function serviceDatabase(name: string): Promise<string> {
    const db = join(dir, name);
    await (await openService({ dbPath: db, listings: 10, churnPaused: true })).close();
    return db;
  }

  it('creates a key printed alone on stdout, lists it, and revokes it', async () => {
    const db = await serviceDatabase('keys.duckdb');
    const created = await runMarket(['keys', 'create', '--db', db, '--label', 'bot', '--trading']);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^svc_pub_[a-z2-7]{12}_[A-Za-z0-9_-]{32}\n$/);
    const keyId = created.stdout.slice(8, 20);

    const listed = await runMarket(['keys', 'list', '--db', db]);
    expect(listed.stdout).toContain(`${keyId}\t`);
    expect(listed.stdout).toContain('\tbot\ttrading=true');
    expect(listed.stdout).not.toContain(created.stdout.trim());

    const revoked = await runMarket(['keys', 'revoke', keyId, '--db', db]);
    expect(revoked.code).toBe(0);
    expect((await runMarket(['keys', 'list', '--db', db])).stdout).toContain('revoked');
  });

  it('says which key is unknown', async () => {
    const result = await runMarket([
      'keys',
      'revoke',
      'nokey',
      '--db',
      await serviceDatabase('keys2.duckdb'),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no key nokey');
  });

  it('refuses a database that does not exist instead of creating one', async () => {
    const missing = join(dir, 'mistyped.duckdb');
    const result = await runMarket(['keys', 'create', '--db', missing]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`no service database at ${missing}`);
    expect(result.stdout).toBe('');
    expect(existsSync(missing)).toBe(false);
  });
});

describe('market run (npm start)', () => {
  it('runs the sandbox service and the collector, prints a key of an account of its own that can buy, lands the demo trader, answers market status and market sql, and stops on SIGINT', async () => {
    const warehouse = join(dir, 'run-warehouse.duckdb');
    const child = spawnMarket([
      'run',
      '--port',
      '0',
      '--db',
      join(dir, 'run.duckdb'),
      '--warehouse',
      warehouse,
      '--listings',
      '300',
    ]);
    const lines: string[] = [];
    child.stdout?.on('data', (d) => lines.push(String(d)));
    await waitForLine(child, /^stop with Ctrl-C/);
    const printed = lines.join('');
    const buyLine = /^buy one: curl.*$/m.exec(printed)?.[0] ?? '';
    const traderAccount = /demo trader on an account of its own \((acc_\w+)\)/.exec(printed)?.[1] ?? '';
    const demoKey = /Bearer (svc_pub_\S+)"/.exec(buyLine)?.[1] ?? '';
    const baseUrl = /"(http:\S+\/v1)\/orders"$/.exec(buyLine)?.[1] ?? '';
    const headers = { authorization: `Bearer ${demoKey}`, 'content-type': 'application/json' };
    const page = (await (await fetch(`${baseUrl}/listings?limit=1`, { headers })).json()) as {
      items: { id: string }[];
    };
    const [first] = page.items;
    const order = await fetch(`${baseUrl}/orders`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ listing_ids: [first?.id], custom_id: 'demo-order' }),
    });
    expect(order.status).toBe(201);
    const root = baseUrl.replace(/\/v1$/, '');
    const traderKey = (
      (await (
        await fetch(`${root}/sandbox/accounts/${traderAccount}/keys`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"label":"test"}',
        })
      ).json()) as { api_key: string }
    ).api_key;
    const count = 'SELECT count(*) AS n FROM live_listings';
    // Asked in-process until the first sweep has landed; then `market sql` once, to see it answer.
    await expect
      .poll(async () => Number((await askCollector(warehouse, count))[0]?.n ?? 0) > 0, { timeout: 20_000 })
      .toBe(true);
    const answer = await runMarket(['sql', '--warehouse', warehouse, '--format', 'json', count]);
    expect(answer.code).toBe(0);
    expect(Number(JSON.parse(answer.stdout)[0]?.n)).toBeGreaterThan(0);
    const status = await runMarket(['status', '--warehouse', warehouse, '--json']);
    expect(status.code).toBe(0);
    const body = JSON.parse(status.stdout) as {
      pid: number;
      sources: { name: string; stopped: string | null }[];
    };
    expect(body.pid).toBe(child.pid);
    expect(body.sources.map((s) => s.name)).toEqual(
      expect.arrayContaining([
        'stream',
        'snapshot',
        'poll:730',
        'sweep:730',
        'sweep:570',
        'sweep:252490',
        'fx',
        'account',
      ]),
    );
    expect(body.sources.every((s) => s.stopped === null)).toBe(true);
    // The demo trader's orders land through the account source, and once it has caught up with the
    // ledger, fct_account_daily's last day closes at the trader's GET /balance, to the cent.
    const balanceOf = async (key = traderKey) =>
      (
        (await (
          await fetch(`${baseUrl}/balance`, { headers: { authorization: `Bearer ${key}` } })
        ).json()) as {
          balance_usd: number;
        }
      ).balance_usd;
    // The demo trader moves the balance every few seconds: the model built from the landed ledger
    // must close at GET /balance as it was just before or just after the build.
    const closingAndBalance = async () => {
      const before = (await balanceOf()).toFixed(2);
      const built = await runMarket([
        'models',
        'run',
        '--warehouse',
        warehouse,
        '--select',
        'fct_account_daily',
      ]);
      expect(built.code).toBe(0);
      const [last] = await askCollector(
        warehouse,
        'SELECT CAST(closing_balance_usd AS VARCHAR) AS c FROM fct_account_daily ORDER BY day DESC LIMIT 1',
      );
      const closing = last?.c;
      const after = (await balanceOf()).toFixed(2);
      return { closing, balance: closing === before ? before : after };
    };
    // Built again (every 2 s, for a minute at most) until no trade lands during a build.
    await vi.waitFor(
      async () => {
        const { closing, balance } = await closingAndBalance();
        expect(closing).toBe(balance);
      },
      { timeout: 60_000, interval: 2000 },
    );
    const orders = await askCollector(
      warehouse,
      "SELECT count(DISTINCT object_id) AS n FROM account_states WHERE kind = 'order'",
    );
    expect(Number(orders[0]?.n)).toBeGreaterThanOrEqual(1);
    // The user's account is theirs alone: its ledger holds the opening deposit and their one order.
    const userLedger = (await (await fetch(`${baseUrl}/transactions`, { headers })).json()) as {
      data: { order_id: string | null }[];
    };
    const userOrders = new Set(userLedger.data.map((t) => t.order_id).filter(Boolean));
    expect(userOrders.size).toBe(1);
    const text = await runMarket(['status', '--warehouse', warehouse]);
    expect(text.stdout).toMatch(
      /^stream\s+(connected|disconnected) (ok|warn|error) age=\d+s received=\d+ landed=\d+/m,
    );
    expect(text.stdout).toMatch(/^models\s+built=\d+ rows/m);
    expect(text.stdout).toMatch(/^export\s+exported=\d+ rows/m);
    const help = await runMarket(['status', '--help']);
    expect(help.stdout).toContain('landed=N       rows committed to the warehouse');
    child.kill('SIGINT');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    const after = await runMarket(['status', '--warehouse', warehouse]);
    expect(after.code).toBe(2);
    expect(after.stderr).toContain('no collector is running');
    // Room for a loaded machine: it spawns the CLI a dozen times while the demo trader trades.
  }, 150_000);
});
