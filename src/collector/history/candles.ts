/**
 * `GET /v1/history/candles`: per bucket `[t, t + interval)` of one item group, the open, high, low
 * and close of the collector's own cheapest ask (its rows of `fct_minask_history` in the bucket are
 * its observations), the listed count at open, close and its maximum, the listings that appeared
 * and left (`fct_listing_lifecycle`), and the service list's cheapest ask at the close (the view's
 * rows are read from the tables behind it, see `group-rows.ts`; a bucket of whole hours from the
 * same rows rolled up in `fct_minask_hourly`, a 90-day read of 2,160 rows instead of 130,000). A bucket
 * with no observation is a row of nulls, never dropped or filled. A bucket is `complete: false`
 * while it is open, or when a span of `ingest_gaps` (collection down, a reconnect) overlaps it,
 * with that span. Amounts are in the asked currency at the rate in force at the bucket's close.
 * Every relation is read by its name, which spans the warehouse file and the lake.
 */

import type { z } from 'zod';
import { ApiError } from '../../contract/api-error.js';
import {
  type candlesAnswerSchema,
  type candlesQuerySchema,
  INTERVAL_SECONDS,
  MAX_PAGE_BUCKETS,
  MAX_RANGE_BUCKETS,
} from '../../contract/history.js';
import { groupRowsSql } from './group-rows.js';
import type { HistoryReader } from './history-reader.js';
import { GROUP_FILTER, groupParams, readGroup } from './item-group.js';

type CandlesQuery = z.infer<typeof candlesQuerySchema>;
type CandlesAnswer = z.infer<typeof candlesAnswerSchema>;

/** A bucket's figures from the group's rows of `fct_minask_history` (any interval). */
const MINUTE_FIGURES = `
observed AS (
  SELECT make_timestamp((epoch_us(minute) // $step_us) * $step_us) AS t, minute,
    live_min_ask_usd, live_listed_count, service_min_ask_usd
  FROM (${groupRowsSql('$page_start::TIMESTAMP', '$page_end::TIMESTAMP')})
),
figures AS (
  SELECT t, count(*) AS observations, min(minute) AS first_observed_at, max(minute) AS last_observed_at,
    arg_min_null(live_min_ask_usd, minute) AS open, max(live_min_ask_usd) AS high,
    min(live_min_ask_usd) AS low, arg_max_null(live_min_ask_usd, minute) AS close,
    arg_min(live_listed_count, minute) AS listed_open, arg_max(live_listed_count, minute) AS listed_close,
    max(live_listed_count) AS listed_max, arg_max_null(service_min_ask_usd, minute) AS service_min_ask
  FROM observed GROUP BY t
)`;

/**
 * The same figures of a bucket of whole hours from the group's rows of `fct_minask_hourly`, each an
 * hour of those rows rolled up (a bucket's first row opens it, its last closes it; the listed count
 * is never null): 24 rows a day instead of a row a minute joined to its run.
 */
const HOURLY_FIGURES = `
figures AS (
  SELECT make_timestamp((epoch_us(hour) // $step_us) * $step_us) AS t, CAST(sum(minutes) AS BIGINT) AS observations,
    min(first_minute) AS first_observed_at, max(last_minute) AS last_observed_at,
    arg_min_null(live_min_ask_open_usd, first_minute) AS open, max(live_min_ask_high_usd) AS high,
    min(live_min_ask_low_usd) AS low, arg_max_null(live_min_ask_close_usd, last_minute) AS close,
    arg_min(live_listed_count_open, first_minute) AS listed_open,
    arg_max(live_listed_count_close, last_minute) AS listed_close, max(live_listed_count_max) AS listed_max,
    arg_max_null(service_min_ask_close_usd, last_minute) AS service_min_ask
  FROM fct_minask_hourly
  WHERE ${GROUP_FILTER} AND hour >= $page_start::TIMESTAMP AND hour < $page_end::TIMESTAMP
  GROUP BY t
)`;

/** Each bucket's rate of the asked currency: the one in force at its close. */
const RATES = `rates AS (
  SELECT b.t, r.rate FROM buckets b
  ASOF LEFT JOIN (SELECT rate, valid_from FROM stg_fx_rates WHERE currency = $currency) r
    ON b.t + to_seconds($step::BIGINT) > r.valid_from
)`;

/**
 * The same for USD, the base currency: 1 at all times (stg_fx_rates' own constant row), without
 * reading the rates (4-5 ms of a 90-day page, node, 1 thread).
 */
const USD_RATES = 'rates AS (SELECT t, 1.0::DOUBLE AS rate FROM buckets)';

