/**
 * `GET /v1/history/stats` and `GET /v1/history/movers`: figures of one item group over a window
 * ending now, and the groups of a game ranked by their change or their liquidity. The cheapest ask's
 * min, max, median and mean are over the window's observations (rows of `fct_minask_history`: its
 * whole hours rolled up in `fct_minask_hourly`, their asks' histograms; its partial first and last
 * hours read from the tables behind the view, `group-rows.ts`), its change from the first to the
 * last, and its volatility the sample deviation of the log returns of the hourly closes. Listings
 * appearing and leaving per day and the median lifetime of those that left come from
 * `fct_listing_lifecycle`; the float quartiles from the live listings (`fct_float_rank`).
 * `collected` is the share of the window after the first landing and outside every span of
 * `ingest_gaps`.
 */
import type { z } from 'zod';
import type {
  moversAnswerSchema,
  moversQuerySchema,
  statsAnswerSchema,
  statsQuerySchema,
} from '../../contract/history.js';
import { groupRowsSql } from './group-rows.js';
import type { HistoryReader } from './history-reader.js';
import { GROUP_FILTER, groupParams, readGroup } from './item-group.js';

/** Window lengths in ms. */
export const WINDOW_MS = {
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
  '30d': 30 * 86_400_000,
  '90d': 90 * 86_400_000,
} as const;

// Each relation is read once and its figures aggregated together: one row per part, joined. The
// window's whole hours are read from fct_minask_hourly (their asks' histograms hold the same
// multiset as their rows, so the same median and mean), only its first partial hour (and the last,
// when the window ends mid-hour) from the rows of fct_minask_history: 2,160 rows for 90 days instead
// of 55,000 runs joined to 130,000 minutes.
const statsSql = (rate: string) => `
WITH edge_rows AS (
  (${groupRowsSql('$start::TIMESTAMP', '$whole_from::TIMESTAMP')})
  UNION ALL
  (${groupRowsSql('$whole_to::TIMESTAMP', '$end::TIMESTAMP')})
),
hours AS MATERIALIZED (
  -- Per wear and hour the figures of its rows: fct_minask_hourly's for the whole hours, the same
  -- rolled up from the rows for the partial ones.
  SELECT wear, hour, minutes, live_min_ask_low_usd AS low_usd, live_min_ask_high_usd AS high_usd,
    live_min_ask_open_usd AS open_usd, live_min_ask_close_usd AS close_usd, first_minute, last_minute,
    live_min_ask_histogram AS asks
  FROM fct_minask_hourly
  WHERE ${GROUP_FILTER} AND hour >= $whole_from::TIMESTAMP AND hour < $whole_to::TIMESTAMP
  UNION ALL
  SELECT wear, date_trunc('hour', minute), count(*), min(live_min_ask_usd), max(live_min_ask_usd),
    arg_min_null(live_min_ask_usd, minute), arg_max_null(live_min_ask_usd, minute), min(minute), max(minute),
    histogram(live_min_ask_usd)
  FROM edge_rows GROUP BY wear_rank, wear, date_trunc('hour', minute)
),
observed AS (
  SELECT min(low_usd) AS min_usd, max(high_usd) AS max_usd,
    arg_min_null(open_usd, first_minute) AS first_usd, arg_max_null(close_usd, last_minute) AS last_usd,
    CAST(coalesce(sum(minutes), 0) AS BIGINT) AS observations
  FROM hours
),
asks AS (
  SELECT e.key AS ask, sum(e.value) AS n FROM (SELECT unnest(map_entries(asks)) AS e FROM hours) GROUP BY ask
),
middle AS (
  -- median() and avg() of the asks, each counted as often as the histograms say: the median of the
  -- asks at the two middle ranks (the same interpolation as over the whole multiset), and the
  -- mean as avg() of a DECIMAL computes it (the exact sum of the cents over the count).
  SELECT list_median([min(ask) FILTER (WHERE upto > (total - 1) // 2), min(ask) FILTER (WHERE upto > total // 2)])
      AS median_usd,
    CAST(sum(CAST(ask * 100 AS BIGINT) * n) AS DOUBLE) / nullif(CAST(sum(n) * 100 AS DOUBLE), 0) AS mean_usd
  FROM (SELECT ask, n, sum(n) OVER (ORDER BY ask ROWS UNBOUNDED PRECEDING) AS upto, sum(n) OVER () AS total FROM asks)
),
hourly AS (
  -- fct_minask_hourly's closes of the window's hours (those that start in it).
  SELECT stddev_samp(r) AS volatility FROM (
    SELECT ln(close_usd / lag(close_usd) OVER (ORDER BY hour)) AS r FROM hours WHERE hour >= $start::TIMESTAMP
  ) WHERE r IS NOT NULL
),
lives AS (
  SELECT count(*) FILTER (WHERE first_seen_at >= $start::TIMESTAMP AND first_seen_at < $end::TIMESTAMP) AS appeared,
    count(*) FILTER (WHERE gone_at >= $start::TIMESTAMP AND gone_at < $end::TIMESTAMP) AS departed,
    median(seconds_on_market) FILTER (WHERE gone_at >= $start::TIMESTAMP AND gone_at < $end::TIMESTAMP) AS lifetime
  FROM fct_listing_lifecycle
  WHERE ${GROUP_FILTER}
    AND (first_seen_at >= $start::TIMESTAMP AND first_seen_at < $end::TIMESTAMP
      OR gone_at >= $start::TIMESTAMP AND gone_at < $end::TIMESTAMP)
),
floats AS (
  SELECT quantile_cont(float_value, [0.25, 0.5, 0.75]) AS float_quartiles FROM fct_float_rank
  WHERE $app_id = 730 AND market_hash_name = $name AND ($wear::VARCHAR IS NULL OR wear = $wear::VARCHAR)
    AND doppler_phase IS NOT DISTINCT FROM $phase::VARCHAR
),
first_load AS (SELECT epoch_ms(min(started_at)) AS first_load_ms FROM loads),
gaps AS (
  SELECT coalesce(sum(epoch_ms(least(coalesce(ended_at, $end::TIMESTAMP), $end::TIMESTAMP)) - epoch_ms(greatest(started_at, $start::TIMESTAMP))), 0) AS gap_ms
  FROM ingest_gaps WHERE started_at < $end::TIMESTAMP AND coalesce(ended_at, $end::TIMESTAMP) > $start::TIMESTAMP
)
SELECT *, ${rate} AS rate
FROM observed, middle, hourly, lives, floats, first_load, gaps`;

