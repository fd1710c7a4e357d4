/**
 * The upstream's clock is measured, not trusted: after the sandbox's clock moves hours ahead, the
 * collector measures the offset from the service's Date headers, keeps it with each load, shows it
 * in its status and /metrics, and the models' ages stay true, so `market models test` passes.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningCollector } from '../../src/collector/daemon.js';
import { startTestCollector } from '../helpers/collector.js';
import { startTestService, type TestService } from '../helpers/service.js';

const AHEAD_SECONDS = 3 * 3600;

let t: TestService;
let collector: RunningCollector;

beforeAll(async () => {
  t = await startTestService({ listings: 300, rateLimits: { read: 1_000_000 } });
  const { key } = await t.account({ balance_usd: 50 });
  collector = await startTestCollector(t, key, { sources: { games: [730, 570] } });
});
afterAll(async () => {
  await collector?.stop();
  await t?.close();
});

/** The offset kept with the newest load of `source`, in seconds. */
async function offsetOfLatestLoad(source: string): Promise<number | null> {
  const [row] = await collector.warehouse.query(
    `SELECT upstream_offset_ms FROM loads WHERE source = '${source}' ORDER BY started_at DESC LIMIT 1`,
  );
  return row?.upstream_offset_ms == null ? null : Number(row.upstream_offset_ms) / 1000;
}

describe("the upstream's clock", () => {
  it('is measured near 0 while both clocks agree', async () => {
    await vi.waitFor(async () => expect(await offsetOfLatestLoad('prices:570')).not.toBeNull(), {
      timeout: 30_000,
    });
    expect(Math.abs((await offsetOfLatestLoad('prices:570')) ?? Number.NaN)).toBeLessThan(2);
  });

  it('moved hours ahead: measured, kept with each load, and the ages of the models stay true', async () => {
    const movedAt = Date.now();
    const moved = await t.sandbox('/clock', { advance_seconds: AHEAD_SECONDS });
    expect(moved.status).toBe(200);
    // Loads of the price lists read after the move carry the new offset.
    await vi.waitFor(
      async () => expect((await offsetOfLatestLoad('prices:570')) ?? 0).toBeGreaterThan(AHEAD_SECONDS - 2),
      { timeout: 30_000, interval: 250 },
    );
    // The service builds a new list, stamped on its clock, hours ahead.
    expect((await t.sandbox('/prices/rebuild', {})).status).toBe(200);
    const ahead = new Date(movedAt + AHEAD_SECONDS * 1000).toISOString();
    await vi.waitFor(
      async () => {
        const [row] = await collector.warehouse.query(
          `SELECT count(*) AS n FROM minask_prices WHERE app_id = 570 AND generated_at > '${ahead}'::TIMESTAMP`,
        );
        expect(Number(row?.n)).toBeGreaterThan(0);
      },
      { timeout: 30_000, interval: 250 },
    );
    const scraped = await collector.metrics.exposition();
    const gauge = /^market_collector_upstream_clock_offset_seconds (\S+)$/m.exec(scraped.text);
    expect(Math.abs(Number(gauge?.[1]) - AHEAD_SECONDS)).toBeLessThan(2);

    await collector.warehouse.refreshModels();
    const failed = (await collector.warehouse.testModels()).filter((r) => r.failures > 0 && !r.warn);
    expect(failed).toEqual([]);
    // Each list is on the collector's clock by the offset of the load that first landed it: the
    // lists built after the move are minutes old, not hours younger than their fetch.
    const [ages] = await collector.warehouse.query(
      `SELECT min(service_age_seconds) AS youngest, max(service_age_seconds) AS oldest, count(*) AS n
       FROM fct_minask_history
       WHERE app_id = 570 AND service_generated_at >= '${new Date(movedAt).toISOString()}'::TIMESTAMP`,
    );
    expect(Number(ages?.n)).toBeGreaterThan(0);
    expect(Number(ages?.youngest)).toBeGreaterThanOrEqual(0);
    expect(Number(ages?.oldest)).toBeLessThan(600);
    const [negative] = await collector.warehouse.query(
      'SELECT count(*) AS n FROM fct_minask_history WHERE service_age_seconds < 0',
    );
    expect(Number(negative?.n)).toBe(0);
  });
});