/** The candles of a page, their figures from `figures` (one of the two above), their rates from `rates`. */
const candlesSql = (figures: string, rates: string) => `
WITH buckets AS (
  SELECT unnest(range($page_start::TIMESTAMP, $page_end::TIMESTAMP, to_seconds($step::BIGINT))) AS t
),
${figures},
lives AS (
  SELECT first_seen_at, gone_at FROM fct_listing_lifecycle
  WHERE ${GROUP_FILTER}
    AND (first_seen_at >= $page_start::TIMESTAMP AND first_seen_at < $page_end::TIMESTAMP
      OR gone_at >= $page_start::TIMESTAMP AND gone_at < $page_end::TIMESTAMP)
),
appeared AS (
  SELECT make_timestamp((epoch_us(first_seen_at) // $step_us) * $step_us) AS t, count(*) AS n
  FROM lives GROUP BY t
),
departed AS (
  SELECT make_timestamp((epoch_us(gone_at) // $step_us) * $step_us) AS t, count(*) AS n
  FROM lives WHERE gone_at IS NOT NULL GROUP BY t
),
gaps AS (
  SELECT b.t, min(g.started_at) AS gap_from,
    CASE WHEN bool_or(g.ended_at IS NULL) THEN NULL ELSE max(g.ended_at) END AS gap_to
  FROM buckets b
  JOIN ingest_gaps g ON g.started_at < b.t + to_seconds($step::BIGINT)
    AND coalesce(g.ended_at, $now::TIMESTAMP) > b.t
  GROUP BY b.t
),
${rates}
SELECT b.t, f.observations, f.first_observed_at, f.last_observed_at,
  CAST(round(f.open * r.rate, 2) AS DECIMAL(18, 2)) AS open,
  CAST(round(f.high * r.rate, 2) AS DECIMAL(18, 2)) AS high,
  CAST(round(f.low * r.rate, 2) AS DECIMAL(18, 2)) AS low,
  CAST(round(f.close * r.rate, 2) AS DECIMAL(18, 2)) AS close,
  f.listed_open, f.listed_close, f.listed_max,
  CAST(round(f.service_min_ask * r.rate, 2) AS DECIMAL(18, 2)) AS service_min_ask,
  coalesce(a.n, 0) AS appeared, coalesce(d.n, 0) AS departed, r.rate::DOUBLE AS rate, g.gap_from, g.gap_to
FROM buckets b
LEFT JOIN figures f USING (t)
LEFT JOIN appeared a USING (t)
LEFT JOIN departed d USING (t)
LEFT JOIN gaps g USING (t)
LEFT JOIN rates r USING (t)
ORDER BY b.t`;

const HOUR_MS = 3_600_000;

/** Per interval: whole hours read `fct_minask_hourly`, shorter ones the minutes; then per currency. */
const CANDLES_SQL = {
  minutes: { usd: candlesSql(MINUTE_FIGURES, USD_RATES), other: candlesSql(MINUTE_FIGURES, RATES) },
  hours: { usd: candlesSql(HOURLY_FIGURES, USD_RATES), other: candlesSql(HOURLY_FIGURES, RATES) },
};

/** Answers a candles request: one page of buckets from the cursor (or `from`) on. */
export async function readCandles(
  reader: HistoryReader,
  query: CandlesQuery,
  now: number,
): Promise<{ answer: CandlesAnswer; closed: boolean }> {
  const step = INTERVAL_SECONDS[query.interval] * 1000;
  const from = Math.floor(Date.parse(query.from) / step) * step;
  const to = Date.parse(query.to);
  if (to <= Date.parse(query.from)) {
    throw new ApiError('invalid_param', `from (${query.from}) must be before to (${query.to})`);
  }
  const buckets = Math.ceil((to - from) / step);
  if (buckets > MAX_RANGE_BUCKETS) {
    throw new ApiError(
      'invalid_param',
      `${query.interval} candles from ${query.from} to ${query.to} are ${buckets} buckets, more than ${MAX_RANGE_BUCKETS}; ask a wider interval or a shorter range`,
    );
  }
  const start = query.cursor === undefined ? from : cursorStart(query.cursor, from, to, step);
  const end = Math.min(to, start + MAX_PAGE_BUCKETS * step);
  const group = groupParams(query);
  const usd = query.currency === 'USD';
  const read = () =>
    // A page of whole hours (a range's end mid-hour cuts its last hour short: that page reads minutes).
    reader.rows(
      (step % HOUR_MS === 0 && end % HOUR_MS === 0 ? CANDLES_SQL.hours : CANDLES_SQL.minutes)[
        usd ? 'usd' : 'other'
      ],
      {
        ...group,
        page_start: iso(start),
        page_end: iso(end),
        step: step / 1000,
        step_us: step * 1000,
        now: iso(now),
        ...(usd ? {} : { currency: query.currency }),
      },
    );
  const rows = await readGroup(reader, group, read, (page) =>
    page.some((row) => Number(row.observations) > 0),
  );
  const candles = rows.map((row) => {
    const t = Date.parse(String(row.t));
    const gap =
      row.gap_from === null
        ? null
        : { from: String(row.gap_from), to: (row.gap_to as string | null) ?? null };
    return {
      t: String(row.t),
      open: row.open as number | null,
      high: row.high as number | null,
      low: row.low as number | null,
      close: row.close as number | null,
      listed_open: row.listed_open as number | null,
      listed_close: row.listed_close as number | null,
      listed_max: row.listed_max as number | null,
      appeared: Number(row.appeared),
      left: Number(row.departed),
      service_min_ask: row.service_min_ask as number | null,
      first_observed_at: row.first_observed_at as string | null,
      last_observed_at: row.last_observed_at as string | null,
      observations: Number(row.observations ?? 0),
      rate: row.rate as number | null,
      complete: gap === null && t + step <= now,
      gap,
    };
  });
  const answer: CandlesAnswer = {
    app_id: query.appId,
    market_hash_name: query.market_hash_name,
    wear: query.wear ?? null,
    phase: query.phase ?? null,
    interval: query.interval,
    currency: query.currency,
    candles,
    next_cursor: end < to ? encodeCursor(end) : null,
  };
  return { answer, closed: candles.every((c) => c.complete) };
}

/** A cursor is the open of the next bucket, opaque to the caller. */
function encodeCursor(start: number): string {
  return Buffer.from(`c:${start}`).toString('base64url');
}

function cursorStart(cursor: string, from: number, to: number, step: number): number {
  const match = /^c:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString());
  const start = match ? Number(match[1]) : Number.NaN;
  if (!(start >= from && start < to && (start - from) % step === 0)) {
    throw new ApiError('invalid_param', 'cursor is not a next_cursor of this range and interval');
  }
  return start;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