/**
 * The statement per currency: the rate in force at the window's end (units per USD; null before
 * any), and for USD, the base currency, 1 (stg_fx_rates' own constant row) without reading the rates.
 */
const STATS_SQL = {
  usd: statsSql('1.0::DOUBLE'),
  other: statsSql(`(
    SELECT rate::DOUBLE FROM stg_fx_rates WHERE currency = $currency AND valid_from < $end::TIMESTAMP
    ORDER BY valid_from DESC LIMIT 1
  )`),
};

const HOUR_MS = 3_600_000;

/** Rounds dollars to cents and converts them at `rate` (null stays null). */
function money(usd: unknown, rate: number | null): number | null {
  if (usd === null || usd === undefined || rate === null) return null;
  return Math.round(Number(usd) * rate * 100) / 100;
}

/** Answers a stats request over the window ending at `now`. */
export async function readStats(
  reader: HistoryReader,
  query: z.infer<typeof statsQuerySchema>,
  now: number,
): Promise<z.infer<typeof statsAnswerSchema>> {
  const group = groupParams(query);
  const length = WINDOW_MS[query.window];
  const start = now - length;
  const usd = query.currency === 'USD';
  const read = () =>
    reader.rows(usd ? STATS_SQL.usd : STATS_SQL.other, {
      ...group,
      start: new Date(start).toISOString(),
      whole_from: new Date(Math.ceil(start / HOUR_MS) * HOUR_MS).toISOString(),
      whole_to: new Date(Math.floor(now / HOUR_MS) * HOUR_MS).toISOString(),
      end: new Date(now).toISOString(),
      ...(usd ? {} : { currency: query.currency }),
    });
  const [row = {}] = await readGroup(reader, group, read, ([figures]) => Number(figures?.observations) > 0);
  const rate = (row.rate as number | null) ?? null;
  const days = length / 86_400_000;
  const first = row.first_usd as number | null;
  const last = row.last_usd as number | null;
  const firstLoad = row.first_load_ms === null ? now : Number(row.first_load_ms);
  const watched = Math.max(0, now - Math.max(start, firstLoad) - Number(row.gap_ms));
  const quartiles = row.float_quartiles as number[] | null;
  return {
    app_id: query.appId,
    market_hash_name: query.market_hash_name,
    wear: query.wear ?? null,
    phase: query.phase ?? null,
    window: query.window,
    from: new Date(start).toISOString(),
    to: new Date(now).toISOString(),
    currency: query.currency,
    rate,
    observations: Number(row.observations),
    min: money(row.min_usd, rate),
    max: money(row.max_usd, rate),
    median: money(row.median_usd, rate),
    mean: money(row.mean_usd, rate),
    change: first === null || last === null ? null : money(last - first, rate),
    change_pct:
      first === null || last === null || first === 0
        ? null
        : Math.round(((last - first) / first) * 10_000) / 100,
    volatility: (row.volatility as number | null) ?? null,
    appeared_per_day: Number(row.appeared) / days,
    left_per_day: Number(row.departed) / days,
    median_lifetime_seconds: (row.lifetime as number | null) ?? null,
    float_quartiles: quartiles?.every((q) => q !== null) ? quartiles : null,
    collected: Math.min(1, watched / length),
  };
}

