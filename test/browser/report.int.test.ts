/**
 * The report page in headless Chromium (the system's, driven through playwright-core, which
 * downloads nothing) at 1,400 px, over a warehouse of five minutes (a fresh collector) and one of
 * four days with two hours in which nothing was collected, each with an account's trading: every
 * chart drawn with zero console errors and nothing loaded but the page, no horizontal scrollbar,
 * no text cut short, a colour per currency and per order outcome (the same in every run), trading
 * and deposits apart, and the span without collection shaded where it lies. A screenshot of each
 * run is left in data/tmp/report-browser/. Skipped, saying so, when `chromium` is not installed.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReport, type ReportSummary, type Warehouse } from '../../src/warehouse/index.js';
import { type DrawnChart, READ_CHART_MARKS } from '../helpers/chart-marks.js';
import { findChromium } from '../helpers/chromium.js';
import { landAccountHistory } from '../helpers/report-account.js';
import { readReportPage } from '../helpers/report-html.js';
import { openReportWarehouse, REPORT_DATA_END_MS } from '../helpers/report-warehouse.js';
import { makeTempDir } from '../warehouse/fixtures.js';

const DAY_MS = 86_400_000;
const SCREENSHOTS = fileURLToPath(new URL('../../data/tmp/report-browser/', import.meta.url));
/** Two hours of the four-day warehouse in which the collector was down. */
const UNCOLLECTED = {
  fromMs: REPORT_DATA_END_MS - 2.5 * DAY_MS,
  toMs: REPORT_DATA_END_MS - 2.5 * DAY_MS + 7_200_000,
};
/** The account's trading of each warehouse. */
const ORDERS = { 'five minutes': 10, 'four days': 40 } as const;

/** A report as a browser shows it. */
interface Run {
  name: string;
  summary: ReportSummary;
  /** The page's console errors and warnings, and every address it asked for. */
  problems: string[];
  requests: string[];
  widths: { scroll: number; client: number };
  charts: Map<string, DrawnChart>;
  /** Each chart's embedded data. */
  data: Map<string, Record<string, unknown>[]>;
}

const executable = findChromium();
let dir: string;
let cleanup: () => void;
const warehouses: Warehouse[] = [];
const runs = new Map<string, Run>();

beforeAll(async () => {
  if (!executable) {
    process.stderr.write(
      'chromium is not installed: the browser tests are skipped (apt-get install chromium)\n',
    );
    return;
  }
  ({ dir, cleanup } = makeTempDir());
  mkdirSync(SCREENSHOTS, { recursive: true });
  const fresh = await openWarehouse('five minutes', { days: 5 / 1440, events: 3_000 });
  const days = await openWarehouse('four days', { days: 4, events: 24_000, uncollected: UNCOLLECTED });
  const browser = await chromium.launch({ executablePath: executable, args: ['--no-sandbox'] });
  try {
    // A fresh collector's report (the default 7 days, fitted to the data), and after days: per day, and per hour.
    for (const [name, warehouse, window] of [
      ['five minutes', fresh, '7d'],
      ['four days', days, '7d'],
      ['four days, last 3', days, '3d'],
    ] as const)
      runs.set(name, await showReport(browser, name, warehouse, window));
  } finally {
    await browser.close();
  }
}, 600_000);
afterAll(async () => {
  for (const warehouse of warehouses) await warehouse.close();
  cleanup?.();
});

/** A generated warehouse with the account's trading over the same span. */
async function openWarehouse(
  name: keyof typeof ORDERS,
  options: { days: number; events: number; uncollected?: typeof UNCOLLECTED },
): Promise<Warehouse> {
  const folder = join(dir, name.replaceAll(' ', '-'));
  mkdirSync(folder);
  const span = { fromMs: REPORT_DATA_END_MS - options.days * DAY_MS, toMs: REPORT_DATA_END_MS };
  const warehouse = await openReportWarehouse(folder, {
    ...options,
    landMore: (w) => landAccountHistory(w, { ...span, orders: ORDERS[name] }),
  });
  warehouses.push(warehouse);
  return warehouse;
}

