import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningCollector } from '../../src/collector/daemon.js';
import { churnUntil } from '../helpers/churn.js';
import {
  apiLiveIds,
  startTestCollector,
  waitForStreamHead,
  waitForSweeps,
  warehouseLiveIds,
} from '../helpers/collector.js';
import { type DriftProxy, startDriftProxy } from '../helpers/drift-proxy.js';
import { startTestService, type TestService } from '../helpers/service.js';

const GAMES = [730, 570, 252490];

describe('the collector behind an upstream that drifts', () => {
  let t: TestService;
  let key: string;
  let proxy: DriftProxy;
  let collector: RunningCollector | null = null;
  const fatal: unknown[] = [];

  beforeAll(async () => {
    t = await startTestService({ listings: 600, rateLimits: { read: 1_000_000 } });
    ({ key } = await t.account({ balance_usd: 50 }));
    proxy = await startDriftProxy(t.origin, {
      field: 'seller_rating',
      value: 4.5,
      spoil: { no_refund_percent: 3, price_as_string: 6, cut_short: 9 },
      spoilItem: 5,
    });
  });
  afterAll(async () => {
    await collector?.stop();
    await proxy.close();
    await t.close();
  });

  it('keeps running, keeps the live set, the new field and every malformed event and page item', async () => {
    collector = await startTestCollector({ ...t, baseUrl: proxy.baseUrl }, key, {
      onFatal: (error) => fatal.push(error),
    });
    await churnUntil(t, { changes: 120, rate: 40, appId: 730 });
    const pausedAt = Date.now();
    await waitForStreamHead(t, collector);
    await waitForSweeps(collector, GAMES, pausedAt);
    expect(fatal).toEqual([]);
    expect(Object.keys(proxy.malformed).sort()).toEqual([
      'cut_short',
      'no_refund_percent',
      'price_as_string',
    ]);
    for (const appId of GAMES)
      expect(await warehouseLiveIds(collector, appId), `live listings of ${appId}`).toEqual(
        await apiLiveIds(t, key, appId),
      );
    const stream = collector.status().find((s) => s.name === 'stream');
    expect(stream?.stopped).toBeNull();
    expect(stream?.connected).toBe(true);

    const warehouse = collector.warehouse;
    const ids = Object.values(proxy.malformed);
    const landed = await warehouse.query(
      `SELECT event_id FROM raw_listing_events WHERE event_id IN (${ids.map((id) => `'${id}'`).join(', ')})`,
    );
    expect(landed.map((r) => r.event_id).sort(), JSON.stringify(proxy.malformed)).toEqual([...ids].sort());
    const [rejected] = await warehouse.query(
      `SELECT source, event_id, raw, reason FROM rejected_payloads WHERE event_id = '${proxy.malformed.cut_short}'`,
    );
    expect(rejected?.source).toBe('stream');
    expect(String(rejected?.reason)).toMatch(/JSON/);
    const notes = await warehouse.query(
      `SELECT event_id, typing_notes::VARCHAR AS notes FROM listing_events_typed
       WHERE event_id IN ('${proxy.malformed.no_refund_percent}', '${proxy.malformed.price_as_string}')
       ORDER BY event_id`,
    );
    expect(notes).toHaveLength(2);
    const noteOf = (id: string | undefined) => String(notes.find((n) => n.event_id === id)?.notes);
    expect(noteOf(proxy.malformed.no_refund_percent)).toContain('refund_percent');
    expect(noteOf(proxy.malformed.price_as_string)).toContain('price_usd');

    // The new field: kept with the events, noticed once, and counted.
    const [extra] = await warehouse.query(
      `SELECT count(*) AS n FROM listing_events_typed
       WHERE kind = 'new' AND json_extract(extra_fields, '$.seller_rating')::DOUBLE = 4.5`,
    );
    expect(Number(extra?.n)).toBeGreaterThan(50);
    await collector.warehouse.refreshModels({ select: ['stg_listing_events'] });
    const [staged] = await warehouse.query(
      "SELECT count(*) AS n FROM stg_listing_events WHERE extra_fields->>'seller_rating' = '4.5'",
    );
    expect(Number(staged?.n)).toBe(Number(extra?.n));
    // The stream's board counts what the warehouse holds at most once a second.
    const running = collector;
    const streamBoard = () => running.status().find((s) => s.name === 'stream');
    await expect.poll(() => streamBoard()?.newFields?.[0]?.count, { timeout: 10_000 }).toBe(Number(extra?.n));
    const status = streamBoard();
    expect(status?.rejected).toBe(1);
    expect(status?.partlyTyped).toBe(2);
    expect(status?.newFields?.map((f) => f.field)).toEqual(['seller_rating']);
    // The page item sent with its price as a string: landed, partly typed, counted for its via.
    const item = proxy.malformedItem;
    expect(item).toBeDefined();
    const [spoiled] = await warehouse.query(
      `SELECT o.via, o.price_usd, o.typing_notes::VARCHAR AS notes, o.extra_fields->>'seller_rating' AS rating,
              json_type(o.raw, '$.price_usd') AS sent_as
       FROM listing_observations_typed o WHERE o.listing_id = '${item}' AND o.price_usd IS NULL`,
    );
    expect(spoiled).toMatchObject({ price_usd: null, rating: '4.5', sent_as: 'VARCHAR' });
    expect(String(spoiled?.notes)).toContain('price_usd');
    const via = String(spoiled?.via);
    const [items] = await warehouse.query(
      `SELECT count(*) AS n, count(*) FILTER (WHERE json_extract(extra_fields, '$.seller_rating')::DOUBLE = 4.5) AS rated,
              count(*) FILTER (WHERE via = '${via}') AS of_via
       FROM listing_observations_typed WHERE raw IS NOT NULL`,
    );
    expect(Number(items?.n)).toBeGreaterThan(600);
    expect(Number(items?.rated)).toBe(Number(items?.n));
    // A stored item is counted when the live set applies its load, a repeat as it lands: in one
    // read, every item of the via's loads no longer pending and every repeat is counted (the
    // collector lands on meanwhile).
    const [counted] = await warehouse.query(
      `SELECT (SELECT count(*) FROM listing_observations_typed WHERE raw IS NOT NULL AND via = '${via}'
                 AND load_id NOT IN (SELECT load_id FROM live_set_pending))
            + (SELECT count(*) FROM raw_listing_repeats WHERE via = '${via}'
                 AND load_id IN (SELECT load_id FROM live_set_pending)) AS landed,
              payloads, rejected, partly_typed
       FROM payload_checks WHERE source = '${via}'`,
    );
    expect(counted).toMatchObject({ rejected: 0, partly_typed: 1 });
    expect(Number(counted?.payloads)).toBe(Number(counted?.landed));
    expect(Number(counted?.landed)).toBeGreaterThan(0);
    // Every poll and sweep ran on, and the board of the via shows what its items carried.
    const pages = collector.status().filter((s) => /^(poll|sweep):/.test(s.name));
    expect(pages.map((s) => [s.name, s.stopped])).toEqual(
      ['poll:730', ...GAMES.map((g) => `sweep:${g}`)].map((name) => [name, null]),
    );
    const board = via === 'poll' ? 'poll:730' : 'sweep:730';
    await vi.waitFor(
      () => {
        const shown = collector?.status().find((s) => s.name === board);
        expect(shown?.partlyTyped).toBe(1);
        expect(shown?.rejected).toBe(0);
        expect(shown?.newFields?.map((f) => f.field)).toEqual(['seller_rating']);
      },
      { timeout: 10_000, interval: 100 },
    );
  }, 120_000);
});