const MOVERS_SQL = `
WITH closes AS (
  SELECT market_hash_name, wear, doppler_phase, arg_min(live_min_ask_close_usd, hour) AS first_usd,
    arg_max(live_min_ask_close_usd, hour) AS last_usd
  FROM fct_minask_hourly
  WHERE app_id = $app_id AND hour >= $start::TIMESTAMP AND hour < $end::TIMESTAMP
  GROUP BY market_hash_name, wear, doppler_phase
),
moves AS (
  SELECT market_hash_name, wear, doppler_phase, count(*) AS moves FROM fct_listing_lifecycle
  WHERE app_id = $app_id AND (first_seen_at >= $start::TIMESTAMP AND first_seen_at < $end::TIMESTAMP
    OR gone_at >= $start::TIMESTAMP AND gone_at < $end::TIMESTAMP)
  GROUP BY market_hash_name, wear, doppler_phase
)
SELECT c.market_hash_name, c.wear, c.doppler_phase AS phase, c.first_usd, c.last_usd,
  (c.last_usd - c.first_usd) / nullif(c.first_usd, 0) * 100 AS change_pct, coalesce(m.moves, 0) AS moves
FROM closes c LEFT JOIN moves m
  ON m.market_hash_name = c.market_hash_name AND m.wear IS NOT DISTINCT FROM c.wear
  AND m.doppler_phase IS NOT DISTINCT FROM c.doppler_phase
ORDER BY CASE WHEN $by = 'change' THEN abs(change_pct) ELSE moves END DESC NULLS LAST,
  c.market_hash_name, coalesce(c.wear, ''), coalesce(c.doppler_phase, '')
LIMIT $limit`;

/** Answers a movers request over the window ending at `now`. */
export async function readMovers(
  reader: HistoryReader,
  query: z.infer<typeof moversQuerySchema>,
  now: number,
): Promise<z.infer<typeof moversAnswerSchema>> {
  const start = now - WINDOW_MS[query.window];
  const built = (await reader.has('fct_minask_hourly')) && (await reader.has('fct_listing_lifecycle'));
  const rows = !built
    ? []
    : await reader.rows(MOVERS_SQL, {
        app_id: query.appId,
        start: new Date(start).toISOString(),
        end: new Date(now).toISOString(),
        by: query.by,
        limit: query.limit,
      });
  return {
    app_id: query.appId,
    window: query.window,
    by: query.by,
    movers: rows.map((row) => ({
      market_hash_name: String(row.market_hash_name),
      wear: row.wear as string | null,
      phase: row.phase as string | null,
      first_usd: row.first_usd as number | null,
      last_usd: row.last_usd as number | null,
      change_pct: row.change_pct === null ? null : Math.round(Number(row.change_pct) * 100) / 100,
      listings_moved: Number(row.moves),
    })),
  };
}
