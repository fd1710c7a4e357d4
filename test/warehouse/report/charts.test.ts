/**
 * The market report over a generated warehouse of three days: each chart's data, read back from the
 * specification embedded in the page, equals the rows of the SQL model it claims to show; the page
 * parses without an error, loads nothing from anywhere, and is written atomically with latest.html.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReport, type ReportSummary, type Warehouse } from '../../../src/warehouse/index.js';
import { externalReferences, type ParsedReport, readReportPage } from '../../helpers/report-html.js';
import { openReportWarehouse } from '../../helpers/report-warehouse.js';
import { makeTempDir, newEvent } from '../fixtures.js';

let dir: string;
let cleanup: () => void;
let warehouse: Warehouse;
let summary: ReportSummary;
let page: ParsedReport;
let fromMs: number;
const iso = (ms: number) => new Date(ms).toISOString();
const GAP_FROM = Date.parse('2026-11-19T06:00:00.000Z');
const GAP_TO = Date.parse('2026-11-19T08:00:00.000Z');
let toMs: number;

/** A made-up item: four listings with a sticker at twice the ask of four without. */
const STICKERED = 'Test | Report Stickers (Field-Tested)';

beforeAll(async () => {
  ({ dir, cleanup } = makeTempDir());
  warehouse = await openReportWarehouse(dir);
  toMs = warehouse.clock();
  fromMs = toMs - 7 * 86_400_000;
  // Through the real landing code: a sticker whose premium the test knows (100 %, over 4 listings).
  const events = Array.from({ length: 8 }, (_, i) =>
    newEvent(`report-test-${i}`, `rt-${i}`, toMs - 60_000, {
      market_hash_name: STICKERED,
      price_usd: i < 4 ? 20 : 10,
      stickers: i < 4 ? [{ name: 'Sticker | Report Test', image: '', slot: 0, wear: 0 }] : [],
    }),
  );
  await warehouse.write([{ source: 'stream', events }]);
  await warehouse.refreshModels();
  // Two hours in which the collector was down: nothing landed.
  await warehouse.withConnection((c) =>
    c.run(`DELETE FROM loads WHERE started_at BETWEEN '${iso(GAP_FROM)}' AND '${iso(GAP_TO)}'`),
  );
  summary = await buildReport(warehouse, { out: join(dir, 'reports'), window: '7d', items: 5 });
  page = readReportPage(summary.html);
});
afterAll(async () => {
  await warehouse?.close();
  cleanup?.();
});

const label = (r: Record<string, unknown>) =>
  `${r.market_hash_name}${r.doppler_phase === null ? '' : ` (${r.doppler_phase})`}`;
const sortBy = <T>(rows: T[], key: (row: T) => string) =>
  [...rows].sort((a, b) => (key(a) < key(b) ? -1 : 1));

