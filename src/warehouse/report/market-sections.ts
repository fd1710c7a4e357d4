/**
 * The SQL behind each market chart of the report: which models it reads and the query over them.
 * A chart's rows are exactly what its query returns; the test reads them back from the report.
 */
import type { Grain, ReportWindow } from './report-window.js';

/** A chart's query: the models (tables or views) it needs, and its SQL given a window and options. */
export interface SectionQuery {
  /** Models the query reads, each with the columns it needs. */
  needs: Record<string, readonly string[]>;
  sql: string;
}

/** What the market sections are asked to show. */
export interface MarketOptions {
  window: ReportWindow;
  /** Lines of the minAsk chart. */
  items: number;
}

/** A timestamp literal of epoch ms, e.g. `TIMESTAMP '2026-11-23 12:00:00.000'`. */
export function timestampSql(ms: number): string {
  return `TIMESTAMP '${new Date(ms).toISOString().replace('T', ' ').replace('Z', '')}'`;
}

/** Per grain: the model, its time (a TIMESTAMP, of alias `m`) and its minAsk and listed-count columns. */
const SERIES: Record<Grain, { model: string; time: string; ask: string; count: string }> = {
  minute: {
    model: 'fct_minask_history',
    time: 'm.minute',
    ask: 'service_min_ask_usd',
    count: 'service_listed_count',
  },
  hour: {
    model: 'fct_minask_hourly',
    time: 'm.hour',
    ask: 'service_min_ask_close_usd',
    count: 'service_listed_count_close',
  },
  day: {
    model: 'fct_minask_daily',
    time: 'CAST(m.day AS TIMESTAMP)',
    ask: 'service_min_ask_close_usd',
    count: 'service_listed_count_close',
  },
};

const GROUP = ['app_id', 'market_hash_name', 'wear', 'doppler_phase'];
const sameGroup = (a: string, b: string) =>
  GROUP.map((c) => `${a}.${c} IS NOT DISTINCT FROM ${b}.${c}`).join(' AND ');

/**
 * CTEs `series` (every priced group's minAsk and listed count over the window) and `top` (the
 * `items` most traded groups with their `rank` and `item` label): the most listings that left the
 * market in the window (sold, bought or delisted, as fct_listing_lifecycle saw them go) among the
 * groups the service's price list priced in the window.
 */
function topItemsCtes(options: MarketOptions): string {
  const { window, items } = options;
  const s = SERIES[window.grain];
  return `series AS (
  SELECT m.app_id, m.market_hash_name, m.wear, m.doppler_phase, ${s.time} AS t,
    m.${s.ask} AS min_ask_usd, m.${s.count} AS listed_count
  FROM ${s.model} m
  WHERE ${s.time} BETWEEN ${windowStart(window)} AND ${timestampSql(window.toMs)} AND m.${s.ask} IS NOT NULL
),
traded AS (
  SELECT app_id, market_hash_name, wear, doppler_phase, count(*) AS left_market
  FROM fct_listing_lifecycle
  WHERE gone_at BETWEEN ${timestampSql(window.fromMs)} AND ${timestampSql(window.toMs)}
  GROUP BY ALL
),
top AS (
  SELECT g.*, g.market_hash_name || coalesce(' (' || g.doppler_phase || ')', '') AS item,
    coalesce(tr.left_market, 0) AS left_market,
    row_number() OVER (ORDER BY coalesce(tr.left_market, 0) DESC, g.market_hash_name, g.wear, g.doppler_phase) AS rank
  FROM (SELECT DISTINCT app_id, market_hash_name, wear, doppler_phase FROM series) g
  LEFT JOIN traded tr ON ${sameGroup('tr', 'g')}
  QUALIFY rank <= ${items}
)`;
}

/** The most traded items' minAsk (closing figure of each hour or day; every minute for short windows) and listed count. */
function topItemsSql(options: MarketOptions): string {
  return `WITH ${topItemsCtes(options)}
SELECT top.rank, top.item, top.left_market, s.t, s.min_ask_usd, s.listed_count
FROM series s JOIN top ON ${sameGroup('top', 's')}
ORDER BY top.rank, s.t`;
}

/** The start of a window on its grain: a day-grain window starts at its first whole day. */
function windowStart(window: ReportWindow): string {
  return window.grain === 'day'
    ? `CAST(CAST(${timestampSql(window.fromMs)} AS DATE) AS TIMESTAMP)`
    : timestampSql(window.fromMs);
}

