/**
 * The report page: one self-contained HTML file (no script runs, nothing is loaded from anywhere)
 * with a header of the warehouse's freshness and window, then each chart as inline SVG, its
 * Vega-Lite specification with its data (`<script type="application/json" data-chart="…">`), and
 * a table of its numbers; a chart without rows says what is missing instead.
 */

import type { NumberTable } from './number-tables.js';
import type { ChartId, Freshness } from './read-report.js';
import { escapeHtml } from './render-chart.js';
import type { ReportWindow } from './report-window.js';

/** One chart as the page shows it. */
export interface PageChart {
  id: ChartId;
  title: string;
  caption: string;
  /** Inline SVG (see `inlineSvg`), or null when there is nothing to draw. */
  svg: string | null;
  /** The specification with its data, or null without rows. */
  spec: object | null;
  table: NumberTable | null;
  missing: string | null;
}

/** What the page shows. */
export interface ReportPage {
  generatedAt: string;
  window: ReportWindow;
  freshness: readonly Freshness[];
  charts: readonly PageChart[];
}

const STYLE = `
body { font: 15px/1.45 system-ui, sans-serif; color: #1d2430; margin: 0 auto; max-width: 980px; padding: 24px; }
h1 { margin: 0 0 4px; font-size: 26px; } h2 { margin: 36px 0 4px; font-size: 20px; }
p.caption { color: #4a5566; margin: 0 0 12px; } figure { margin: 0; overflow-x: auto; }
p.missing { background: #fff6e0; border-left: 4px solid #e0a100; padding: 10px 14px; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0; font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid #dde2ea; padding: 3px 10px; text-align: left; }
td.n { text-align: right; } details summary { cursor: pointer; color: #4a5566; margin-top: 6px; }
`;

/** The HTML document of a report. */
export function reportHtml(page: ReportPage): string {
  const title = `Market report, ${page.generatedAt.slice(0, 16).replace('T', ' ')} UTC`;
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    header(title, page),
    ...page.charts.map(chartSection),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function header(title: string, page: ReportPage): string {
  const { window } = page;
  const span = `${stamp(window.fromMs)} to ${stamp(window.toMs)} UTC`;
  const fresh =
    page.freshness.length === 0
      ? '<p class="missing">Nothing has landed in this warehouse yet: start the collector (<code>market collect</code>, or <code>npm start</code>) and make a report again in a few minutes.</p>'
      : table({
          columns: ['source', 'last landed (UTC)', 'rows landed'],
          rows: page.freshness.map((f) => [
            f.source,
            f.last_landed_at.slice(0, 19).replace('T', ' '),
            String(f.rows),
          ]),
        });
  return [
    '<header>',
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="caption">${escapeHtml(windowSentence(window, span))} Freshness of the warehouse, per collector source:</p>`,
    fresh,
    '</header>',
  ].join('\n');
}

/** What the window covers, and why when it was fitted to the data. */
function windowSentence(window: ReportWindow, span: string): string {
  if (!window.fitted) return `Window: the last ${window.text}, ${span}, per ${window.grain}.`;
  return `Window: ${span}, per ${window.grain}: the last ${window.text} was asked for, and the warehouse has data only since ${stamp(window.fromMs)} UTC, so the report is fitted to that.`;
}

function chartSection(chart: PageChart): string {
  const parts = [
    `<section id="${chart.id}">`,
    `<h2>${escapeHtml(chart.title)}</h2>`,
    `<p class="caption">${escapeHtml(chart.caption)}</p>`,
  ];
  if (chart.missing !== null)
    parts.push(`<p class="missing">Nothing to show yet: ${escapeHtml(chart.missing)}.</p>`);
  if (chart.svg) parts.push(`<figure>${chart.svg}</figure>`);
  if (chart.spec)
    parts.push(`<script type="application/json" data-chart="${chart.id}">${jsonInHtml(chart.spec)}</script>`);
  if (chart.table) {
    // Long tables start folded, so the charts stay close together.
    const open = chart.table.rows.length <= 12 ? ' open' : '';
    const summary = `The numbers (${chart.table.rows.length} rows)`;
    parts.push(`<details${open}><summary>${summary}</summary>${table(chart.table)}</details>`);
  }
  parts.push('</section>');
  return parts.join('\n');
}

function table(t: NumberTable): string {
  const head = t.columns.map((c) => `<th scope="col">${escapeHtml(c)}</th>`).join('');
  const body = t.rows
    .map(
      (r) =>
        `<tr>${r.map((c) => `<td${/^-?[\d.]+$/.test(c) ? ' class="n"' : ''}>${escapeHtml(c)}</td>`).join('')}</tr>`,
    )
    .join('\n');
  return `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/** JSON that cannot end its script element or open a comment: `<` is written as a JSON escape. */
function jsonInHtml(value: unknown): string {
  return JSON.stringify(value).replaceAll('<', '\\u003c');
}

const stamp = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
