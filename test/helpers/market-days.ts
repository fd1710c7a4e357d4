/**
 * A warehouse of several days of one market: the real service and the real collector in short
 * runs, one a day, the process's clock moved to the next day between runs, then the models built.
 */
import { vi } from 'vitest';
import type { RunningCollector } from '../../src/collector/daemon.js';
import { Warehouse } from '../../src/warehouse/index.js';
import { churnUntil } from './churn.js';
import { startTestCollector } from './collector.js';
import { startTestService, type TestService } from './service.js';

/** What {@link collectMarketDays} collects. */
export interface MarketDaysOptions {
  /** The instant each run starts at (ISO 8601 UTC), one run a day, in order. */
  runs: readonly string[];
  /** Listings the service generates. @default 600 */
  listings?: number;
  /** Changes the market makes in each run (listings appearing or leaving). @default 300 */
  changes?: number;
}

/**
 * Collects CS2 from a service into the warehouse at `warehousePath`, one short run at each instant
 * of `runs`: the collector starts (resuming from what it landed), the market changes, the collector
 * lands every change and a fresh snapshot, and stops. Then the models are built and the file closed.
 *
 * Both halves take their time from `Date` (the service through its clock, the collector directly),
 * so Vitest's fake `Date`, advancing with real time, stands each run on its day; timers stay real.
 */
export async function collectMarketDays(warehousePath: string, options: MarketDaysOptions): Promise<void> {
  const [first, ...later] = options.runs;
  if (first === undefined) throw new Error('collectMarketDays needs at least one run');
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true, now: Date.parse(first) });
  try {
    const t = await startTestService({
      listings: options.listings ?? 600,
      rateLimits: { read: 1_000_000, snapshot: 1000 },
      priceIntervalMs: 500,
    });
    try {
      const { key } = await t.account({ balance_usd: 50 });
      for (const run of [first, ...later]) {
        vi.setSystemTime(Date.parse(run));
        await collectOneRun(t, key, warehousePath, options.changes ?? 300);
      }
    } finally {
      await t.close();
    }
    const warehouse = await Warehouse.open(warehousePath);
    try {
      await warehouse.refreshModels();
    } finally {
      await warehouse.close();
    }
  } finally {
    vi.useRealTimers();
  }
}

/** One run: the collector resumes, the market makes `changes`, the collector lands them and a snapshot. */
async function collectOneRun(t: TestService, key: string, warehousePath: string, changes: number) {
  const collector = await startTestCollector(t, key, {
    warehouse: { path: warehousePath },
    sources: { games: [730] },
  });
  try {
    await churnUntil(t, { changes, rate: 200, appId: 730 });
    const pausedAt = Date.now();
    await waitForCaughtUp(t, collector);
    await waitForSnapshotAfter(collector.warehouse, pausedAt);
  } finally {
    await collector.stop();
  }
}

/**
 * Waits until the collector has landed the service's last CS2 event, read again at each look: a
 * tick of the churn in flight at its pause may still add events.
 */
async function waitForCaughtUp(t: TestService, collector: RunningCollector): Promise<void> {
  await vi.waitFor(
    async () => {
      const head = await t.service.context.catalogue.log.lastEventIdOf(730);
      const [row] = await collector.warehouse.query(
        "SELECT value FROM collector_state WHERE source = 'stream' AND key = 'last_event_id'",
      );
      if (row?.value !== head) throw new Error(`the stream landed up to ${row?.value}, not ${head} yet`);
    },
    { timeout: 30_000, interval: 100 },
  );
}

/** Waits until a snapshot has been fetched after `at` (epoch ms): the price list of the run's end. */
async function waitForSnapshotAfter(warehouse: Warehouse, at: number): Promise<void> {
  await vi.waitFor(
    async () => {
      const [row] = await warehouse.query('SELECT epoch_ms(max(fetched_at)) AS at FROM snapshot_fetches');
      if (!(Number(row?.at) > at + 1000)) throw new Error('no snapshot fetched after the run yet');
    },
    { timeout: 15_000, interval: 100 },
  );
}
