/**
 * The price history endpoint of the real collector over two days of a real service, the collector
 * down for the night between them: candles compared figure by figure with a computation of their
 * own over the landed raw rows (sightings, departures, snapshot lines, loads, rates), never the models the endpoint
 * reads; the day moved to the lake answered as it was from the file; and the endpoint's access
 * checks, CORS, gzip and refusals, every answer checked against its OpenAPI document.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HistoryClient, isApiError } from '../../src/client/index.js';
import type { RunningCollector } from '../../src/collector/daemon.js';
import { MAX_PAGE_BUCKETS } from '../../src/contract/history.js';
import { churnUntil } from '../helpers/churn.js';
import { startTestCollector, waitForStreamHead } from '../helpers/collector.js';
import { ResponseChecker } from '../helpers/openapi-responses.js';
import { startTestService, type TestResponse, type TestService } from '../helpers/service.js';

const DAY1 = Date.parse('2026-11-20T10:00:00.000Z');
const DAY2 = Date.parse('2026-11-21T10:00:00.000Z');
const RANGE = { from: '2026-11-20T00:00:00Z', to: '2026-11-22T00:00:00Z' };
const KEY = 'hist_test_key_one_0123456789';
const RATE_KEY = 'hist_test_key_two_0123456789';
const ORIGIN = 'https://dash.example';

/** A stream event's position in the stream (its id's trailing number); null for other rows. */
const POSITION = "try_cast(regexp_extract(event_id, '[0-9]+$') AS BIGINT)";

/**
 * Every sighting of a listing in the landed raw rows: its stream announcement, each page item, and
 * each page item recorded as a repeat, with the text of the row it repeats (a stored page item, or
 * the stream event `same_pass_id` when `same_via` is `stream`) at its own instant.
 */
const SIGHTINGS = `
  SELECT coalesce(listing_id, data->>'id') AS listing_id, received_at AS seen_at, ${POSITION} AS pos, data
  FROM raw_listing_events WHERE kind = 'new'
  UNION ALL SELECT listing_id, observed_at, NULL, data FROM raw_listing_observations
  UNION ALL SELECT r.listing_id, r.observed_at, NULL, coalesce(o.data, e.data) FROM raw_listing_repeats r
    LEFT JOIN raw_listing_observations o
      ON r.same_via <> 'stream' AND o.listing_id = r.listing_id AND o.via = r.same_via AND o.pass_id = r.same_pass_id
    LEFT JOIN raw_listing_events e ON r.same_via = 'stream' AND e.event_id = r.same_pass_id`;

/** Every departure of a listing: its stream event, or a sweep that no longer listed it. */
const DEPARTURES = `
  SELECT coalesce(listing_id, data->>'id') AS listing_id, received_at AS departed_at, ${POSITION} AS pos
  FROM raw_listing_events WHERE kind = 'gone'
  UNION ALL SELECT listing_id, detected_at, NULL FROM listing_gone`;

/**
 * Whether departure `d` came at or after the sighting `l` (`seen`, `seen_pos`). Two stream events
 * landed in one instant (a replay after a restart) keep the stream's order; any other tie goes to
 * the departure.
 */
function departedSince(d: string, l: string): string {
  return `(${d}.departed_at > ${l}.seen OR (${d}.departed_at = ${l}.seen AND NOT coalesce(${l}.seen_pos > ${d}.pos, false)))`;
}

/** The latest of sightings `s` by instant, then stream position: `arg_max(…, LATEST)`. */
const LATEST = '(s.seen_at, coalesce(s.pos, -1))';

/** Every candle's figures as the endpoint answers them. */
type Candle = Record<string, any>;

