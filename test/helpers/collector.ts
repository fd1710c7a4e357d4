/** Runs the real collector in-process against a test service, with fast schedules, and checks the warehouse. */
import { join } from 'node:path';
import { expect, vi } from 'vitest';
import type {
  ApiOptions,
  CollectorOptions,
  SourceOptions,
  WarehouseFileOptions,
  WarehouseWorkOptions,
} from '../../src/collector/collector-options.js';
import { type RunningCollector, startCollector } from '../../src/collector/daemon.js';
import type { Listing } from '../../src/contract/listing.js';
import { readAllListings } from './listings.js';
import type { TestService } from './service.js';

/** Options of {@link startTestCollector}: each group merged over the test's own. */
export interface TestCollectorOptions
  extends Omit<CollectorOptions, 'api' | 'warehouse' | 'sources' | 'work'> {
  api?: Partial<ApiOptions>;
  warehouse?: WarehouseFileOptions;
  sources?: SourceOptions;
  work?: WarehouseWorkOptions;
}

/** Starts a collector on `<service dir>/warehouse.duckdb` with schedules measured in seconds. */
export function startTestCollector(
  t: TestService,
  key: string,
  options: TestCollectorOptions = {},
): Promise<RunningCollector> {
  const { api, warehouse, sources, work, ...rest } = options;
  return startCollector({
    api: { baseUrl: t.baseUrl, apiKey: key, readBudget: 100_000, ...api },
    warehouse: { path: join(t.dir, 'warehouse.duckdb'), flushMs: 100, ...warehouse },
    sources: {
      snapshotCron: '*/2 * * * * *',
      pollIntervalMs: 1000,
      sweepIntervalMs: 1500,
      cs2SweepIntervalMs: 3000,
      pricesIntervalMs: 2000,
      fxIntervalMs: 2000,
      ...sources,
    },
    // Tests refresh models themselves, when they want them.
    work: { modelsCron: null, ...work },
    onFatal: (error) => {
      throw error;
    },
    ...rest,
  });
}

/** Waits until the collector has landed the service's last CS2 event (the stream carries CS2 only). */
export async function waitForStreamHead(
  t: TestService,
  collector: RunningCollector,
  timeoutMs = 30_000,
): Promise<void> {
  const head = await t.service.context.catalogue.log.lastEventIdOf(730);
  const landedHead = async () => {
    const [row] = await collector.warehouse.query(
      "SELECT value FROM collector_state WHERE source = 'stream' AND key = 'last_event_id'",
    );
    return row?.value;
  };
  await vi.waitFor(async () => expect(await landedHead()).toBe(head), { timeout: timeoutMs, interval: 100 });
}

/** Waits until a complete sweep of every game started after `since` (epoch ms) has landed. */
export async function waitForSweeps(
  collector: RunningCollector,
  games: number[],
  since: number,
  timeoutMs = 30_000,
) {
  const sweptGames = async () => {
    const rows = await collector.warehouse.query(
      "SELECT source, value FROM collector_state WHERE key = 'last_sweep_started_at'",
    );
    return games.filter((g) => rows.some((r) => r.source === `sweep:${g}` && Number(r.value) > since));
  };
  await vi.waitFor(async () => expect(await sweptGames()).toEqual(games), {
    timeout: timeoutMs,
    interval: 200,
  });
}

/** The ids of live_listings of a game in the warehouse. */
export async function warehouseLiveIds(collector: RunningCollector, appId: number): Promise<string[]> {
  const rows = await collector.warehouse.query(
    `SELECT listing_id FROM live_listings WHERE app_id = ${appId} ORDER BY listing_id`,
  );
  return rows.map((r) => String(r.listing_id));
}

/** The ids of a game's live listings as the API reports them. */
export async function apiLiveIds(t: TestService, key: string, appId: number): Promise<string[]> {
  const rows: Listing[] = await readAllListings(t, key, `&appId=${appId}`);
  return rows.map((l) => l.id).sort();
}