describe('the market report, 7 days over a generated warehouse', () => {
  it('draws every market chart and says the account ones have no account activity to show', () => {
    expect(page.sections).toEqual(['minask', 'float', 'stickers', 'fx', 'net-flow', 'order-outcomes']);
    expect([...page.specs.keys()]).toEqual(['minask', 'float', 'stickers', 'fx']);
    expect(summary.missing.map((m) => m.chart)).toEqual(['net-flow', 'order-outcomes']);
    expect(summary.missing[0]?.reason).toBe('no account day in the window');
    expect(page.html).toContain('Nothing to show yet: no order placed in the window');
  });

  it('shows in the minAsk chart the daily rows of fct_minask_daily of the most traded items', async () => {
    const values = page.specs.get('minask')?.data.values ?? [];
    const daily = await warehouse.query(
      `SELECT * FROM fct_minask_daily WHERE service_min_ask_close_usd IS NOT NULL AND day >= DATE '${iso(fromMs).slice(0, 10)}'`,
    );
    const gone = await warehouse.query(
      `SELECT app_id, market_hash_name, wear, doppler_phase, count(*) AS n FROM fct_listing_lifecycle
       WHERE gone_at BETWEEN '${iso(fromMs)}' AND '${iso(toMs)}' GROUP BY ALL`,
    );
    const departures = new Map(gone.map((g) => [label(g), Number(g.n)]));
    const items = [...new Set(values.map((v) => String(v.item)))];
    expect(items).toHaveLength(5);
    // The chosen items left the market at least as often as every item not chosen.
    const priced = [...new Set(daily.map(label))];
    const least = Math.min(...items.map((i) => departures.get(i) ?? 0));
    for (const other of priced.filter((p) => !items.includes(p)))
      expect(departures.get(other) ?? 0).toBeLessThanOrEqual(least);
    const expected = daily
      .filter((r) => items.includes(label(r)))
      .map((r) => ({
        item: label(r),
        t: `${r.day}T00:00:00.000Z`,
        min_ask_usd: r.service_min_ask_close_usd,
        listed_count: r.service_listed_count_close,
      }));
    const shown = values.map(({ item, t, min_ask_usd, listed_count }) => ({
      item,
      t,
      min_ask_usd,
      listed_count,
    }));
    expect(sortBy(shown, (r) => `${r.item}|${r.t}`)).toEqual(sortBy(expected, (r) => `${r.item}|${r.t}`));
  });

  it('shows in the float chart every bucket of fct_float_distribution of the skin with the most live listings', async () => {
    const values = page.specs.get('float')?.data.values ?? [];
    const rows = await warehouse.query('SELECT * FROM fct_float_distribution');
    const skinOf = (name: unknown) => String(name).replace(/ \([^()]*\)$/, '');
    const perSkin = new Map<string, number>();
    for (const r of rows)
      perSkin.set(
        skinOf(r.market_hash_name),
        (perSkin.get(skinOf(r.market_hash_name)) ?? 0) + Number(r.listings),
      );
    const skin = String(values[0]?.item);
    expect(perSkin.get(skin)).toBe(Math.max(...perSkin.values()));
    const expected = rows
      .filter((r) => skinOf(r.market_hash_name) === skin)
      .map((r) => ({
        wear: r.wear,
        bucket: r.bucket,
        listings: r.listings,
        cheapest_ask_usd: r.cheapest_ask_usd,
      }));
    const shown = values.map(({ wear, bucket, listings, cheapest_ask_usd }) => ({
      wear,
      bucket,
      listings,
      cheapest_ask_usd,
    }));
    expect(sortBy(shown, (r) => `${r.bucket}|${r.wear}`)).toEqual(
      sortBy(expected, (r) => `${r.bucket}|${r.wear}`),
    );
  });

  it('shows in the sticker chart the top premiums of fct_sticker_stats with the listings behind them', async () => {
    const values = page.specs.get('stickers')?.data.values ?? [];
    const rows = await warehouse.query('SELECT * FROM fct_sticker_stats WHERE listings_with_baseline >= 3');
    const expected = rows
      .sort((a, b) => Number(b.median_premium_pct) - Number(a.median_premium_pct))
      .slice(0, 15)
      .map((r) => ({
        sticker_name: r.sticker_name,
        median_premium_pct: Math.round(Number(r.median_premium_pct) * 100) / 100,
        listings_with_baseline: r.listings_with_baseline,
      }));
    expect(
      values.map(({ sticker_name, median_premium_pct, listings_with_baseline }) => ({
        sticker_name,
        median_premium_pct,
        listings_with_baseline,
      })),
    ).toEqual(expected);
    expect(values).toContainEqual(
      expect.objectContaining({
        sticker_name: 'Sticker | Report Test',
        median_premium_pct: 100,
        listings_with_baseline: 4,
      }),
    );
  });

  it("shows in the FX chart the most traded item's cheapest fct_prices_fx amount per currency and day", async () => {
    const values = page.specs.get('fx')?.data.values ?? [];
    const top = page.specs.get('minask')?.data.values.find((v) => v.rank === 1);
    expect(values[0]?.item).toBe(top?.item);
    const [group] = await warehouse.query(
      `SELECT DISTINCT market_hash_name, doppler_phase FROM fct_minask_daily
       WHERE market_hash_name || coalesce(' (' || doppler_phase || ')', '') = '${String(top?.item).replaceAll("'", "''")}'`,
    );
    const phase = group?.doppler_phase === null ? 'IS NULL' : `= '${String(group?.doppler_phase)}'`;
    const rows = await warehouse.query(
      `SELECT * FROM fct_prices_fx WHERE kind = 'price_list' AND amount IS NOT NULL
       AND market_hash_name = '${String(group?.market_hash_name).replaceAll("'", "''")}' AND doppler_phase ${phase}
       AND priced_at >= DATE '${iso(fromMs).slice(0, 10)}'`,
    );
    const cheapest = new Map<string, number>();
    for (const r of rows.filter((r) => label(r) === top?.item)) {
      const key = `${r.currency}|${String(r.priced_at).slice(0, 10)}T00:00:00.000Z`;
      cheapest.set(key, Math.min(cheapest.get(key) ?? Number.POSITIVE_INFINITY, Number(r.amount)));
    }
    const shown = new Map(values.map((v) => [`${v.currency}|${v.t}`, Number(v.min_ask)]));
    expect(shown).toEqual(cheapest);
    expect(new Set(values.map((v) => v.currency)).size).toBeGreaterThan(10);
    // Drawn as each currency's change since its first figure of the window, on one scale.
    for (const v of values) {
      const first = values.find((f) => f.currency === v.currency);
      expect(Number(v.change_pct)).toBeCloseTo(100 * (Number(v.min_ask) / Number(first?.min_ask) - 1), 3);
    }
    // Over the shade of the span without collection (see below).
    const spec = page.specs.get('fx') as any;
    expect(spec.layer[1].encoding.y.field).toBe('change_pct');
    expect(spec.resolve).toBeUndefined();
  });

  it('prints under each chart a table of its numbers', () => {
    const tables = page.elements.filter((e) => e.tagName === 'table');
    // The header's freshness table, and one under each of the four charts drawn.
    expect(tables).toHaveLength(5);
    const minask = page.specs.get('minask')?.data.values ?? [];
    const first = minask.filter((v) => v.rank === 1);
    const last = first.at(-1);
    expect(page.html).toContain(`<td>${String(last?.item)}</td><td class="n">${first.length}</td>`);
  });

  it('parses without an error and loads nothing from anywhere', () => {
    expect(page.errors).toEqual([]);
    expect(externalReferences(page)).toEqual([]);
  });

  it('shades in the minAsk and FX charts the span in which nothing was collected, and says so', () => {
    const spec = page.specs.get('minask') as any;
    const gaps = spec.vconcat[0].layer[0].data.values as { from_t: string; to_t: string }[];
    expect(gaps).toHaveLength(1);
    const [gap] = gaps;
    expect(Date.parse(gap?.from_t ?? '')).toBeLessThan(GAP_FROM);
    expect(Date.parse(gap?.from_t ?? '')).toBeGreaterThanOrEqual(GAP_FROM - 3 * 60_000);
    expect(Date.parse(gap?.to_t ?? '')).toBeGreaterThan(GAP_TO);
    expect(Date.parse(gap?.to_t ?? '')).toBeLessThanOrEqual(GAP_TO + 3 * 60_000);
    expect(spec.vconcat[1].layer[0].data.values).toEqual(gaps);
    expect((page.specs.get('fx') as any).layer[0].data.values).toEqual(gaps);
    expect(page.html).toMatch(/Shaded: a span \(1\d\d minutes\) in which nothing was collected/);
  });

  it('fits every chart in the page without a scrollbar, and cuts no legend entry', () => {
    // The page's column: 980 px at most, less 24 px of padding on each side.
    const column = 980 - 2 * 24;
    for (const svg of summary.svgs) {
      const text = readFileSync(svg, 'utf8');
      const width = Number(/^<svg[^>]* width="([\d.]+)"/.exec(text)?.[1]);
      expect({ svg: svg.split('/').at(-1), fits: width <= column }).toEqual({
        svg: svg.split('/').at(-1),
        fits: true,
      });
      expect(text).not.toContain('…');
    }
  });

  it('writes each chart as a standalone SVG file, and latest.html as the newest report', () => {
    expect(summary.svgs.map((p) => p.split('/').at(-1))).toEqual([
      'minask.svg',
      'float.svg',
      'stickers.svg',
      'fx.svg',
    ]);
    for (const svg of summary.svgs)
      expect(readFileSync(svg, 'utf8')).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(readFileSync(summary.latest, 'utf8')).toBe(readFileSync(summary.html, 'utf8'));
  });

  it('gives a second report of the same moment its own folder and points latest.html at it, leaving nothing aside', async () => {
    const second = await buildReport(warehouse, { out: join(dir, 'reports'), window: '24h', items: 2 });
    expect(second.html).not.toBe(summary.html);
    expect(existsSync(summary.html)).toBe(true);
    expect(readFileSync(second.latest, 'utf8')).toBe(readFileSync(second.html, 'utf8'));
    expect(readdirSync(join(dir, 'reports')).filter((n) => n.startsWith('.'))).toEqual([]);
    // 24 hours: hourly rows.
    const hours =
      readReportPage(second.html)
        .specs.get('minask')
        ?.data.values.map((v) => String(v.t).slice(14)) ?? [];
    expect(new Set(hours)).toEqual(new Set(['00:00.000Z']));
    expect(
      new Set(
        readReportPage(second.html)
          .specs.get('minask')
          ?.data.values.map((v) => v.item),
      ).size,
    ).toBe(2);
  });
});
