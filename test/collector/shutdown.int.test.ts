/**
 * SIGTERM ends a real collector process promptly whatever it waits for (a deep queue on the key's
 * budget, a long Retry-After of the service), with exit code 0 and everything it landed committed.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { controlFileOf } from '../../src/collector/control/protocol.js';
import { Warehouse } from '../../src/warehouse/index.js';
import { askCollector, spawnCollector } from '../helpers/cli.js';
import { startTestService, type TestService } from '../helpers/service.js';

/** Longer than a healthy shutdown could ever need, far shorter than the waits the collector is in. */
const EXIT_BOUND_MS = 15_000;

let t: TestService | null = null;
let child: ChildProcess | null = null;
afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = null;
  await t?.close();
  t = null;
});

/** Resolves with the exit code, or rejects when the process has not exited within the bound. */
function exitWithin(process: ChildProcess, ms: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`still running ${ms} ms after SIGTERM`)), ms);
    process.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

const WAITS = [
  {
    what: 'a deep queue on the key budget (8 reads a minute for every source of three games)',
    readLimit: 1_000_000,
    readBudget: '8',
  },
  {
    what: 'a long Retry-After (the service allows 6 reads a minute)',
    readLimit: 6,
    readBudget: '100000',
  },
];

describe('stopping the collector', () => {
  it.each(WAITS)(
    'exits 0 at once on SIGTERM during $what, with what it landed committed',
    async (wait) => {
      t = await startTestService({ listings: 3000, rateLimits: { read: wait.readLimit } });
      const { key } = await t.account({ balance_usd: 50 });
      const warehousePath = join(t.dir, 'warehouse.duckdb');
      const collector = spawnCollector(t.baseUrl, key, warehousePath, [
        ...['--cs2-sweep-seconds', '1', '--prices-seconds', '1', '--fx-seconds', '1'],
        ...['--read-budget', wait.readBudget],
      ]);
      child = collector;
      let stderr = '';
      collector.stderr?.on('data', (d) => {
        stderr += d;
      });
      await expect.poll(() => existsSync(controlFileOf(warehousePath)), { timeout: 30_000 }).toBe(true);
      // Some pages landed, and the budget (or the service's limit) now holds every source back.
      const landedRows = async () =>
        Number(
          (await askCollector(warehousePath, 'SELECT count(*) AS n FROM listing_observations'))[0]?.n ?? 0,
        );
      await expect.poll(async () => (await landedRows()) > 0, { timeout: 30_000 }).toBe(true);
      await new Promise((r) => setTimeout(r, 1500));
      const before = await landedRows();
      const [loads] = await askCollector(warehousePath, 'SELECT count(*) AS n FROM loads');
      const signalledAt = performance.now();
      collector.kill('SIGTERM');
      const code = await exitWithin(collector, EXIT_BOUND_MS);
      const tookMs = Math.round(performance.now() - signalledAt);
      process.stdout.write(`shutdown during ${wait.what}: exit code ${code} after ${tookMs} ms\n`);
      expect(code, stderr).toBe(0);
      const warehouse = await Warehouse.open(warehousePath, { readOnly: true });
      try {
        const [after] = await warehouse.query(
          'SELECT (SELECT count(*) FROM listing_observations) AS rows, (SELECT count(*) FROM loads) AS loads',
        );
        expect(Number(after?.rows)).toBeGreaterThanOrEqual(before);
        expect(Number(after?.loads)).toBeGreaterThanOrEqual(Number(loads?.n));
      } finally {
        await warehouse.close();
      }
    },
    90_000,
  );
});
