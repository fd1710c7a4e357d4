import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTOR_DEFAULTS } from '../../src/collector/collector-options.js';
import type { RunningCollector } from '../../src/collector/daemon.js';
import { Warehouse } from '../../src/warehouse/index.js';
import { WAREHOUSE_DEFAULTS } from '../../src/warehouse/warehouse-options.js';
import { churnUntil } from '../helpers/churn.js';
import {
  apiLiveIds,
  startTestCollector,
  waitForStreamHead,
  waitForSweeps,
  warehouseLiveIds,
} from '../helpers/collector.js';
import { startTestService, type TestService } from '../helpers/service.js';

const GAMES = [730, 570, 252490];

describe('the collector against the real service', () => {
  let t: TestService;
  let key: string;
  let collector: RunningCollector | null = null;

  beforeAll(async () => {
    t = await startTestService({ listings: 1500, rateLimits: { read: 1_000_000 } });
    ({ key } = await t.account({ balance_usd: 50 }));
  });
  afterAll(async () => {
    await collector?.stop();
    await t.close();
  });

  it('lands every source and ends with exactly the live listings of every game', async () => {
    collector = await startTestCollector(t, key);
    const active = collector;
    await churnUntil(t, { changes: 60, rate: 100, appId: 730 });
    const pausedAt = Date.now();
    await waitForStreamHead(t, collector);
    await waitForSweeps(collector, GAMES, pausedAt);
    // Every source runs once at start; these wait for the slowest of those first runs to land.
    const rowsOf = (sql: string) => active.warehouse.query(sql);
    await expect
      .poll(async () => (await rowsOf('SELECT 1 FROM price_snapshots LIMIT 1')).length > 0, {
        timeout: 15_000,
      })
      .toBe(true);
    await expect
      .poll(async () => (await rowsOf('SELECT DISTINCT app_id FROM minask_prices')).length === 3, {
        timeout: 15_000,
      })
      .toBe(true);
    await expect
      .poll(async () => (await rowsOf('SELECT DISTINCT currency FROM fx_rates')).length === 20, {
        timeout: 15_000,
      })
      .toBe(true);
    for (const appId of GAMES)
      expect(await warehouseLiveIds(collector, appId)).toEqual(await apiLiveIds(t, key, appId));

    const [events] = await collector.warehouse.query(
      'SELECT count(*) AS n, count(DISTINCT event_id) AS distinct_ids FROM listing_events',
    );
    expect(Number(events?.n)).toBeGreaterThan(50);
    expect(Number(events?.distinct_ids)).toBe(Number(events?.n));
    const [snapshots] = await collector.warehouse.query(
      'SELECT count(*) AS n, count(DISTINCT etag) AS etags FROM price_snapshots',
    );
    expect(Number(snapshots?.n)).toBeGreaterThan(0);
    const fetches = await collector.warehouse.query(
      'SELECT status, count(*) AS n FROM snapshot_fetches GROUP BY status',
    );
    expect(fetches.map((r) => r.status)).toContain('downloaded');
    const minask = await collector.warehouse.query(
      'SELECT app_id, count(*) AS n FROM minask_prices GROUP BY app_id ORDER BY app_id',
    );
    expect(minask.map((r) => Number(r.app_id))).toEqual([570, 730, 252490]);
    const [fx] = await collector.warehouse.query('SELECT count(DISTINCT currency) AS n FROM fx_rates');
    expect(Number(fx?.n)).toBe(20);
    const statuses = collector.status();
    expect(statuses.find((s) => s.name === 'stream')?.connected).toBe(true);
    expect(statuses.every((s) => s.stopped === null)).toBe(true);
  });

  it("gives DuckDB the daemon's memory limit, not a one-off command's", async () => {
    const active = collector as RunningCollector;
    const [limit] = await active.warehouse.query("SELECT current_setting('memory_limit') AS v");
    // 512MB is 512,000,000 bytes, which DuckDB shows in MiB (1GB, a one-off command's, as 953.6 MiB).
    expect(limit?.v).toBe('488.2 MiB');
    expect(COLLECTOR_DEFAULTS.warehouse.memoryLimit).toBe('512MB');
  });

  it('gives an incremental model built in full its own memory limit, for its length alone', async () => {
    // An analyst's model that records the limit each of its builds ran under.
    const models = await mkdtemp(join(tmpdir(), 'memory-models-'));
    await writeFile(
      join(models, 'memory_seen.sql'),
      "-- The memory limit of each build.\n-- materialized: incremental\n-- unique_key: m\nSELECT current_setting('memory_limit') AS m\n",
    );
    const daemon = await startTestCollector(t, key, {
      warehouse: { path: join(models, 'w.duckdb'), modelsDir: models },
      work: { modelsCron: null },
    });
    try {
      const seen = async () =>
        (await daemon.warehouse.query('SELECT m FROM memory_seen ORDER BY m')).map((row) => row.m);
      // 640MB, the full builds' limit, shows as 610.3 MiB; the daemon's 512MB as 488.2 MiB.
      await daemon.warehouse.refreshModels();
      expect(await seen()).toEqual(['610.3 MiB']);
      await daemon.warehouse.refreshModels();
      expect(await seen()).toEqual(['488.2 MiB', '610.3 MiB']);
      await daemon.warehouse.refreshModels({ fullRefresh: true });
      expect(await seen()).toEqual(['610.3 MiB']);
      const [after] = await daemon.warehouse.query("SELECT current_setting('memory_limit') AS v");
      expect(after?.v).toBe('488.2 MiB');
      expect(WAREHOUSE_DEFAULTS.fullBuildMemoryLimit).toBe('640MB');
    } finally {
      await daemon.stop();
      await rm(models, { recursive: true, force: true });
    }
  });

  it('records an unchanged snapshot as unchanged (304)', async () => {
    const active = collector as RunningCollector;
    const unchanged = async () => {
      const [row] = await active.warehouse.query(
        "SELECT count(*) AS n FROM snapshot_fetches WHERE status = 'unchanged'",
      );
      return Number(row?.n);
    };
    await expect.poll(unchanged, { timeout: 15_000, interval: 250 }).toBeGreaterThan(0);
  });

  it('resumes from the stored Last-Event-ID after a restart, with nothing lost or landed twice', async () => {
    await collector?.stop();
    collector = null;
    // The market moves on while no collector runs: the restarted one must resume from there.
    await churnUntil(t, { changes: 60, rate: 150, appId: 730 });
    collector = await startTestCollector(t, key);
    await waitForStreamHead(t, collector);
    const [events] = await collector.warehouse.query(
      'SELECT count(*) AS n, count(DISTINCT event_id) AS d FROM listing_events',
    );
    expect(Number(events?.d)).toBe(Number(events?.n));
    const log = t.service.context.catalogue.log;
    const logged = await t.service.context.db.read<{ n: number }>(
      `SELECT count(*) AS n FROM listing_events WHERE app_id = 730 AND position > 0`,
    );
    expect(Number(events?.n)).toBeLessThanOrEqual(Number(logged[0]?.n));
    expect(log.head).toBeGreaterThan(0);
    expect(await warehouseLiveIds(collector, 730)).toEqual(await apiLiveIds(t, key, 730));
  });
});

