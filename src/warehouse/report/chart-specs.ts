/**
 * The report's charts, declared as Vega-Lite specifications over the rows of their queries (the
 * rows are the specification's inline data, unchanged), with a title and what each one shows.
 */
import type { TopLevelSpec } from 'vega-lite';
import { FLOWS } from './account-sections.js';
import { currencyColours, outcomeColours } from './fixed-colours.js';
import { gapNote, withGaps } from './gap-shades.js';
import type { ChartId, CollectionGap, Row, SectionData } from './read-report.js';
import type { ReportWindow } from './report-window.js';
import { timeAxis } from './time-axis.js';

/** How a chart is presented. */
export interface ChartCard {
  title: string;
  /** One sentence of what the chart shows, for the page and the SVG's description. */
  caption: string;
  spec: TopLevelSpec;
}

const WIDTH = 640;
const DAY_MS = 86_400_000;

/** Calendar days (UTC) the window touches. */
const days = (window: ReportWindow) =>
  Math.floor(window.toMs / DAY_MS) - Math.floor(window.fromMs / DAY_MS) + 1;
const GRAIN_WORD = { minute: 'minute', hour: 'hour', day: 'day' } as const;

/** The charts of what the collector lands on its own schedule, where a span without collection shows. */
const SHADED: ReadonlySet<ChartId> = new Set(['minask', 'fx']);

/** The card of a section with rows. */
export function chartCard(
  section: SectionData,
  window: ReportWindow,
  gaps: readonly CollectionGap[] = [],
): ChartCard {
  const { title, caption } = describeChart(section.id, section.rows, window);
  const spec = SPECS[section.id](window, section.rows);
  const shaded = SHADED.has(section.id) && gaps.length > 0;
  return {
    title,
    caption: shaded ? `${caption} ${gapNote(gaps)}` : caption,
    spec: {
      ...(shaded ? withGaps(spec, gaps, window) : spec),
      data: { name: 'rows', values: section.rows },
    } as TopLevelSpec,
  };
}

/** The title and caption of a chart (also shown when it has no rows). */
export function describeChart(
  id: ChartId,
  rows: readonly Row[],
  window: ReportWindow,
): { title: string; caption: string } {
  const grain = GRAIN_WORD[window.grain];
  const item = rows[0]?.item === undefined ? 'an item' : String(rows[0].item);
  switch (id) {
    case 'minask':
      return {
        title: 'minAsk of the most traded items',
        caption: `The service's cheapest ask (closing figure of each ${grain}) and its listed count for the items with the most listings that left the market in the window (fct_minask_${window.grain === 'minute' ? 'history' : window.grain === 'hour' ? 'hourly' : 'daily'}, fct_listing_lifecycle).`,
      };
    case 'float':
      return {
        title: `Float distribution: ${item}`,
        caption: `Live listings of ${item} (the CS2 skin with the most live listings) per 0.01 float bucket, coloured by wear, and the cheapest ask of each bucket (fct_float_distribution).`,
      };
    case 'stickers':
      return {
        title: 'Sticker premiums',
        caption:
          'Stickers with the highest median premium of the listings carrying them over the same item and wear without stickers, with the number of listings behind each figure (at least 3; fct_sticker_stats).',
      };
    case 'fx':
      return {
        title: `minAsk in every currency, change since the window's start: ${item}`,
        caption: `The cheapest price-list ask of ${item} per ${grain}, converted at the rate in force at the time into each currency of the FX table, as its change in percent since the first ${grain} of the window, all currencies on one scale (fct_prices_fx; the amounts are in the table below).${stillNote(rows)}`,
      };
    case 'net-flow':
      return {
        title: 'Daily net flow of trading, and deposits apart',
        caption: `Money in minus money out per day of the collector's own account (the one its key reads now; other accounts the warehouse holds stay out): what trading moved (purchases, refunds, sales, fees) and, apart from it, deposits, withdrawals, bonuses and adjustments such as the opening deposit (fct_account_daily).${days(window) <= 1 ? ' The window lies within one day: one pair of bars.' : ''}`,
      };
    case 'order-outcomes':
      return {
        title: 'Order outcomes',
        caption: `Orders of the collected account per ${grain} they were placed in, by outcome: their status, or returned by reason (fct_order_outcomes).`,
      };
  }
}

/** What a flat FX chart means, as a young warehouse draws it: nothing has moved yet, not a 0 % market. */
function stillNote(rows: readonly Row[]): string {
  if (rows.length === 0 || rows.some((row) => Number(row.change_pct) !== 0)) return '';
  const readings = new Set(rows.map((row) => String(row.t))).size;
  return ` Nothing has moved yet: ${readings === 1 ? 'one reading' : `${readings} readings`} in the window, every currency at 0 % until the price or a rate changes (the collector reads both every 5 minutes).`;
}

/** Amounts with at most 2 decimals: `5.9`, not `5.900000`. */
const AMOUNT = '.2~f';
const usd = (field: string, title: string) => ({
  field,
  type: 'quantitative' as const,
  title,
  scale: { zero: false },
  axis: { format: AMOUNT },
});

/**
 * Whole numbers, each labelled once: Vega ticks a count of 2 every 0.5 whatever the minimum step,
 * which read `0 1 1 2 2`; the half ticks stay unlabelled.
 */
const COUNT_AXIS = { format: 'd', tickMinStep: 1, labelExpr: "datum.value % 1 === 0 ? datum.label : ''" };
/** A legend whose longest labels (`deposits and withdrawals`, `returned: trade_timeout`) are never cut. */
const WHOLE_LABELS = { labelLimit: 400 };

