/**
 * A local attacker against a real `market collect` process and its control endpoint: no token, a
 * foreign Host, a web page's blind post, COPY, read_text, read_blob, SET and a runaway query all
 * fail, while `market sql` keeps working; SIGTERM still ends the daemon promptly while a query runs.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ControlClient } from '../../src/cli/control-client.js';
import { type ControlFile, controlFileOf } from '../../src/collector/control/protocol.js';
import { runMarket, spawnCollector } from '../helpers/cli.js';
import { startTestService, type TestService } from '../helpers/service.js';

let t: TestService;
let collector: ChildProcess;
let warehouse: string;
let control: ControlFile;

beforeAll(async () => {
  t = await startTestService({ listings: 200, rateLimits: { read: 1_000_000 } });
  const { key } = await t.account({ balance_usd: 10 });
  warehouse = join(t.dir, 'warehouse.duckdb');
  await writeFile(join(t.dir, 'secret.txt'), 'the analyst keeps this\n');
  collector = spawnCollector(t.baseUrl, key, warehouse, ['--games', '570', '--no-account']);
  await vi.waitFor(() => expect(existsSync(controlFileOf(warehouse))).toBe(true), {
    timeout: 30_000,
  });
  control = JSON.parse(readFileSync(controlFileOf(warehouse), 'utf8')) as ControlFile;
}, 60_000);
afterAll(async () => {
  if (collector && collector.exitCode === null && collector.signalCode === null) collector.kill('SIGKILL');
  await t?.close();
});

/** POSTs text to the daemon's /sql as an attacker chooses the headers. */
async function post(headers: Record<string, string>, body: string) {
  const answer = await request(`http://127.0.0.1:${control.port}/sql`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', ...headers },
    body,
  });
  return { status: answer.statusCode, body: (await answer.body.json()) as { code: string; detail: string } };
}

describe('a local attacker against the running daemon', () => {
  it('finds a control file only the owner can read', () => {
    expect((statSync(controlFileOf(warehouse)).mode & 0o777).toString(8)).toBe('600');
  });

  it.each([
    ['no token', {}, 401],
    ['a foreign Host', { host: 'rebind.attacker.example' }, 403],
    ['an Origin (a web page posting text/plain blind)', { origin: 'https://attacker.example' }, 403],
  ])('is refused with %s', async (_, headers, status) => {
    const target = join(t.dir, 'stolen.csv');
    const answer = await post(
      status === 401 ? headers : { ...headers, authorization: `Bearer ${control.token}` },
      `COPY (SELECT 'id') TO '${target}'`,
    );
    expect(answer.status).toBe(status);
    expect(answer.body).toEqual({
      code: status === 401 ? 'unauthorized' : 'forbidden',
      detail: expect.any(String),
    });
    expect(existsSync(target)).toBe(false);
  });

  it.each([
    ['COPY', "COPY (SELECT 'id') TO '{dir}/copied.csv'", /only a single read-only query/],
    ['EXPLAIN ANALYZE COPY', "EXPLAIN ANALYZE COPY (SELECT 'id') TO '{dir}/explained.csv'", /only a single/],
    ['read_text', "SELECT * FROM read_text('/etc/passwd')", /Permission Error/],
    ['read_blob', "SELECT * FROM read_blob('{dir}/secret.txt')", /Permission Error/],
    ['SET', 'EXPLAIN ANALYZE SET GLOBAL threads = 64', /only a single read-only query/],
    ['RESET', 'RESET memory_limit', /only a single read-only query/],
  ])('cannot use %s even with the token, through market sql', async (_, template, message) => {
    const result = await runMarket(['sql', template.replaceAll('{dir}', t.dir), '--warehouse', warehouse]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/analyst keeps|root:/);
    expect(existsSync(join(t.dir, 'copied.csv'))).toBe(false);
    expect(existsSync(join(t.dir, 'explained.csv'))).toBe(false);
  });

  it('cannot keep a runaway query going past its deadline; the daemon then still answers', async () => {
    const runaway = await runMarket([
      'sql',
      'SELECT count(*) FROM range(1000000000000)',
      '--query-timeout',
      '1',
      '--warehouse',
      warehouse,
    ]);
    expect(runaway.stderr).toMatch(/the query gave no row for 1 s and was interrupted/);
    const setting = await runMarket([
      'sql',
      "SELECT current_setting('memory_limit') AS m, current_setting('lock_configuration') AS locked",
      '--format',
      'csv',
      '--warehouse',
      warehouse,
    ]);
    expect(setting.code).toBe(0);
    expect(setting.stdout).toMatch(/^m,locked\n.+,true\n$/);
  });

  it('applies what lands and checkpoints at the calm threshold once its writes are small, the lock-down notwithstanding', async () => {
    // Each apply raises the threshold around its commit and sets the one in force back: refused
    // by the lock-down, no apply would end and the payloads would stay uncounted. A trickle is
    // applied every 5 s: no load waits much longer.
    const state = () =>
      runMarket([
        'sql',
        `SELECT current_setting('checkpoint_threshold') AS t,
                (SELECT count(*) FROM live_set_pending WHERE ingested_at < (now() AT TIME ZONE 'UTC') - INTERVAL 15 SECOND) = 0 AS applied,
                (SELECT coalesce(sum(payloads), 0) FROM payload_checks) > 0 AS counted`,
        '--format',
        'csv',
        '--warehouse',
        warehouse,
      ]).then((r) => r.stdout);
    // 16MB, as DuckDB prints it; a file opens at the burst's 64MB.
    await vi.waitFor(async () => expect(await state()).toBe('t,applied,counted\n15.2 MiB,true,true\n'), {
      timeout: 20_000,
      interval: 500,
    });
    expect(collector.exitCode).toBeNull();
  });
});

describe('stopping the daemon while a query runs', () => {
  it('exits 0 within 5 s of SIGTERM, the query ending with a message', async () => {
    const client = await ControlClient.find(warehouse);
    if (!client) throw new Error('no collector answers');
    const query = client.query('SELECT count(*) FROM range(1000000000000)').then(
      () => 'answered',
      (error: Error) => error.message,
    );
    // The query is under way a moment after it is sent.
    await new Promise((r) => setTimeout(r, 1_000));
    const exited = new Promise<number | null>((resolve) => collector.once('exit', (code) => resolve(code)));
    collector.kill('SIGTERM');
    const bound = new Promise<string>((r) => setTimeout(() => r('still running 5 s after SIGTERM'), 5_000));
    expect(await Promise.race([exited, bound])).toBe(0);
    expect(await query).toMatch(/the collector is stopping; the query was interrupted/);
  }, 30_000);
});
