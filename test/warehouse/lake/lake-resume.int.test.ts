/**
 * A stream resumed from an old position after its events moved to the lake lands none of them
 * twice: the real collector against a test service, its events moved, its position set back to
 * the first event, then started again to read the replay and the events since.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningCollector } from '../../../src/collector/daemon.js';
import { Warehouse } from '../../../src/warehouse/index.js';
import { churnUntil } from '../../helpers/churn.js';
import { startTestCollector, waitForStreamHead } from '../../helpers/collector.js';
import { startTestService, type TestService } from '../../helpers/service.js';

let t: TestService;
let key: string;
let collector: RunningCollector | undefined;
beforeAll(async () => {
  t = await startTestService({ listings: 200, rateLimits: { read: 1_000_000 } });
  ({ key } = await t.account({ balance_usd: 50 }));
});
afterAll(async () => {
  await collector?.stop();
  await t?.close();
});

/** The stream alone: every other source far off, no scheduled work. */
const start = () =>
  startTestCollector(t, key, {
    sources: {
      games: [730],
      account: false,
      snapshotCron: '0 0 1 1 *',
      pollIntervalMs: 3_600_000,
      sweepIntervalMs: 3_600_000,
      cs2SweepIntervalMs: 3_600_000,
      pricesIntervalMs: 3_600_000,
      fxIntervalMs: 3_600_000,
    },
    work: { lakeCron: null },
  });

/** Rows of the event log across file and lake, distinct ids, and rows in the lake. */
async function eventRows(warehouse: Warehouse) {
  const [row] = await warehouse.query(
    `SELECT count(*)::INTEGER AS rows, count(DISTINCT event_id)::INTEGER AS ids,
            (SELECT count(*)::INTEGER FROM raw_listing_events WHERE event_id NOT IN (SELECT event_id FROM raw_listing_events__hot)) AS lake
     FROM raw_listing_events`,
  );
  return row as { rows: number; ids: number; lake: number };
}

it('lands none of the events in the lake again when the stream resumes from before them', async () => {
  collector = await start();
  await churnUntil(t, { changes: 40, rate: 200, appId: 730 });
  await waitForStreamHead(t, collector);
  const [first] = await collector.warehouse.query(
    'SELECT event_id FROM raw_listing_events ORDER BY received_at, event_id LIMIT 1',
  );
  await collector.warehouse.moveToLake(Date.now());
  const moved = await eventRows(collector.warehouse);
  expect(moved.lake).toBe(moved.rows);
  expect(moved.rows).toBeGreaterThanOrEqual(40);
  // One range a log and day, however the other games' events interleave with the stream's positions.
  expect(
    await collector.warehouse.query(
      'SELECT count(DISTINCT log)::INTEGER AS logs, count(*) = count(DISTINCT day) AS one_a_day FROM lake_event_ranges',
    ),
  ).toEqual([{ logs: 1, one_a_day: true }]);
  await collector.stop();
  collector = undefined;

  // Back to the first event: the service replays every event after it.
  const path = join(t.dir, 'warehouse.duckdb');
  const warehouse = await Warehouse.open(path);
  await warehouse.write([
    { source: 'stream', events: [], state: { last_event_id: String(first?.event_id) } },
  ]);
  await warehouse.close();

  collector = await start();
  await churnUntil(t, { changes: 10, rate: 200, appId: 730 });
  await waitForStreamHead(t, collector);
  const after = await eventRows(collector.warehouse);
  expect(after.rows).toBe(after.ids);
  expect(after.lake).toBe(moved.rows);
  expect(after.rows).toBeGreaterThanOrEqual(moved.rows + 10);
}, 120_000);
