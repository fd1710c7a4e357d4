import type { ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Random } from '../../src/service/sim/random.js';
import { spawnCollector } from '../helpers/cli.js';
import { holdsWarehouse, stopChild } from '../helpers/crash.js';
import { askLiveSet, followLiveSet, isFresh, type LiveReference } from '../helpers/live-reference.js';
import { startTestService, type TestService } from '../helpers/service.js';

const KILLS = 3;
const CS2 = 730;

let service: TestService | undefined;
const children = new Set<ChildProcess>();
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await service?.close();
});

/** Whether the collector's live set is the service's at the position it landed, that position at least `since`. */
async function freshSince(warehousePath: string, reference: LiveReference, since: number): Promise<boolean> {
  const landed = await askLiveSet(warehousePath, CS2);
  return landed !== null && landed.position >= since && isFresh(reference, landed, 2000);
}

describe('the live set after kill -9 of the collector', () => {
  it(`equals the service's again after each of ${KILLS} restarts under churn`, async () => {
    service = await startTestService({ listings: 1500, churnRate: 30, churnPaused: true });
    const t = service;
    const { key } = await t.account({ balance_usd: 10 });
    const reference = await followLiveSet(t.service, CS2, key);
    await t.sandbox('/simulator', { paused: false, rate_per_second: 30 });
    const warehousePath = join(t.dir, 'warehouse.duckdb');
    const start = () => {
      const child = spawnCollector(t.baseUrl, key, warehousePath, [
        '--games',
        String(CS2),
        '--models-cron',
        'off',
      ]);
      children.add(child);
      return child;
    };
    const random = new Random(31);
    let collector = start();
    for (let kill = 0; kill <= KILLS; kill++) {
      const since = reference.head();
      await holdsWarehouse(warehousePath);
      await expect
        .poll(() => freshSince(warehousePath, reference, since), { timeout: 90_000, interval: 250 })
        .toBe(true);
      if (kill === KILLS) break;
      // Kill it while it works, at a random moment after it caught up.
      await new Promise((r) => setTimeout(r, 200 + random.next() * 1500));
      await stopChild(collector, 'SIGKILL', children);
      await rm(`${warehousePath}.collector.json`, { force: true });
      collector = start();
    }
    await t.sandbox('/simulator', { paused: true });
    await stopChild(collector, 'SIGTERM', children);
    expect(collector.exitCode).toBe(0);
    reference.stop();
  }, 400_000);
});