/** The minAsk chart's query and the models it needs. */
export function minAskQuery(options: MarketOptions): SectionQuery {
  const s = SERIES[options.window.grain];
  return {
    needs: {
      [s.model]: ['app_id', 'market_hash_name', 'wear', 'doppler_phase', s.ask, s.count],
      fct_listing_lifecycle: ['gone_at', 'market_hash_name'],
    },
    sql: topItemsSql(options),
  };
}

/**
 * The float histogram of one skin across its wears: the CS2 skin (name without its wear) with the
 * most live listings carrying a float, each 0.01 bucket's listings and cheapest ask, by wear band.
 */
export function floatQuery(): SectionQuery {
  return {
    needs: { fct_float_distribution: ['market_hash_name', 'wear', 'bucket', 'listings', 'cheapest_ask_usd'] },
    sql: `WITH skins AS (
  SELECT regexp_replace(market_hash_name, ' \\([^()]*\\)$', '') AS skin, *
  FROM fct_float_distribution
),
chosen AS (
  SELECT skin FROM skins GROUP BY skin ORDER BY sum(listings) DESC, skin LIMIT 1
)
SELECT skin AS item, wear, bucket, CAST(bucket_low AS DOUBLE) AS bucket_low, CAST(bucket_high AS DOUBLE) AS bucket_high,
  CAST(listings AS BIGINT) AS listings, cheapest_ask_usd
FROM skins SEMI JOIN chosen USING (skin)
ORDER BY bucket, wear`,
  };
}

/** Stickers needing at least this many listings over a baseline to be ranked: one listing is noise. */
export const STICKER_MIN_LISTINGS = 3;
const STICKERS_SHOWN = 15;

/** The stickers with the highest median premium, and how many listings each figure stands on. */
export function stickerQuery(): SectionQuery {
  return {
    needs: {
      fct_sticker_stats: ['sticker_name', 'median_premium_pct', 'listings_with_baseline', 'listings'],
    },
    sql: `SELECT sticker_name, round(median_premium_pct, 2) AS median_premium_pct,
  CAST(listings_with_baseline AS BIGINT) AS listings_with_baseline, CAST(listings AS BIGINT) AS listings
FROM fct_sticker_stats
WHERE listings_with_baseline >= ${STICKER_MIN_LISTINGS} AND median_premium_pct IS NOT NULL
ORDER BY median_premium_pct DESC, sticker_name
LIMIT ${STICKERS_SHOWN}`,
  };
}

/** A price group: what a minAsk row is of. */
export interface PriceGroup {
  app_id: number;
  market_hash_name: string;
  wear: string | null;
  doppler_phase: string | null;
  item: string;
}

/** The most traded group of the window (see {@link minAskQuery}), the item of the FX chart. */
export function topGroupSql(options: MarketOptions): string {
  return `WITH ${topItemsCtes({ ...options, items: 1 })}
SELECT app_id, market_hash_name, wear, doppler_phase, item FROM top`;
}

/**
 * One item's minAsk in every currency of the FX table over the window: the most traded item of the
 * minAsk chart (`group`, null when there is none), its cheapest price-list row of each minute, hour
 * or day converted at the rate in force then (fct_prices_fx).
 */
export function fxQuery(options: MarketOptions, group: PriceGroup | null): SectionQuery {
  const { window } = options;
  // The group goes in as literals: DuckDB pushes constant filters down into the view's union.
  const is = (column: keyof PriceGroup) =>
    `f.${column} IS NOT DISTINCT FROM ${sqlLiteral(group?.[column] ?? null)}`;
  return {
    needs: {
      fct_prices_fx: ['kind', 'market_hash_name', 'priced_at', 'currency', 'amount'],
      ...minAskQuery(options).needs,
    },
    sql: `WITH amounts AS (
  SELECT f.currency, date_trunc('${window.grain}', f.priced_at) AS t, min(f.amount) AS min_ask
  FROM fct_prices_fx f
  WHERE f.kind = 'price_list' AND f.amount IS NOT NULL AND ${is('app_id')} AND ${is('market_hash_name')}
    AND ${is('wear')} AND ${is('doppler_phase')}
    AND f.priced_at BETWEEN ${windowStart(window)} AND ${timestampSql(window.toMs)}
  GROUP BY ALL
)
SELECT ${sqlLiteral(group?.item ?? null)} AS item, currency, t, min_ask,
  round(100 * (min_ask / nullif(first_value(min_ask) OVER (PARTITION BY currency ORDER BY t), 0) - 1), 4) AS change_pct
FROM amounts
ORDER BY currency, t`,
  };
}

/** A value as a SQL literal. */
function sqlLiteral(value: string | number | null): string {
  if (value === null) return 'NULL';
  return typeof value === 'number' ? String(value) : `'${value.replaceAll("'", "''")}'`;
}
