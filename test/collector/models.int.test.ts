/**
 * The SQL models built from what the real collector landed from the real service, each checked
 * against a computation of its own here: from the API's listings, or from the landing rows.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningCollector } from '../../src/collector/daemon.js';
import type { Listing } from '../../src/contract/listing.js';
import { type ModelRunSummary, Warehouse } from '../../src/warehouse/index.js';
import { churnUntil } from '../helpers/churn.js';
import { startTestCollector, waitForStreamHead, waitForSweeps } from '../helpers/collector.js';
import { readAllListings } from '../helpers/listings.js';
import { startTestService, type TestService } from '../helpers/service.js';

const GAMES = [730, 570, 252490];

/** The group of a listing, as the price lists and fct_minask_history key it. */
const groupOf = (r: Record<string, unknown> | Listing) =>
  `${r.market_hash_name}§${r.wear ?? ''}§${r.doppler_phase ?? ''}`;

/** The position of an event in the service's log, from its id `<log>-<position>`. */
const position = (event: Record<string, unknown>) => Number(String(event.event_id).split('-').at(-1));

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  return sorted.length % 2
    ? (sorted[Math.floor(mid)] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

describe('models built from collected data', () => {
  let t: TestService;
  let key: string;
  let collector: RunningCollector;
  let firstBuild: ModelRunSummary;
  let cs2: Listing[];

  /**
   * Lets the market make `changes` changes, then waits until the warehouse holds all of them and a
   * fresh snapshot.
   */
  async function churnAndSettle(changes: number) {
    await churnUntil(t, { changes, rate: 100 });
    const pausedAt = Date.now();
    await waitForStreamHead(t, collector);
    await waitForSweeps(collector, GAMES, pausedAt);
    // The price list is rebuilt every 500 ms: a snapshot fetched (or found unchanged) 1.5 s after
    // the pause is current.
    const lastFetchAt = async () =>
      Number(
        (await collector.warehouse.query('SELECT epoch_ms(max(fetched_at)) AS at FROM snapshot_fetches'))[0]
          ?.at,
      );
    await vi.waitFor(
      async () =>
        expect(await lastFetchAt(), 'a snapshot fetched after the pause').toBeGreaterThan(pausedAt + 1500),
      { timeout: 15_000, interval: 100 },
    );
  }

  beforeAll(async () => {
    t = await startTestService({
      listings: 1500,
      rateLimits: { read: 1_000_000, snapshot: 1000 },
      priceIntervalMs: 500,
    });
    ({ key } = await t.account({ balance_usd: 50 }));
    collector = await startTestCollector(t, key);
    await churnAndSettle(400);
    firstBuild = await collector.warehouse.refreshModels();
    cs2 = await readAllListings(t, key, '&appId=730');
  });
  afterAll(async () => {
    await collector?.stop();
    await t?.close();
  });

  it('builds every model in dependency order and passes every model test', async () => {
    const order = firstBuild.models.map((m) => m.model);
    expect(order).toEqual(
      expect.arrayContaining(['dim_items', 'fct_minask_history', 'fct_float_distribution']),
    );
    for (const model of collector.warehouse.models())
      for (const dep of model.dependsOn) expect(order.indexOf(dep)).toBeLessThan(order.indexOf(model.name));
    expect(firstBuild.models.every((m) => m.mode === 'view' || m.mode === 'full')).toBe(true);
    const results = await collector.warehouse.testModels();
    expect(results.length).toBeGreaterThan(40);
    expect(results.filter((r) => r.failures > 0)).toEqual([]);
  });

  it('fct_float_distribution is the histogram of the live floats, bucket by bucket', async () => {
    const expected = new Map<string, { listings: number; cheapest: number }>();
    for (const l of cs2) {
      if (l.float_value === null || l.wear === null) continue;
      const bucket = Math.min(Math.floor(l.float_value * 100), 99);
      const k = `${l.market_hash_name}|${l.wear}|${bucket}`;
      const cell = expected.get(k) ?? { listings: 0, cheapest: Number.POSITIVE_INFINITY };
      cell.listings += 1;
      cell.cheapest = Math.min(cell.cheapest, l.price_usd);
      expected.set(k, cell);
    }
    const rows = await collector.warehouse.query(
      'SELECT market_hash_name, wear, bucket, bucket_low, listings, cheapest_ask_usd FROM fct_float_distribution',
    );
    const actual = new Map(
      rows.map((r) => [
        `${r.market_hash_name}|${r.wear}|${r.bucket}`,
        { listings: Number(r.listings), cheapest: Number(r.cheapest_ask_usd) },
      ]),
    );
    expect(actual.size).toBeGreaterThan(100);
    expect(actual).toEqual(expected);
  });

  it('fct_float_rank ranks every live float within its item and wear', async () => {
    const rows = await collector.warehouse.query(
      'SELECT listing_id, float_rank, listings_in_group FROM fct_float_rank',
    );
    const byId = new Map(rows.map((r) => [String(r.listing_id), r]));
    const withFloat = cs2.filter((l) => l.float_value !== null && l.wear !== null);
    expect(byId.size).toBe(withFloat.length);
    for (const l of withFloat) {
      const peers = withFloat.filter((p) => p.market_hash_name === l.market_hash_name && p.wear === l.wear);
      const rank = 1 + peers.filter((p) => (p.float_value as number) < (l.float_value as number)).length;
      expect({
        id: l.id,
        rank: Number(byId.get(l.id)?.float_rank),
        n: Number(byId.get(l.id)?.listings_in_group),
      }).toEqual({ id: l.id, rank, n: peers.length });
    }
  });

  it('fct_minask_history ends, for every group, at the API minAsk on both sides, with their ages', async () => {
    const expected = new Map<string, { min: number; count: number }>();
    for (const l of cs2) {
      const cell = expected.get(groupOf(l)) ?? { min: Number.POSITIVE_INFINITY, count: 0 };
      cell.min = Math.min(cell.min, l.price_usd);
      cell.count += 1;
      expected.set(groupOf(l), cell);
    }
    const rows = await collector.warehouse.query(
      `SELECT * FROM fct_minask_history WHERE app_id = 730
       QUALIFY row_number() OVER (PARTITION BY market_hash_name, wear, doppler_phase ORDER BY minute DESC) = 1`,
    );
    const live = new Map<string, { min: number; count: number }>();
    const service = new Map<string, { min: number; count: number }>();
    for (const r of rows) {
      if (Number(r.live_listed_count) > 0)
        live.set(groupOf(r), { min: Number(r.live_min_ask_usd), count: Number(r.live_listed_count) });
      if (Number(r.service_listed_count) > 0)
        service.set(groupOf(r), {
          min: Number(r.service_min_ask_usd),
          count: Number(r.service_listed_count),
        });
    }
    expect(live).toEqual(expected);
    // The snapshot's groups that still list something at the group's last minute agree too.
    const [latest] = await collector.warehouse.query('SELECT max(minute) AS minute FROM fct_minask_history');
    const current = rows.filter((r) => r.minute === latest?.minute);
    expect(current.length).toBeGreaterThan(0);
    for (const r of current.filter((r) => Number(r.service_listed_count) > 0))
      expect(service.get(groupOf(r))).toEqual(expected.get(groupOf(r)));
    for (const r of current) {
      expect(Number(r.service_age_seconds)).toBeGreaterThanOrEqual(0);
      expect(Number(r.service_age_seconds)).toBeLessThan(120);
      expect(Number(r.live_age_seconds)).toBeGreaterThanOrEqual(0);
    }
  });

  it('fct_minask_history follows the snapshot a 304 kept in force, and its age grows', async () => {
    // The collector fetches on after the build: only the fetches the build read count (those of
    // the tables behind the view fct_minask_history).
    const rows = await collector.warehouse.query(
      `SELECT f.fetched_at, f.etag, d.fetched_at AS downloaded_at FROM snapshot_fetches f
       ASOF JOIN (SELECT * FROM snapshot_fetches WHERE status = 'downloaded') d ON d.etag = f.etag AND f.fetched_at >= d.fetched_at
       WHERE f.load_id IN (SELECT load_id FROM loads WHERE started_at <= (
         SELECT watermark FROM model_state WHERE model = 'int_minask_spells'))
       ORDER BY f.fetched_at`,
    );
    // Per minute, the last fetch decides; its list's rows are what the model says for that minute.
    const lastOfMinute = new Map<string, { etag: string; downloadedAt: string }>();
    for (const r of rows)
      lastOfMinute.set(String(r.fetched_at).slice(0, 16), {
        etag: String(r.etag),
        downloadedAt: String(r.downloaded_at),
      });
    const [minute, fetch] = [...lastOfMinute.entries()].at(-1) as [
      string,
      { etag: string; downloadedAt: string },
    ];
    const listed = await collector.warehouse.query(
      `SELECT market_hash_name, wear, doppler_phase, min_ask_usd, listed_count, generated_at FROM price_snapshots
       WHERE etag = '${fetch.etag}' AND fetched_at = '${fetch.downloadedAt}'`,
    );
    const model = await collector.warehouse.query(
      `SELECT market_hash_name, wear, doppler_phase, service_min_ask_usd, service_listed_count, service_generated_at,
         service_age_seconds
       FROM fct_minask_history WHERE app_id = 730 AND minute = '${minute}:00'`,
    );
    const byGroup = new Map(model.map((r) => [groupOf(r), r]));
    expect(listed.length).toBeGreaterThan(0);
    for (const r of listed) {
      const row = byGroup.get(groupOf(r));
      expect(Number(row?.service_min_ask_usd)).toBe(Number(r.min_ask_usd));
      expect(Number(row?.service_listed_count)).toBe(Number(r.listed_count));
      const age = (Date.parse(`${minute}:00Z`) + 60_000 - Date.parse(String(r.generated_at))) / 1000;
      expect(Number(row?.service_age_seconds)).toBeCloseTo(age, 3);
    }
  });

  it('fct_sticker_stats counts stickers and their median premium like the API listings say', async () => {
    const plain = new Map<string, number[]>();
    for (const l of cs2)
      if (l.stickers.length === 0)
        plain.set(`${l.market_hash_name}|${l.wear}`, [
          ...(plain.get(`${l.market_hash_name}|${l.wear}`) ?? []),
          l.price_usd,
        ]);
    const stats = new Map<
      string,
      { listings: number; applications: number; slots: Set<number>; premiums: number[] }
    >();
    for (const l of cs2) {
      const names = new Set(l.stickers.map((s) => s.name));
      for (const name of names) {
        const cell = stats.get(name) ?? {
          listings: 0,
          applications: 0,
          slots: new Set<number>(),
          premiums: [],
        };
        cell.listings += 1;
        for (const s of l.stickers.filter((s) => s.name === name)) {
          cell.applications += 1;
          cell.slots.add(s.slot);
        }
        const baseline = plain.get(`${l.market_hash_name}|${l.wear}`);
        if (baseline) cell.premiums.push((l.price_usd / median(baseline) - 1) * 100);
        stats.set(name, cell);
      }
    }
    const rows = await collector.warehouse.query('SELECT * FROM fct_sticker_stats');
    expect(rows.length).toBe(stats.size);
    expect(rows.length).toBeGreaterThan(10);
    for (const r of rows) {
      const cell = stats.get(String(r.sticker_name));
      expect(cell).toBeDefined();
      expect(Number(r.listings)).toBe(cell?.listings);
      expect(Number(r.applications)).toBe(cell?.applications);
      expect(r.slots).toEqual([...(cell?.slots ?? [])].sort());
      expect(Number(r.listings_with_baseline)).toBe(cell?.premiums.length);
      if (cell?.premiums.length) expect(Number(r.median_premium_pct)).toBeCloseTo(median(cell.premiums), 6);
      else expect(r.median_premium_pct).toBeNull();
    }
  });

  it('fct_listing_lifecycle knows which listings are live, gone and re-listed', async () => {
    for (const appId of GAMES) {
      const api = (await readAllListings(t, key, `&appId=${appId}`)).map((l) => l.id).sort();
      const live = await collector.warehouse.query(
        `SELECT listing_id FROM fct_listing_lifecycle WHERE app_id = ${appId} AND is_live ORDER BY listing_id`,
      );
      expect(live.map((r) => String(r.listing_id))).toEqual(api);
    }
    // Re-listed: the stream said `new` for a listing after it said `gone`.
    const events = (
      await collector.warehouse.query(
        'SELECT listing_id, kind, event_id, epoch_ms(received_at) AS at FROM listing_events WHERE app_id = 730',
      )
    ).sort((a, b) => Number(a.at) - Number(b.at) || position(a) - position(b));
    const left = new Set<string>();
    const relisted = new Set<string>();
    for (const e of events) {
      const id = String(e.listing_id);
      if (e.kind === 'gone') left.add(id);
      else if (left.has(id)) relisted.add(id);
    }
    const rows = await collector.warehouse.query(
      'SELECT listing_id FROM fct_listing_lifecycle WHERE app_id = 730 AND relisted ORDER BY listing_id',
    );
    expect(relisted.size).toBeGreaterThan(0);
    expect(rows.map((r) => String(r.listing_id))).toEqual([...relisted].sort());
  });

  it('fct_prices_fx converts with the rate in force at the time of each price', async () => {
    const rates = await collector.warehouse.query(
      "SELECT rate, epoch_ms(updated_at) AS at FROM fx_rates WHERE currency = 'EUR' ORDER BY updated_at",
    );
    expect(rates.length).toBeGreaterThan(0);
    const rows = await collector.warehouse.query(
      `SELECT kind, price_usd, epoch_ms(priced_at) AS at, rate, amount FROM fct_prices_fx
       WHERE currency = 'EUR' ORDER BY hash(ref, priced_at) LIMIT 300`,
    );
    expect(rows.length).toBe(300);
    for (const r of rows) {
      const inForce = rates.filter((x) => Number(x.at) <= Number(r.at)).at(-1);
      if (!inForce) {
        expect(r.amount).toBeNull();
        continue;
      }
      expect(Number(r.rate)).toBe(Number(inForce.rate));
      expect(Number(r.amount)).toBeCloseTo(
        Math.round(Number(r.price_usd) * Number(inForce.rate) * 100) / 100,
        2,
      );
    }
    const [usd] = await collector.warehouse.query(
      "SELECT count(*) AS n, count(*) FILTER (WHERE amount <> price_usd) AS off FROM fct_prices_fx WHERE currency = 'USD'",
    );
    expect(Number(usd?.n)).toBeGreaterThan(0);
    expect(Number(usd?.off)).toBe(0);
  });

  it('dim_items parses every CS2 skin name it holds', async () => {
    const rows = await collector.warehouse.query(
      "SELECT * FROM dim_items WHERE app_id = 730 AND market_hash_name NOT LIKE 'Sticker |%'",
    );
    expect(rows.length).toBeGreaterThan(100);
    for (const r of rows) {
      const name = String(r.market_hash_name);
      const [, prefix = '', weapon, finish, wear] =
        /^((?:★ )?(?:StatTrak™ )?(?:Souvenir )?)(.+?) \| (.+) \((.+)\)$/.exec(name) ?? [];
      expect({
        name,
        weapon: r.weapon,
        finish: r.finish,
        wear: r.wear,
        st: r.stattrak,
        sv: r.souvenir,
      }).toEqual({
        name,
        weapon,
        finish,
        wear,
        st: prefix.includes('StatTrak'),
        sv: prefix.includes('Souvenir'),
      });
    }
    const games = await collector.warehouse.query('SELECT DISTINCT game FROM dim_items ORDER BY game');
    expect(games.map((g) => g.game)).toEqual(['cs2', 'dota2', 'rust']);
  });

  it('model tests compare each model with the data of its build while the collector lands more', async () => {
    await collector.warehouse.refreshModels();
    const counts = async () =>
      (
        await collector.warehouse.query(
          `SELECT (SELECT count(*) FROM fct_float_rank)::INT AS ranked,
             (SELECT count(*) FROM live_listings WHERE app_id = 730 AND float_value IS NOT NULL AND wear IS NOT NULL)::INT AS live`,
        )
      )[0];
    // CS2 rows land from the stream after the build until the live set no longer has the size the
    // build ranked (news and gones may balance out, so a round may not be enough).
    for (let i = 0; i < 10; i++) {
      await churnUntil(t, { changes: 20, rate: 100, appId: 730 });
      await waitForStreamHead(t, collector);
      const now = await counts();
      if (now?.ranked !== now?.live) break;
    }
    const now = await counts();
    expect(now?.live).not.toBe(now?.ranked);
    const results = await collector.warehouse.testModels();
    expect(results.filter((r) => r.failures > 0)).toEqual([]);
    const rank = results.find((r) => r.model === 'fct_float_rank' && r.name.startsWith('row_count'));
    expect(rank?.builtFrom).toBeDefined();
  }, 120_000);

  it('an incremental refresh after more trading equals a full rebuild of the same data', async () => {
    await churnAndSettle(250);
    // Stop collecting, so both builds read the same landing data.
    await collector.stop();
    const warehouse = await Warehouse.open(collector.warehouse.path);
    try {
      const incremental = await warehouse.refreshModels();
      const modes = Object.fromEntries(incremental.models.map((m) => [m.model, m.mode]));
      expect(modes.int_listing_spells).toBe('incremental');
      // fct_minask_history is a view over its runs of unchanged figures and the game's minutes.
      expect(modes.int_minask_spells).toBe('incremental');
      expect(incremental.models.find((m) => m.model === 'int_minask_spells')?.rows).toBeGreaterThan(0);
      const tables = warehouse.models().filter((m) => m.materialized !== 'view');
      const read = async () => {
        const contents: Record<string, unknown[]> = {};
        for (const m of tables)
          contents[m.name] = await warehouse.query(
            // Rows an incremental build kept carry the watermark of the build that wrote them.
            `SELECT * ${m.sql.includes('AS built_watermark') ? 'EXCLUDE (built_watermark)' : ''} FROM ${m.name} ORDER BY ALL`,
          );
        return contents;
      };
      const afterIncrement = await read();
      const full = await warehouse.refreshModels({ fullRefresh: true });
      expect(full.models.every((m) => m.mode !== 'incremental')).toBe(true);
      const afterFull = await read();
      for (const m of tables)
        expect({ model: m.name, rows: afterIncrement[m.name] }).toEqual({
          model: m.name,
          rows: afterFull[m.name],
        });
      expect((await warehouse.testModels()).filter((r) => r.failures > 0)).toEqual([]);
    } finally {
      await warehouse.close();
    }
  }, 120_000);
});