/** Builds a report of `warehouse` and reads it in a 1,400 px wide page, leaving a screenshot. */
async function showReport(
  browser: Browser,
  name: string,
  warehouse: Warehouse,
  window: string,
): Promise<Run> {
  const summary = await buildReport(warehouse, {
    out: join(dir, 'reports', name.replaceAll(/\W+/g, '-')),
    window,
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning')
      problems.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(pathToFileURL(summary.html).href, { waitUntil: 'load' });
  await page.screenshot({ path: join(SCREENSHOTS, `${name.replaceAll(/\W+/g, '-')}.png`), fullPage: true });
  const widths = (await page.evaluate(
    '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
  )) as Run['widths'];
  const charts = (await page.evaluate(READ_CHART_MARKS)) as DrawnChart[];
  await page.close();
  const specs = readReportPage(summary.html).specs;
  const data = new Map([...specs].map(([id, spec]) => [id, spec.data.values]));
  return { name, summary, problems, requests, widths, charts: new Map(charts.map((c) => [c.id, c])), data };
}

const runOf = (name: string) => runs.get(name) as Run;
const chartOf = (run: Run, id: string) => run.charts.get(id) as DrawnChart;
const NAMES = ['five minutes', 'four days', 'four days, last 3'];

describe.each(NAMES)('the report of %s in headless Chromium at 1,400 px', (name) => {
  it('draws every chart but the stickers without an error, loading nothing but the page', (context) => {
    if (!executable) return context.skip('chromium is not installed');
    const run = runOf(name);
    expect(run.problems).toEqual([]);
    expect(run.requests).toEqual([pathToFileURL(run.summary.html).href]);
    // Stickers need 3 live listings carrying one of an item and wear: a live set may have none.
    expect([...run.charts.keys()].filter((id) => id !== 'stickers')).toEqual([
      'minask',
      'float',
      'fx',
      'net-flow',
      'order-outcomes',
    ]);
  });

  it('needs no horizontal scrollbar and cuts no text in any chart', (context) => {
    if (!executable) return context.skip('chromium is not installed');
    const run = runOf(name);
    expect(run.widths.scroll).toBeLessThanOrEqual(run.widths.client);
    for (const chart of run.charts.values())
      expect({ chart: chart.id, cut: chart.texts.filter((t) => t.includes('…')) }).toEqual({
        chart: chart.id,
        cut: [],
      });
  });

  it("draws the FX chart as each currency's change from its first value, each in a colour of its own", (context) => {
    if (!executable) return context.skip('chromium is not installed');
    const run = runOf(name);
    const rows = run.data.get('fx') ?? [];
    const currencies = [...new Set(rows.map((r) => String(r.currency)))];
    expect(currencies.length).toBeGreaterThan(10);
    for (const currency of currencies) expect(rows.find((r) => r.currency === currency)?.change_pct).toBe(0);
    const chart = chartOf(run, 'fx');
    expect(chart.texts).toContain("change since the window's start (%)");
    expect(chart.lines).toHaveLength(currencies.length);
    expect(new Set(chart.lines).size).toBe(currencies.length);
    expect(chart.legend.map((e) => e.label).sort()).toEqual([...currencies].sort());
    expect(new Set(chart.legend.map((e) => e.colour)).size).toBe(currencies.length);
  });

  it('draws each order outcome in a colour of its own, legend and bars alike', (context) => {
    if (!executable) return context.skip('chromium is not installed');
    const run = runOf(name);
    const outcomes = new Set((run.data.get('order-outcomes') ?? []).map((r) => String(r.outcome)));
    expect(outcomes.size).toBeGreaterThanOrEqual(8);
    const chart = chartOf(run, 'order-outcomes');
    expect(new Set(chart.legend.map((e) => e.label))).toEqual(outcomes);
    expect(new Set(chart.legend.map((e) => e.colour)).size).toBe(outcomes.size);
    const legendColours = new Set(chart.legend.map((e) => e.colour));
    expect(new Set(chart.rects.map((r) => r.colour))).toEqual(legendColours);
    // Every bar inside its plot: a window starting at noon still draws its first day whole.
    for (const bar of chart.rects) {
      expect(bar.from).toBeGreaterThanOrEqual(-0.001);
      expect(bar.to).toBeLessThanOrEqual(1.001);
    }
  });

  it('draws trading and deposits as bars of their own, side by side each day', (context) => {
    if (!executable) return context.skip('chromium is not installed');
    const run = runOf(name);
    const chart = chartOf(run, 'net-flow');
    expect(chart.legend.map((e) => e.label)).toEqual(['trading', 'deposits and withdrawals']);
    const [trading, deposits] = chart.legend.map((e) =>
      chart.rects.filter((r) => r.colour === e.colour).sort((a, b) => a.left - b.left),
    );
    const days = new Set((run.data.get('net-flow') ?? []).map((r) => r.t)).size;
    expect(trading).toHaveLength(days);
    expect(deposits).toHaveLength(days);
    trading?.forEach((bar, i) => {
      expect(bar.right).toBeLessThanOrEqual((deposits?.[i]?.left ?? 0) + 0.5);
    });
  });
});

describe('the report in headless Chromium, run after run', () => {
  it('draws each order outcome in the same colour in every run', (context) => {
    if (!executable) return context.skip('chromium is not installed');
    const colour = new Map<string, string>();
    for (const name of NAMES)
      for (const { label, colour: drawn } of chartOf(runOf(name), 'order-outcomes').legend) {
        expect({ label, colour: drawn }).toEqual({ label, colour: colour.get(label) ?? drawn });
        colour.set(label, drawn);
      }
    expect(colour.size).toBeGreaterThanOrEqual(8);
  });

  it('shades no span in the report of five minutes of uninterrupted collection', (context) => {
    if (!executable) return context.skip('chromium is not installed');
    const run = runOf('five minutes');
    expect(chartOf(run, 'minask').rects).toEqual([]);
    expect(chartOf(run, 'fx').rects).toEqual([]);
  });

  it.for(['four days', 'four days, last 3'])(
    'shades in the %s report where nothing was collected, in the minAsk and FX charts',
    (name, context) => {
      if (!executable) return context.skip('chromium is not installed');
      const run = runOf(name);
      const spec = readReportPage(run.summary.html).specs.get('fx') as any;
      const [fromMs, toMs] = spec.layer[1].encoding.x.scale.domain as [number, number];
      const [gap] = spec.layer[0].data.values as { from_t: string; to_t: string }[];
      // The silence runs from the last load before the span to the first after it.
      expect(Date.parse(gap?.from_t ?? '')).toBeLessThanOrEqual(UNCOLLECTED.fromMs);
      expect(Date.parse(gap?.to_t ?? '')).toBeGreaterThanOrEqual(UNCOLLECTED.toMs);
      const at = (t: string) => (Date.parse(t) - fromMs) / (toMs - fromMs);
      // One shade in each minAsk panel (prices, listed count) and one in the FX chart, where the gap lies.
      const shades = [...chartOf(run, 'minask').rects, ...chartOf(run, 'fx').rects];
      expect(shades).toHaveLength(3);
      for (const shade of shades) {
        expect(shade.from).toBeCloseTo(at(gap?.from_t ?? ''), 2);
        expect(shade.to).toBeCloseTo(at(gap?.to_t ?? ''), 2);
      }
    },
  );
});
