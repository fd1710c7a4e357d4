/**
 * `market status --check` as cron, systemd or Nagios run it: 0 while every source is fresh, 2 once
 * the upstream stops answering for longer than a source's error age (the service frozen with
 * SIGSTOP, the poll source's error age cut to 3 s with `--freshness`), 0 again when it returns;
 * 2 with no collector at all; within `--timeout` (as plain `market status` too) an answer while a
 * long query holds the collector's warehouse threads, and 2 when the collector itself is frozen
 * with SIGSTOP; no collector once it is killed, its control file left behind.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { controlFileOf } from '../../src/collector/control/protocol.js';
import { runMarket, spawnCollector } from '../helpers/cli.js';
import { holdsWarehouse, stopChild } from '../helpers/crash.js';
import { type KillableService, killableService } from '../helpers/killable-service.js';

let service: KillableService;
let dir: string;
let warehouse: string;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  service = await killableService(['--listings', '200']);
  await service.start();
  dir = await mkdtemp(join(tmpdir(), 'market-check-'));
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await service?.cleanUp();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** `market status --check` on the warehouse: its exit code and lines. */
async function check(): Promise<{ code: number | null; stdout: string }> {
  const { code, stdout } = await runMarket(['status', '--check', '--warehouse', warehouse]);
  return { code, stdout };
}

describe('market status --check', () => {
  it('exits 2 with no collector', async () => {
    warehouse = join(dir, 'none.duckdb');
    const answer = await check();
    expect(answer.code).toBe(2);
    expect(answer.stdout).toMatch(/^collector error: no collector is running on /);
  });

  it('goes from 0 to 2 while the upstream is frozen past the error age, and back to 0', async () => {
    warehouse = join(dir, 'warehouse.duckdb');
    const { key } = await service.t.account({ balance_usd: 10 });
    const collector = spawnCollector(`${service.origin}/v1`, key, warehouse, [
      ...['--games', '730', '--models-cron', 'off', '--freshness', 'poll=1/3'],
    ]);
    children.add(collector);
    await holdsWarehouse(warehouse);
    await vi.waitFor(async () => expect((await check()).code).toBe(0), { timeout: 30_000, interval: 500 });
    service.signal('SIGSTOP');
    try {
      // One check must both exit 2 and name the poll in error: a poll answered just before the
      // freeze may still land, so a later check alone could see the poll merely in warn.
      await vi.waitFor(
        async () => {
          const frozen = await check();
          expect(frozen.code).toBe(2);
          expect(frozen.stdout).toMatch(/^poll:730 error: last success \d+s ago \(error past 3s\)/m);
        },
        { timeout: 30_000, interval: 500 },
      );
    } finally {
      service.signal('SIGCONT');
    }
    await vi.waitFor(async () => expect((await check()).code).toBe(0), { timeout: 60_000, interval: 500 });
    await stopChild(collector, 'SIGTERM', children);
  });

  it('answers within its --timeout: 0 while the collector is busy, 2 while it is frozen', async () => {
    warehouse = join(dir, 'frozen.duckdb');
    const { key } = await service.t.account({ balance_usd: 10 });
    // One thread for DuckDB's calls (libuv's pool), so that one long query holds them all.
    const collector = spawnCollector(`${service.origin}/v1`, key, warehouse, ['--models-cron', 'off'], {
      UV_THREADPOOL_SIZE: '1',
    });
    children.add(collector);
    await holdsWarehouse(warehouse);
    const answers = async () =>
      (await runMarket(['status', '--timeout', '2', '--warehouse', warehouse])).code;
    await vi.waitFor(async () => expect(await answers()).toBe(0), { timeout: 30_000, interval: 500 });
    // Busy is not hung: while a query holds the warehouse's threads, status still answers in time.
    let querying = true;
    const long = runMarket([
      ...['sql', '--warehouse', warehouse, '--query-timeout', '4'],
      'SELECT count(*) FROM range(20000000000) t(x) WHERE x % 7 = 3',
    ]).finally(() => {
      querying = false;
    });
    const busy: (number | null)[] = [];
    while (querying) busy.push(await answers());
    await long;
    expect(busy.length).toBeGreaterThan(1);
    expect(busy.filter((code) => code !== 0)).toEqual([]);
    collector.kill('SIGSTOP');
    try {
      // The kernel still accepts connections on the frozen daemon's port: only a deadline ends the wait.
      const frozen = await runMarket(['status', '--check', '--timeout', '1', '--warehouse', warehouse]);
      expect(frozen.code).toBe(2);
      expect(frozen.stdout).toMatch(
        new RegExp(
          `^collector error: the collector is not answering \\(pid ${collector.pid}\\) on port \\d+: no answer within 1s$`,
          'm',
        ),
      );
      // The default deadline (5 s) holds as well: on its own, the check never hangs with the daemon.
      expect((await check()).stdout).toMatch(
        /^collector error: the collector is not answering .*within 5s$/m,
      );
      const plain = await runMarket(['status', '--timeout', '1', '--warehouse', warehouse]);
      expect(plain.code).toBe(2);
      expect(plain.stderr).toMatch(
        /the collector is not answering \(pid \d+\) on port \d+: no answer within 1s/,
      );
    } finally {
      collector.kill('SIGCONT');
    }
    // Killed, it leaves its control file behind, and holds nothing: no collector, not a hung one.
    await stopChild(collector, 'SIGKILL', children);
    expect(existsSync(controlFileOf(warehouse))).toBe(true);
    const gone = await runMarket(['status', '--timeout', '1', '--warehouse', warehouse]);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain(`no collector is running on ${warehouse}`);
  });
});
