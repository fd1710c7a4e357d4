/**
 * A long analyst query and the collector: while `market sql` streams a big answer out of a running
 * `market collect` (a million rows of 200 bytes, the shape of a CSV export), every source keeps
 * landing on its schedule (no source's last success gets older than its warn age, which the test
 * sets tight: a few runs of each schedule) and the daemon's memory stays bounded (its peak RSS,
 * `VmHWM`, grows by less than a fixed bound while 200 MB pass through it).
 */

import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlClient } from '../../src/cli/control-client.js';
import type { SourceStatus } from '../../src/collector/index.js';
import { spawnCollector, spawnMarket } from '../helpers/cli.js';
import { holdsWarehouse, stopChild } from '../helpers/crash.js';
import { startTestService, type TestService } from '../helpers/service.js';

/** Ages (s) past which the test calls a source late: a few runs of the schedules spawnCollector sets. */
const WARN = { stream: 10, poll: 10, sweep: 15, prices: 15, fx: 15, snapshot: 15, account: 10 };
/** What the daemon's peak RSS may grow by while the answer streams (200 MB pass through it). */
const RSS_GROWTH_MB = 180;

let t: TestService;
let collector: ChildProcess;
let warehouse: string;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  t = await startTestService({ listings: 300, churnRate: 5, churnPaused: false });
  const { key } = await t.account({ balance_usd: 10 });
  warehouse = join(t.dir, 'warehouse.duckdb');
  const freshness = Object.entries(WARN).flatMap(([source, s]) => ['--freshness', `${source}=${s}/${2 * s}`]);
  collector = spawnCollector(t.baseUrl, key, warehouse, [
    ...['--games', '730', '--account-seconds', '2', '--models-cron', 'off', '--log-level', 'error'],
    ...freshness,
  ]);
  children.add(collector);
  await holdsWarehouse(warehouse);
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await t?.close();
});

/** The collector's peak resident memory so far, in MB (Linux). */
function peakRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'));
  return Number(line?.match(/(\d+)/)?.[1] ?? 0) / 1024;
}

describe('a long analyst query while collecting', () => {
  it('leaves every source on schedule and the daemon in bounded memory', async () => {
    const control = await ControlClient.find(warehouse);
    if (!control) throw new Error('no collector answers on the warehouse');
    // Every source has succeeded once before the query starts.
    await expect
      .poll(async () => (await control.status()).sources.filter((s) => s.freshness && !s.lastSuccessAt), {
        timeout: 60_000,
        interval: 250,
      })
      .toEqual([]);
    const pid = collector.pid ?? 0;
    const rssBefore = peakRssMb(pid);
    const query = "SELECT range AS n, repeat('x', 200) AS s FROM range(1000000)";
    const sql = spawnMarket(['sql', query, '--format', 'csv', '--warehouse', warehouse]);
    children.add(sql);
    let bytes = 0;
    sql.stdout?.on('data', (d: Buffer) => {
      bytes += d.length;
    });
    let stderr = '';
    sql.stderr?.on('data', (d) => {
      stderr += d;
    });
    const ended = once(sql, 'exit');
    let done = false;
    void ended.then(() => {
      done = true;
    });
    /** Per source, the oldest age of its last success seen while the query ran. */
    const oldest = new Map<string, number>();
    const late: SourceStatus[] = [];
    let samples = 0;
    while (!done) {
      for (const s of (await control.status()).sources) {
        if (!s.freshness) continue;
        oldest.set(s.name, Math.max(oldest.get(s.name) ?? 0, s.freshness.ageSeconds));
        if (s.freshness.state !== 'ok') late.push(s);
      }
      samples += 1;
      await Promise.race([ended, new Promise((r) => setTimeout(r, 250))]);
    }
    const [code] = await ended;
    const growth = peakRssMb(pid) - rssBefore;
    console.info(
      `long-query: ${samples} samples, oldest ages ${JSON.stringify(Object.fromEntries(oldest))}, peak RSS +${growth.toFixed(0)} MB (from ${rssBefore.toFixed(0)} MB)`,
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(bytes).toBeGreaterThan(200_000_000);
    expect(samples).toBeGreaterThan(4);
    expect(late.map((s) => `${s.name} ${s.freshness?.state} age=${s.freshness?.ageSeconds}`)).toEqual([]);
    expect(growth).toBeLessThan(RSS_GROWTH_MB);
    await stopChild(collector, 'SIGTERM', children);
  }, 300_000);
});