/**
 * Lands some CS2 events with a first collector, then, with no collector running, lets more CS2
 * events happen than the service's 20 retained rows, so the stored id is pruned and the next
 * collector's stream meets a resync. Returns the CS2 listings that appeared meanwhile.
 */
async function openResyncGap(t: TestService, key: string): Promise<Set<string>> {
  const first = await startTestCollector(t, key, { sources: { games: [730] } });
  try {
    await churnUntil(t, { changes: 30, rate: 100, appId: 730 });
    await waitForStreamHead(t, first);
  } finally {
    await first.stop();
  }
  const appeared = new Set<string>();
  const unsubscribe = t.service.context.catalogue.onChange((changes) => {
    for (const c of changes) if (c.kind === 'add' && c.entry.appId === 730) appeared.add(c.entry.id);
  });
  await churnUntil(t, { changes: 60, rate: 100, appId: 730 });
  unsubscribe();
  await t.service.context.catalogue.log.prune(t.clock.now());
  return appeared;
}

describe('stream recovery', () => {
  it('closes the gap of a resync at once with a targeted catch-up, then follows the stream live again', async () => {
    // 4000 listings: a full read of CS2 is 16 pages. The restarted collector's budget (30 reads a
    // minute) holds its own sweep and one run of every other source, with room left for the few
    // pages listed since the last landed event, but not for a second full read of the catalogue.
    const t = await startTestService({
      listings: 4000,
      retention: { maxRows: 20 },
      rateLimits: { read: 1_000_000 },
    });
    const { key } = await t.account({ balance_usd: 5 });
    let collector: RunningCollector | null = null;
    try {
      const appeared = await openResyncGap(t, key);
      const live = new Set(await apiLiveIds(t, key, 730));
      const inGap = [...appeared].filter((id) => live.has(id)).sort();
      expect(inGap.length).toBeGreaterThan(5);

      const restartedAt = performance.now();
      const once = 600_000;
      collector = await startTestCollector(t, key, {
        api: { readBudget: 30 },
        sources: {
          games: [730],
          pollIntervalMs: once,
          cs2SweepIntervalMs: once,
          pricesIntervalMs: once,
          fxIntervalMs: once,
        },
      });
      const running = collector;
      const caughtUp = async () => {
        const gaps = await running.warehouse.query(
          "SELECT rows, detail FROM ingest_gaps WHERE kind = 'catch_up'",
        );
        const ids = new Set((await warehouseLiveIds(running, 730)).filter((id) => appeared.has(id)));
        return gaps.length === 1 && inGap.every((id) => ids.has(id));
      };
      await expect.poll(caughtUp, { timeout: 15_000 }).toBe(true);
      const tookMs = Math.round(performance.now() - restartedAt);
      process.stdout.write(
        `resync: ${inGap.length} listings of the gap caught up ${tookMs} ms after the restart\n`,
      );
      const [gap] = await collector.warehouse.query(
        "SELECT rows, detail FROM ingest_gaps WHERE kind = 'catch_up'",
      );
      expect(String(gap?.detail)).toMatch(/^resync: .*re-read the listings listed since /);
      // A few pages since the last landed event, not the whole catalogue.
      expect(Number(gap?.rows)).toBeGreaterThanOrEqual(inGap.length);
      expect(Number(gap?.rows)).toBeLessThan(live.size / 2);
      const caughtUpIds = await collector.warehouse.query(
        "SELECT DISTINCT listing_id FROM listing_observations WHERE via = 'catch_up'",
      );
      expect(inGap.every((id) => caughtUpIds.some((r) => r.listing_id === id))).toBe(true);
      // Reconnected without Last-Event-ID: what happens next comes through the stream again.
      await churnUntil(t, { changes: 10, rate: 100, appId: 730 });
      await waitForStreamHead(t, collector, 15_000);
    } finally {
      await collector?.stop();
      await t.close();
    }
  });

  it('owes the catch-up of a resync across a restart until it has landed', async () => {
    const t = await startTestService({
      listings: 800,
      retention: { maxRows: 20 },
      rateLimits: { read: 1_000_000 },
    });
    const { key } = await t.account({ balance_usd: 5 });
    let collector: RunningCollector | null = null;
    try {
      await openResyncGap(t, key);
      // A collector whose budget is spent by its other sources at once: stopped once the resync
      // committed what it owes, before its catch-up could read anything.
      collector = await startTestCollector(t, key, { api: { readBudget: 1 }, sources: { games: [730] } });
      const owing = collector;
      await expect
        .poll(async () => Boolean((await owing.warehouse.readState('stream')).catch_up_after), {
          timeout: 15_000,
        })
        .toBe(true);
      await owing.stop();
      collector = null;
      const stopped = await Warehouse.open(owing.warehouse.path, { readOnly: true });
      const gapsBefore = await stopped.query(
        "SELECT count(*)::INT AS n FROM ingest_gaps WHERE kind = 'catch_up'",
      );
      await stopped.close();
      expect(gapsBefore).toEqual([{ n: 0 }]);

      collector = await startTestCollector(t, key, { sources: { games: [730] } });
      const resumed = collector;
      await expect
        .poll(async () => (await resumed.warehouse.readState('stream')).catch_up_after === '', {
          timeout: 15_000,
        })
        .toBe(true);
      const gaps = await resumed.warehouse.query("SELECT detail FROM ingest_gaps WHERE kind = 'catch_up'");
      expect(gaps.map((g) => String(g.detail))).toEqual([
        expect.stringMatching(/^resync \(resumed after a restart\); re-read/),
      ]);
    } finally {
      await collector?.stop();
      await t.close();
    }
  });

  it('reconnects a silent connection through the watchdog', async () => {
    const t = await startTestService({ listings: 200, heartbeatMs: 60_000 });
    const { key } = await t.account({ balance_usd: 5 });
    const collector = await startTestCollector(t, key, { sources: { games: [730], watchdogMs: 800 } });
    try {
      const reconnects = async () =>
        (await collector.warehouse.query("SELECT kind FROM ingest_gaps WHERE kind = 'watchdog_reconnect'"))
          .length;
      await expect.poll(reconnects, { timeout: 15_000, interval: 200 }).toBeGreaterThanOrEqual(2);
    } finally {
      await collector.stop();
      await t.close();
    }
  });
});

describe('an unfunded account', () => {
  it('reports the 402 on prices once and keeps collecting the rest', async () => {
    const t = await startTestService({ listings: 300, rateLimits: { read: 1_000_000 } });
    const { key } = await t.account({ balance_usd: 0 });
    const collector = await startTestCollector(t, key);
    try {
      await expect
        .poll(() => collector.status().filter((s) => s.stopped?.includes('402')).length >= 4, {
          timeout: 15_000,
        })
        .toBe(true);
      await waitForSweeps(collector, GAMES, 0);
      for (const appId of GAMES)
        expect(await warehouseLiveIds(collector, appId)).toEqual(await apiLiveIds(t, key, appId));
      const stopped = collector
        .status()
        .filter((s) => s.stopped !== null)
        .map((s) => s.name)
        .sort();
      expect(stopped).toEqual(['prices:252490', 'prices:570', 'prices:730', 'snapshot']);
      expect(collector.status().find((s) => s.name === 'stream')?.connected).toBe(true);
    } finally {
      await collector.stop();
      await t.close();
    }
  });
});