describe('price history over HTTP', () => {
  let t: TestService;
  let collector: RunningCollector;
  let base: string;
  let checker: ResponseChecker;
  let group: { name: string; wear: string | null; phase: string | null };
  const answered: TestResponse[] = [];

  async function get(path: string, init: { key?: string | null; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { ...init.headers };
    if (init.key !== null) headers.authorization = `Bearer ${init.key ?? KEY}`;
    const response = await fetch(`${base}${path}`, { headers });
    const text = await response.text();
    const json = (response.headers.get('content-type') ?? '').includes('json') && text !== '';
    const answer = {
      status: response.status,
      headers: response.headers,
      body: json ? JSON.parse(text) : null,
      text,
    };
    const operation = checker?.find('GET', path.split('?')[0] ?? '');
    if (operation) expect(checker.problems(operation, answer)).toEqual([]);
    answered.push(answer);
    return answer;
  }

  function candlesPath(query: Record<string, string>): string {
    const params = new URLSearchParams({ market_hash_name: group.name, ...query });
    if (group.wear) params.set('wear', group.wear);
    if (group.phase) params.set('phase', group.phase);
    return `/candles?${params}`;
  }

  /** Every bucket of a range, following next_cursor. */
  async function allCandles(query: Record<string, string>): Promise<{ candles: Candle[]; pages: number }> {
    const candles: Candle[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await get(candlesPath({ ...query, ...(cursor ? { cursor } : {}) }));
      expect(page.status, page.text).toBe(200);
      candles.push(...page.body.candles);
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor);
    return { candles, pages };
  }

  async function collectRun(startAt: number) {
    vi.setSystemTime(startAt);
    collector = await startTestCollector(t, (await keyOf()).key, {
      sources: { games: [730] },
      history: {
        port: 0,
        keysFile: join(t.dir, 'history-keys.txt'),
        corsOrigins: [ORIGIN],
        ratePerMinute: 40,
      },
    });
    await churnUntil(t, { changes: 150, rate: 200, appId: 730 });
    await waitForStreamHead(t, collector);
  }
  let account: { key: string } | undefined;
  const keyOf = async () => {
    account ??= await t.account({ balance_usd: 50 });
    return account;
  };

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true, now: DAY1 });
    t = await startTestService({
      listings: 300,
      rateLimits: { read: 1_000_000, snapshot: 1000 },
      priceIntervalMs: 500,
    });
    await writeFile(join(t.dir, 'history-keys.txt'), `# keys\n${KEY}\n${RATE_KEY}\n`, { mode: 0o600 });
    await collectRun(DAY1);
    await collector.stop();
    // The collector is down from the end of the first run until the next day.
    await collectRun(DAY2);
    await collector.stop();
    // Down again for an hour: three hours with rows give the volatility two hourly returns.
    await collectRun(DAY2 + 2 * 3_600_000);
    await collector.warehouse.refreshModels();
    base = `http://127.0.0.1:${collector.history?.port}/v1/history`;
    const document = await get('/openapi.json', { key: null });
    checker = new ResponseChecker(document.body);
    // The group with the most listings with a float: its cheapest ask and its floats move.
    const [busiest] = await collector.warehouse.query(
      `SELECT data->>'market_hash_name' AS name, data->>'wear' AS wear, data->>'doppler_phase' AS phase
       FROM (${SIGHTINGS})
       WHERE data->>'float_value' IS NOT NULL
       GROUP BY ALL ORDER BY count(DISTINCT listing_id) DESC, name LIMIT 1`,
    );
    group = busiest as typeof group;
  }, 120_000);
  afterAll(async () => {
    await collector?.stop();
    await t?.close();
    vi.useRealTimers();
  });

  /** The same figures computed from the landed raw rows of the group, per bucket of `stepMs`. */
  async function expectedCandles(
    stepMs: number,
    from: number,
    to: number,
  ): Promise<{ buckets: Map<number, Candle>; changes: Candle[] }> {
    const rows = await collector.warehouse.query(`
      WITH sightings AS (${SIGHTINGS}),
      mine AS (
        SELECT listing_id, seen_at, pos, CAST(data->>'price_usd' AS DECIMAL(18, 2)) AS price FROM sightings
        WHERE data->>'market_hash_name' = ${sql(group.name)}
          AND (data->>'wear') IS NOT DISTINCT FROM ${sql(group.wear)}
          AND (data->>'doppler_phase') IS NOT DISTINCT FROM ${sql(group.phase)}
      ),
      departures AS (${DEPARTURES}),
      touched AS (
        SELECT DISTINCT date_trunc('minute', seen_at) AS minute FROM mine
        UNION SELECT DISTINCT date_trunc('minute', d.departed_at) FROM departures d SEMI JOIN mine USING (listing_id)
      ),
      latest AS (
        -- At the end of each touched minute: each listing's latest sighting by then, and its price.
        SELECT m.minute, s.listing_id, arg_max(s.price, ${LATEST}) AS price, max(s.seen_at) AS seen,
          arg_max(s.pos, ${LATEST}) AS seen_pos
        FROM touched m JOIN mine s ON s.seen_at < m.minute + INTERVAL 1 MINUTE
        GROUP BY m.minute, s.listing_id
      ),
      live AS (
        -- A listing is live when it has not left since its latest sighting.
        SELECT l.minute, l.listing_id, l.price, coalesce(bool_or(${departedSince('d', 'l')}), false) AS gone
        FROM latest l LEFT JOIN departures d
          ON d.listing_id = l.listing_id AND d.departed_at < l.minute + INTERVAL 1 MINUTE
        GROUP BY l.minute, l.listing_id, l.price
      )
      SELECT epoch_ms(minute) AS minute, min(price) FILTER (WHERE NOT gone) AS ask,
        count(*) FILTER (WHERE NOT gone) AS listed
      FROM live GROUP BY minute ORDER BY minute`);
    const firsts = await collector.warehouse.query(`
      WITH latest AS (
        SELECT listing_id, min(seen_at) AS first, max(seen_at) AS seen, arg_max(s.pos, ${LATEST}) AS seen_pos
        FROM (${SIGHTINGS}) s
        WHERE data->>'market_hash_name' = ${sql(group.name)}
          AND (data->>'wear') IS NOT DISTINCT FROM ${sql(group.wear)}
          AND (data->>'doppler_phase') IS NOT DISTINCT FROM ${sql(group.phase)}
        GROUP BY listing_id
      )
      SELECT listing_id, epoch_ms(first) AS first,
        (SELECT epoch_ms(max(d.departed_at)) FROM (${DEPARTURES}) d
          WHERE d.listing_id = l.listing_id AND ${departedSince('d', 'l')}) AS left_at
      FROM latest l`);
    const changes = rows.map((row) => ({
      minute: Number(row.minute),
      ask: row.ask,
      listed: Number(row.listed),
    }));
    const buckets = new Map<number, Candle>();
    for (let bucket = from; bucket < to; bucket += stepMs) buckets.set(bucket, { appeared: 0, left: 0 });
    const bucketOf = (ms: unknown) => buckets.get(Math.floor(Number(ms) / stepMs) * stepMs);
    for (const row of firsts) {
      const candle = bucketOf(row.first);
      if (candle) candle.appeared++;
      // A listing left when it departed since its last sighting: counted at its last departure.
      const left = row.left_at === null ? undefined : bucketOf(row.left_at);
      if (left) left.left++;
    }
    return { buckets, changes };
  }

  /**
   * The group's cheapest ask in the CS2 snapshot in force at the end of each of `minutes` (epoch ms),
   * from the landed raw lines: the last fetch by then names an ETag, whose last download by then
   * holds the lines (stored, or a repeat of a stored line); null when that file does not list it.
   * Only the fetches of the loads the models' last build read count (a later one is the next build's).
   */
  async function expectedServiceAsks(minutes: readonly number[]): Promise<Map<number, number | null>> {
    const rows = await collector.warehouse.query(`
      WITH minutes AS (
        SELECT make_timestamp(unnest([${minutes.join(', ')}]::BIGINT[]) * 1000) AS minute
      ),
      lines AS (
        SELECT etag, fetched_at, data FROM raw_price_snapshots
        UNION ALL
        SELECT r.etag, r.fetched_at, s.data FROM raw_price_snapshot_repeats r
        JOIN raw_price_snapshots s ON s.etag = r.same_etag AND s.fetched_at = r.same_fetched_at AND s.line = r.same_line
      ),
      built AS (
        -- The fetches the last build read: the collector goes on fetching after it.
        SELECT f.* FROM snapshot_fetches f JOIN loads l USING (load_id)
        WHERE l.started_at <= (SELECT max(watermark) FROM model_state)
      ),
      fetched AS (
        SELECT m.minute, (SELECT arg_max(etag, fetched_at) FROM built f
          WHERE f.fetched_at < m.minute + INTERVAL 1 MINUTE) AS etag
        FROM minutes m
      ),
      downloaded AS (
        SELECT f.minute, f.etag, (SELECT max(d.fetched_at) FROM built d
          WHERE d.etag = f.etag AND d.status = 'downloaded' AND d.fetched_at < f.minute + INTERVAL 1 MINUTE) AS at
        FROM fetched f
      )
      SELECT epoch_ms(d.minute) AS minute, (
        SELECT CAST(l.data->>'min_ask_usd' AS DECIMAL(18, 2)) FROM lines l
        WHERE l.etag = d.etag AND l.fetched_at = d.at AND (l.data->>'market_hash_name') = ${sql(group.name)}
          AND (l.data->>'wear') IS NOT DISTINCT FROM ${sql(group.wear)}
          AND (l.data->>'doppler_phase') IS NOT DISTINCT FROM ${sql(group.phase)}
      ) AS ask
      FROM downloaded d`);
    return new Map(rows.map((row) => [Number(row.minute), row.ask as number | null]));
  }

  it('answers every bucket of the range, figures as the raw rows compute them', async () => {
    const { candles } = await allCandles({ interval: '1h', ...RANGE });
    expect(candles.map((c) => c.t)).toEqual(
      Array.from({ length: 48 }, (_, i) => new Date(Date.parse(RANGE.from) + i * 3_600_000).toISOString()),
    );
    const expected = await expectedCandles(3_600_000, Date.parse(RANGE.from), Date.parse(RANGE.to));
    let observed = 0;
    for (const candle of candles) {
      const mine = expected.buckets.get(Date.parse(candle.t)) as Candle;
      expect([candle.appeared, candle.left], candle.t).toEqual([mine.appeared, mine.left]);
      if (candle.observations === 0) {
        expect([candle.open, candle.high, candle.low, candle.close, candle.listed_open]).toEqual([
          null,
          null,
          null,
          null,
          null,
        ]);
        continue;
      }
      observed++;
      // The figure standing at the end of a minute is the one after the last change by then.
      const standing = (minute: number) => {
        const before = expected.changes.filter((c: Candle) => c.minute <= minute).at(-1);
        return before ?? { ask: null, listed: 0 };
      };
      const first = Date.parse(candle.first_observed_at);
      const last = Date.parse(candle.last_observed_at);
      const open = standing(first);
      const close = standing(last);
      expect([candle.open, candle.listed_open], candle.t).toEqual([open.ask, open.listed]);
      expect([candle.close, candle.listed_close], candle.t).toEqual([close.ask, close.listed]);
      const seen = [open, ...expected.changes.filter((c: Candle) => c.minute >= first && c.minute <= last)];
      const asks = seen.map((c: Candle) => c.ask).filter((a: number | null) => a !== null) as number[];
      expect(candle.high, candle.t).toBe(asks.length ? Math.max(...asks) : null);
      expect(candle.low, candle.t).toBe(asks.length ? Math.min(...asks) : null);
      expect(candle.listed_max, candle.t).toBe(Math.max(...seen.map((c: Candle) => c.listed)));
    }
    expect(observed).toBeGreaterThanOrEqual(2);
    expect(candles.reduce((sum, c) => sum + c.appeared, 0)).toBeGreaterThan(0);
    // The service list's cheapest ask beside them: the one in force at the bucket's last observation.
    const closes = candles.filter((c) => c.observations > 0);
    const service = await expectedServiceAsks(closes.map((c) => Date.parse(c.last_observed_at)));
    expect(closes.map((c) => [c.t, c.service_min_ask])).toEqual(
      closes.map((c) => [c.t, service.get(Date.parse(c.last_observed_at)) ?? null]),
    );
    expect([...service.values()].filter((ask) => ask !== null).length).toBeGreaterThan(0);
  });

  it('says which buckets rest on the night the collector was down, with the span', async () => {
    const { candles } = await allCandles({ interval: '1h', ...RANGE });
    const [loads] = await collector.warehouse.query(
      `SELECT epoch_ms(max(started_at) FILTER (WHERE started_at < make_timestamp(${DAY2}::BIGINT * 1000))) AS last_before,
        epoch_ms(min(started_at) FILTER (WHERE started_at >= make_timestamp(${DAY2}::BIGINT * 1000))) AS first_after
       FROM loads`,
    );
    const downFrom = Number(loads?.last_before);
    const downTo = Number(loads?.first_after);
    const night = candles.filter((c) => {
      const at = Date.parse(c.t);
      return at >= Math.ceil(downFrom / 3_600_000) * 3_600_000 && at + 3_600_000 <= DAY2;
    });
    expect(night.length).toBeGreaterThan(10);
    for (const candle of night) {
      expect(candle.complete).toBe(false);
      expect(candle.observations).toBe(0);
      expect(Date.parse(candle.gap.from)).toBe(downFrom);
      expect(Date.parse(candle.gap.to)).toBeGreaterThanOrEqual(DAY2);
      expect(Date.parse(candle.gap.to)).toBeLessThanOrEqual(downTo);
    }
    // Before the first run nothing was collected either, but nobody was meant to be: those buckets
    // have no gap; the buckets after now are open.
    const after = candles.filter((c) => Date.parse(c.t) > Date.now());
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((c) => c.complete === false)).toBe(true);
  });

  it('pages 1-minute candles by next_cursor without a gap or a repeat', async () => {
    const { candles, pages } = await allCandles({ interval: '1m', ...RANGE });
    expect(pages).toBe(Math.ceil(2880 / MAX_PAGE_BUCKETS));
    expect(pages).toBeGreaterThan(1);
    expect(candles).toHaveLength(2880);
    expect(new Set(candles.map((c) => c.t)).size).toBe(2880);
    const hourly = (await allCandles({ interval: '1h', ...RANGE })).candles;
    const minutes = candles.reduce((sum, c) => sum + c.observations, 0);
    expect(minutes).toBe(hourly.reduce((sum, c) => sum + c.observations, 0));
  });

  it('converts at the rate in force in each bucket', async () => {
    const usd = (await allCandles({ interval: '1h', ...RANGE })).candles;
    const eur = (await allCandles({ interval: '1h', ...RANGE, currency: 'EUR' })).candles;
    for (const [i, candle] of eur.entries()) {
      const dollars = usd[i] as Candle;
      if (dollars.close === null) continue;
      const [rate] = await collector.warehouse.query(
        `SELECT rate::DOUBLE AS rate FROM fx_rates WHERE currency = 'EUR'
          AND updated_at < TIMESTAMP '${candle.t.replace('Z', '')}' + INTERVAL 1 HOUR ORDER BY updated_at DESC LIMIT 1`,
      );
      expect(candle.rate).toBe(rate?.rate);
      expect(candle.close).toBe(Math.round(dollars.close * Number(rate?.rate) * 100) / 100);
    }
  });

  it('answers a closed range with an ETag, and 304 to it', async () => {
    const path = candlesPath({ interval: '1h', from: RANGE.from, to: '2026-11-20T06:00:00Z' });
    const first = await get(path);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"/);
    expect((await get(path, { headers: { 'if-none-match': etag as string } })).status).toBe(304);
    // A range with an open bucket has none.
    expect((await get(candlesPath({ interval: '1h', ...RANGE }))).headers.get('etag')).toBeNull();
  });

  it('answers the 7-day stats as the raw rows compute them', async () => {
    const stats = await get(`${candlesPath({ window: '7d' }).replace('/candles', '/stats')}`);
    expect(stats.status, stats.text).toBe(200);
    const now = Date.parse(stats.body.to);
    // Minute buckets over the window: every sighting of the two runs falls in one.
    const start = Math.floor((now - 7 * 86_400_000) / 60_000) * 60_000;
    const expected = await expectedCandles(60_000, start, now + 60_000);
    const asks = expected.changes.map((c) => c.ask).filter((a) => a !== null) as number[];
    expect(stats.body.min).toBe(Math.min(...asks));
    expect(stats.body.max).toBe(Math.max(...asks));
    expect(stats.body.median).toBeGreaterThanOrEqual(stats.body.min);
    expect(stats.body.median).toBeLessThanOrEqual(stats.body.max);
    const counted = [...expected.buckets.values()];
    expect(stats.body.appeared_per_day).toBeCloseTo(counted.reduce((n, c) => n + c.appeared, 0) / 7, 9);
    expect(stats.body.left_per_day).toBeCloseTo(counted.reduce((n, c) => n + c.left, 0) / 7, 9);
    // Collected: from the first landing to now, less the night the collector was down.
    const [spans] = await collector.warehouse.query(
      `SELECT epoch_ms(min(started_at)) AS first, (SELECT sum(epoch_ms(ended_at) - epoch_ms(started_at)) FROM ingest_gaps) AS gaps FROM loads`,
    );
    const watched = now - Number(spans?.first) - Number(spans?.gaps);
    expect(stats.body.collected).toBeCloseTo(watched / (7 * 86_400_000), 9);
    expect(stats.body.collected).toBeLessThan(0.2);
    // The group's rows: a minute its live figures changed, and every minute a list was fetched
    // while it had a figure, each with the live ask standing then.
    const fetches = await collector.warehouse.query(
      `SELECT DISTINCT epoch_ms(date_trunc('minute', fetched_at)) AS minute FROM snapshot_fetches ORDER BY minute`,
    );
    const standing = (minute: number) => expected.changes.filter((c) => c.minute <= minute).at(-1);
    const rows = new Set(fetches.map((f) => Number(f.minute)).filter((m) => m < now && standing(m)));
    for (const [i, change] of expected.changes.entries()) {
      const before = expected.changes[i - 1];
      if (before?.ask !== change.ask || before?.listed !== change.listed) rows.add(change.minute);
    }
    const minutes = [...rows].sort((a, b) => a - b);
    const observed = minutes
      .map((m) => standing(m)?.ask)
      .filter((a) => a != null)
      .map(Number);
    expect(stats.body.observations).toBe(minutes.length);
    const sorted = [...observed].sort((a, b) => a - b);
    const middle = sorted.length / 2;
    const median =
      sorted.length % 2
        ? (sorted[Math.floor(middle)] as number)
        : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
    const mean = observed.reduce((sum, a) => sum + a, 0) / observed.length;
    // Each answered in cents, so within half a cent.
    expect(Math.abs(stats.body.median - median)).toBeLessThanOrEqual(0.005 + 1e-9);
    expect(Math.abs(stats.body.mean - mean)).toBeLessThanOrEqual(0.005 + 1e-9);
    // Volatility: the sample deviation of the log returns from one hour's close to the next hour
    // with rows, a close being the ask at the hour's last row.
    const closes = new Map<number, number | null>();
    for (const m of minutes)
      closes.set(Math.floor(m / 3_600_000), (standing(m)?.ask as number | null) ?? null);
    const hourly = [...closes.values()];
    const returns = hourly
      .slice(1)
      .map((close, i) =>
        close === null || hourly[i] == null ? null : Math.log(close / (hourly[i] as number)),
      )
      .filter((r) => r !== null) as number[];
    const average = returns.reduce((sum, r) => sum + r, 0) / returns.length;
    const deviation = Math.sqrt(
      returns.reduce((sum, r) => sum + (r - average) ** 2, 0) / (returns.length - 1),
    );
    expect(returns.length).toBeGreaterThanOrEqual(2);
    expect(stats.body.volatility).toBeCloseTo(deviation, 9);
    // The float quartiles of the listings live now: each one's float at its latest sighting.
    const [floats] = await collector.warehouse.query(`
      WITH sightings AS (${SIGHTINGS}),
      departures AS (${DEPARTURES}),
      latest AS (
        SELECT listing_id, arg_max(CAST(data->>'float_value' AS DOUBLE), ${LATEST}) AS float_value,
          max(seen_at) AS seen, arg_max(s.pos, ${LATEST}) AS seen_pos
        FROM sightings s
        WHERE data->>'market_hash_name' = ${sql(group.name)}
          AND (data->>'wear') IS NOT DISTINCT FROM ${sql(group.wear)}
          AND (data->>'doppler_phase') IS NOT DISTINCT FROM ${sql(group.phase)}
        GROUP BY listing_id
      )
      SELECT quantile_cont(float_value, [0.25, 0.5, 0.75]) AS q FROM latest l
      WHERE float_value IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM departures d WHERE d.listing_id = l.listing_id AND ${departedSince('d', 'l')})`);
    expect(floats?.q).not.toBeNull();
    expect(stats.body.float_quartiles).toEqual(floats?.q);
  });

  it('ranks the movers by liquidity', async () => {
    const movers = await get('/movers?window=7d&by=liquidity&limit=5');
    expect(movers.status, movers.text).toBe(200);
    const moved = movers.body.movers.map((m: Candle) => m.listings_moved);
    expect(moved).toEqual([...moved].sort((a, b) => b - a));
    expect(movers.body.movers.length).toBeGreaterThan(0);
  });

  it('reads every page, item, stats and movers through the typed client', async () => {
    const history = new HistoryClient({ baseUrl: base, apiKey: KEY });
    try {
      const query = {
        market_hash_name: group.name,
        ...(group.wear ? { wear: group.wear } : {}),
        ...(group.phase ? { phase: group.phase } : {}),
      };
      const candles = [];
      for await (const candle of history.allCandles({ ...query, interval: '1m', ...RANGE }))
        candles.push(candle);
      expect(candles).toEqual((await allCandles({ interval: '1m', ...RANGE })).candles);
      const items = [];
      for await (const item of history.allItems()) items.push(item);
      expect(items).toContainEqual(expect.objectContaining({ market_hash_name: group.name }));
      expect((await history.stats({ ...query, window: '7d' })).observations).toBeGreaterThan(0);
      expect(
        (await history.movers({ window: '7d', by: 'liquidity', limit: 3 })).movers.length,
      ).toBeGreaterThan(0);
      const refused = await history
        .stats({ market_hash_name: 'Nothing', window: '7d' })
        .catch((error) => error);
      expect(isApiError(refused) && refused.code).toBe('not_found');
    } finally {
      await history.close();
    }
  });

  it('lists the item groups with data', async () => {
    const found = await get(`/items?q=${encodeURIComponent(group.name.slice(0, 6).toLowerCase())}`);
    expect(found.status).toBe(200);
    expect(found.body.items).toContainEqual(
      expect.objectContaining({ market_hash_name: group.name, wear: group.wear, phase: group.phase }),
    );
  });

  it('answers the days moved to the lake as it did from the file', async () => {
    const before = await get(candlesPath({ interval: '15m', from: RANGE.from, to: '2026-11-21T00:00:00Z' }));
    const moved = await collector.warehouse.moveToLake(Date.parse('2026-11-21T00:00:00Z'));
    // fct_minask_history is a view over these runs and minutes, which move.
    expect(JSON.stringify(moved)).toMatch(/int_minask_spells/);
    const after = await get(candlesPath({ interval: '15m', from: RANGE.from, to: '2026-11-21T00:00:00Z' }));
    expect(after.body).toEqual(before.body);
  });

  it.each([
    [
      'an unknown item',
      '/candles?market_hash_name=Nothing&interval=1h&from=2026-11-20T00:00:00Z&to=2026-11-21T00:00:00Z',
      404,
      'not_found',
    ],
    ['from after to', 'interval=1h&from=2026-11-21T00:00:00Z&to=2026-11-20T00:00:00Z', 400, 'invalid_param'],
    [
      'too many buckets',
      'interval=1m&from=2026-08-20T00:00:00Z&to=2026-11-20T00:00:00Z',
      400,
      'invalid_param',
    ],
    [
      'a bad currency',
      'interval=1h&from=2026-11-20T00:00:00Z&to=2026-11-21T00:00:00Z&currency=XXX',
      400,
      'invalid_param',
    ],
    ['a bad interval', 'interval=2h&from=2026-11-20T00:00:00Z&to=2026-11-21T00:00:00Z', 400, 'invalid_param'],
    [
      'a bad cursor',
      'interval=1h&from=2026-11-20T00:00:00Z&to=2026-11-21T00:00:00Z&cursor=abc',
      400,
      'invalid_param',
    ],
  ])('answers %s with { code, detail }', async (_name, query, status, code) => {
    const path = query.startsWith('/') ? query : `${candlesPath({})}&${query}`;
    const answer = await get(path);
    expect(answer.status, answer.text).toBe(status);
    expect(answer.body).toEqual({ code, detail: expect.any(String) });
  });

  it('refuses a missing or unknown key, and answers CORS and gzip as configured', async () => {
    expect((await get('/items', { key: null })).body.code).toBe('missing_api_key');
    expect((await get('/items', { key: 'hist_not_a_key_at_all_000' })).body.code).toBe('invalid_api_key');
    const browser = await get('/items', { headers: { origin: ORIGIN } });
    expect(browser.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    const stranger = await get('/items', { headers: { origin: 'https://evil.example' } });
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
    const zipped = await get(candlesPath({ interval: '1h', ...RANGE }), {
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(zipped.body.candles).toHaveLength(48);
  });

  it('limits each key per rolling minute with Retry-After', async () => {
    let last: TestResponse | undefined;
    for (let i = 0; i < 41; i++) last = await get('/items', { key: RATE_KEY });
    expect(last?.status).toBe(429);
    expect(last?.body).toMatchObject({ code: 'rate_limit_exceeded', limit: 40 });
    expect(Number(last?.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('bans an address after too many bad keys, as the service does', async () => {
    // Past the window of the bad keys sent by the tests before.
    vi.setSystemTime(Date.now() + 61_000);
    const codes: string[] = [];
    for (let i = 0; i < 31; i++)
      codes.push((await get('/items', { key: `hist_wrong_key_number_${i}0000` })).body.code);
    expect(codes.slice(0, 30).every((code) => code === 'invalid_api_key')).toBe(true);
    expect(codes.at(-1)).toBe('too_many_failed_auth');
    const refused = await get('/items');
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('too_many_failed_auth');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    vi.setSystemTime(Date.now() + 301_000);
    expect((await get('/items')).status).toBe(200);
  });

  it('refuses to start with a keys file others may read', async () => {
    const open = join(t.dir, 'open-keys.txt');
    await writeFile(open, `${KEY}\n`, { mode: 0o644 });
    await expect(
      startTestCollector(t, (await keyOf()).key, {
        warehouse: { path: join(t.dir, 'other.duckdb') },
        history: { port: 0, keysFile: open },
      }),
    ).rejects.toThrow(/may be read by others \(mode 644\); chmod 600 it/);
  });

  it('never answered a 5xx', () => {
    expect(answered.filter((a) => a.status >= 500).map((a) => a.text)).toEqual([]);
  });
});

/** A SQL literal of a text or null. */
function sql(value: string | null): string {
  return value === null ? 'NULL' : `'${value.replaceAll("'", "''")}'`;
}