/** The time unit of a bar per grain. */
const UTC_UNIT = {
  minute: 'utcyearmonthdatehoursminutes',
  hour: 'utcyearmonthdatehours',
  day: 'utcyearmonthdate',
} as const;

/** Per chart, its specification without data. */
const SPECS: Record<ChartId, (window: ReportWindow, rows: readonly Row[]) => object> = {
  minask: (window) => ({
    vconcat: [
      {
        width: WIDTH,
        height: 260,
        mark: { type: 'line', point: { size: 12 } },
        encoding: {
          x: timeAxis('', window),
          // Items a hundred times dearer than others: a log scale keeps every line readable.
          y: {
            field: 'min_ask_usd',
            type: 'quantitative',
            title: 'minAsk (USD, log scale)',
            scale: { type: 'log' },
            axis: { format: AMOUNT },
          },
          color: {
            field: 'item',
            type: 'nominal',
            title: 'item',
            sort: { field: 'rank' },
            // Below the chart, two to a row, wide enough for the longest names
            // (`AK-47 | Emerald Pinstripe (Field-Tested)`): to its right it widened the page.
            legend: { orient: 'bottom', columns: 2, labelLimit: 400 },
          },
        },
      },
      {
        width: WIDTH,
        height: 140,
        // Points too: a line of one point draws nothing.
        mark: { type: 'line', strokeDash: [4, 2], point: { size: 12 } },
        encoding: {
          x: timeAxis('time (UTC)', window),
          y: { field: 'listed_count', type: 'quantitative', title: 'listed', axis: COUNT_AXIS },
          color: { field: 'item', type: 'nominal', sort: { field: 'rank' } },
        },
      },
    ],
  }),
  float: () => ({
    vconcat: [
      {
        width: WIDTH,
        height: 220,
        mark: 'bar',
        encoding: {
          x: { field: 'bucket_low', type: 'quantitative', title: '', scale: { domain: [0, 1] } },
          x2: { field: 'bucket_high' },
          y: { field: 'listings', type: 'quantitative', title: 'live listings' },
          y2: { datum: 0 },
          color: { field: 'wear', type: 'nominal', sort: null },
        },
      },
      {
        width: WIDTH,
        height: 140,
        mark: { type: 'point', filled: true },
        encoding: {
          x: { field: 'bucket_low', type: 'quantitative', title: 'float', scale: { domain: [0, 1] } },
          y: usd('cheapest_ask_usd', 'cheapest ask (USD)'),
          color: { field: 'wear', type: 'nominal', sort: null },
        },
      },
    ],
  }),
  stickers: () => ({
    // Room for the longest sticker names (`Sticker | … (Holo) | Stockholm 2021`) within the page.
    width: WIDTH - 280,
    encoding: {
      y: { field: 'sticker_name', type: 'nominal', title: null, sort: null, axis: { labelLimit: 420 } },
      x: { field: 'median_premium_pct', type: 'quantitative', title: 'median premium (%)' },
    },
    layer: [
      { mark: 'bar' },
      {
        // Right of the bar, or of zero for a negative one: at its end it would sit on the bar.
        transform: [{ calculate: 'max(datum.median_premium_pct, 0)', as: 'label_at' }],
        mark: { type: 'text', align: 'left', dx: 4 },
        encoding: {
          x: { field: 'label_at', type: 'quantitative', title: 'median premium (%)' },
          text: { field: 'listings_with_baseline', type: 'quantitative' },
        },
      },
    ],
  }),
  // Every currency's change since the window's start on one scale: a 0.01 move of one currency is
  // as small as it is, where a scale per currency made it look like a crash.
  fx: (window, rows) => ({
    width: WIDTH,
    height: 260,
    mark: { type: 'line', point: { size: 10 } },
    encoding: {
      x: timeAxis('time (UTC)', window),
      y: {
        field: 'change_pct',
        type: 'quantitative',
        title: "change since the window's start (%)",
        axis: { format: '.2~f' },
      },
      color: {
        field: 'currency',
        type: 'nominal',
        title: 'currency',
        scale: currencyColours(rows, 'currency'),
        legend: { columns: 2 },
      },
    },
  }),
  // Trading and deposits side by side per day: stacked, a deposit would hide the trading it dwarfs.
  'net-flow': () => ({
    width: WIDTH,
    height: 200,
    mark: 'bar',
    encoding: {
      x: { field: 't', type: 'ordinal', timeUnit: 'utcyearmonthdate', title: 'day (UTC)' },
      xOffset: { field: 'flow', sort: [FLOWS.trading, FLOWS.deposits] },
      y: { field: 'amount_usd', type: 'quantitative', title: 'net flow (USD)', axis: { format: AMOUNT } },
      color: {
        field: 'flow',
        title: null,
        scale: { domain: [FLOWS.trading, FLOWS.deposits], range: ['#4c78a8', '#bab0ac'] },
        legend: WHOLE_LABELS,
      },
    },
  }),
  'order-outcomes': (window, rows) => ({
    width: WIDTH,
    height: 200,
    mark: 'bar',
    encoding: {
      x: { ...timeAxis(`${window.grain} (UTC)`, window), timeUnit: UTC_UNIT[window.grain] },
      y: { field: 'orders', type: 'quantitative', title: 'orders', stack: true, axis: COUNT_AXIS },
      color: {
        field: 'outcome',
        type: 'nominal',
        scale: outcomeColours(rows, 'outcome'),
        legend: WHOLE_LABELS,
      },
    },
  }),
};
