/**
 * The small table of numbers under each chart, for screen readers and copying: the rows themselves
 * for short charts, and per line of a time series its first, last, lowest and highest figures.
 */
import type { ChartId, Row } from './read-report.js';

/** A table: a header and its text cells. */
export interface NumberTable {
  columns: string[];
  rows: string[][];
}

/** The table under chart `id` of `rows`. */
export function numberTable(id: ChartId, rows: readonly Row[]): NumberTable {
  switch (id) {
    case 'minask':
      return seriesSummary(rows, 'item', 'min_ask_usd', 'minAsk (USD)', 'listed_count');
    case 'fx':
      return seriesSummary(rows, 'currency', 'min_ask', 'minAsk');
    case 'float':
      return {
        columns: ['wear', 'float from', 'float to', 'live listings', 'cheapest ask (USD)'],
        rows: rows.map((r) => [
          text(r.wear),
          fixed(r.bucket_low, 2),
          fixed(r.bucket_high, 2),
          text(r.listings),
          fixed(r.cheapest_ask_usd, 2),
        ]),
      };
    case 'stickers':
      return {
        columns: ['sticker', 'median premium (%)', 'listings behind it', 'listings carrying it'],
        rows: rows.map((r) => [
          text(r.sticker_name),
          fixed(r.median_premium_pct, 2),
          text(r.listings_with_baseline),
          text(r.listings),
        ]),
      };
    case 'net-flow':
      return {
        columns: ['day', 'flow', 'net (USD)'],
        rows: rows.map((r) => [day(r.t), text(r.flow), fixed(r.amount_usd, 2)]),
      };
    case 'order-outcomes':
      return {
        // Per the window's grain: a day, or its hour or minute.
        columns: ['placed (UTC)', 'outcome', 'orders'],
        rows: rows.map((r) => [minute(r.t), text(r.outcome), text(r.orders)]),
      };
  }
}

/** Per series (`key`): its points, time span, first, last, lowest and highest `value` (and last `count`). */
function seriesSummary(
  rows: readonly Row[],
  key: string,
  value: string,
  label: string,
  count?: string,
): NumberTable {
  const series = new Map<string, Row[]>();
  for (const row of rows) series.set(text(row[key]), [...(series.get(text(row[key])) ?? []), row]);
  const columns = [key, 'points', 'from', 'to', `first ${label}`, `last ${label}`, 'lowest', 'highest'];
  return {
    columns: count ? [...columns, 'last listed count'] : columns,
    rows: [...series].map(([name, points]) => {
      const values = points.map((p) => Number(p[value]));
      const first = points[0] ?? {};
      const last = points.at(-1) ?? {};
      const cells = [
        name,
        String(points.length),
        time(first.t),
        time(last.t),
        fixed(first[value], 2),
        fixed(last[value], 2),
        fixed(Math.min(...values), 2),
        fixed(Math.max(...values), 2),
      ];
      return count ? [...cells, text(last[count])] : cells;
    }),
  };
}

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const fixed = (v: unknown, digits: number) =>
  v === null || v === undefined || Number.isNaN(Number(v)) ? '' : Number(v).toFixed(digits);
/** `2026-11-23 12:00` from an ISO time. */
const time = (v: unknown) => text(v).slice(0, 16).replace('T', ' ');
const day = (v: unknown) => text(v).slice(0, 10);
const minute = (v: unknown) => text(v).slice(0, 16).replace('T', ' ');
