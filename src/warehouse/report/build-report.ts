/**
 * Builds a market report from the warehouse's SQL models and writes it atomically: a run folder
 * `<out>/<time>/` holding `report.html` (self-contained) and each chart as a standalone `.svg`,
 * written aside and renamed into place in one step, then `<out>/latest.html`, a copy of the
 * newest report, replaced in one rename.
 */

import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Warehouse } from '../warehouse.js';
import { WarehouseListeners } from '../warehouse-listeners.js';
import { chartCard, describeChart } from './chart-specs.js';
import { numberTable } from './number-tables.js';
import { readReport } from './read-report.js';
import { inlineSvg, renderSvg } from './render-chart.js';
import { type PageChart, reportHtml } from './report-html.js';
import { fitWindow, reportWindow } from './report-window.js';

/** Options of {@link buildReport}. */
export interface ReportOptions {
  /** The report folder. @default 'data/reports' */
  out?: string;
  /** How far back the report looks: minutes, hours or days, e.g. `90m`, `24h`. @default '7d' */
  window?: string;
  /** Lines of the minAsk chart (the most traded items). @default 8 */
  items?: number;
  /** Hears of each step of a build. */
  onProgress?: (progress: ReportProgress) => void;
}

/** A step of a build: `done` of `total` steps, and what the last one was. */
export interface ReportProgress {
  step: string;
  done: number;
  total: number;
}

/** What a build wrote. */
export interface ReportSummary {
  /** The report file, in its run folder. */
  html: string;
  /** `latest.html`, now a copy of `html`. */
  latest: string;
  /** The standalone SVG file of each chart drawn. */
  svgs: string[];
  /** Per chart not drawn, why. */
  missing: { chart: string; reason: string }[];
  durationMs: number;
}

/** Name prefix of the folders a build writes aside; a crash leaves them, a later build removes them. */
const ASIDE_PREFIX = '.tmp-';
const ASIDE_MAX_AGE_MS = 3_600_000;

/**
 * Builds and writes a report of `warehouse` as of its clock.
 *
 * @example
 * const { html } = await buildReport(warehouse, { window: '24h', out: 'data/reports' });
 */
export async function buildReport(warehouse: Warehouse, options: ReportOptions = {}): Promise<ReportSummary> {
  const started = performance.now();
  const asked = reportWindow(options.window ?? '7d', warehouse.clock());
  const [first] = await warehouse.query('SELECT epoch_ms(min(started_at)) AS ms FROM loads');
  const window = fitWindow(asked, first?.ms == null ? null : Number(first.ms));
  const out = resolve(options.out ?? 'data/reports');
  const data = await readReport(warehouse, { window, items: options.items ?? 8 });
  const total = data.sections.length + 2;
  let done = 0;
  const progress = (step: string) => options.onProgress?.({ step, done: ++done, total });
  progress('read the models');
  const charts: PageChart[] = [];
  const svgs = new Map<string, string>();
  for (const section of data.sections) {
    if (section.missing !== null) {
      charts.push({
        ...describeChart(section.id, [], window),
        id: section.id,
        svg: null,
        spec: null,
        table: null,
        missing: section.missing,
      });
    } else {
      const card = chartCard(section, window, data.gaps);
      const svg = await renderSvg(card.spec);
      svgs.set(`${section.id}.svg`, svg);
      charts.push({
        id: section.id,
        title: card.title,
        caption: card.caption,
        svg: inlineSvg(svg, section.id, card.title),
        spec: card.spec,
        table: numberTable(section.id, section.rows),
        missing: null,
      });
    }
    progress(`drew ${section.id}`);
  }
  const generatedAt = new Date(window.toMs).toISOString();
  const html = reportHtml({ generatedAt, window, freshness: data.freshness, charts });
  const written = await writeRun(out, runName(window.toMs), html, svgs);
  progress('wrote the report');
  const summary = {
    ...written,
    missing: charts.flatMap((c) => (c.missing === null ? [] : [{ chart: c.id, reason: c.missing }])),
    durationMs: performance.now() - started,
  };
  reportListeners.emit(warehouse, summary);
  return summary;
}

/** Who hears of the reports of each warehouse in this process (see {@link onReport}). */
const reportListeners = new WarehouseListeners<ReportSummary>();

/**
 * Calls `listener` after every report of `warehouse` built in this process, whoever asked for it
 * (a schedule, or `market report` through the collector); returns what stops it.
 */
export function onReport(warehouse: Warehouse, listener: (summary: ReportSummary) => void): () => void {
  return reportListeners.on(warehouse, listener);
}

/** `2026-11-23T12-00-00.000Z`: the report's time, a valid file name everywhere. */
function runName(ms: number): string {
  return new Date(ms).toISOString().replaceAll(':', '-');
}

/** Writes the run folder aside and renames it into place, then replaces `latest.html` the same way. */
async function writeRun(
  out: string,
  name: string,
  html: string,
  svgs: Map<string, string>,
): Promise<Omit<ReportSummary, 'missing' | 'durationMs'>> {
  await mkdir(out, { recursive: true });
  await removeStaleAsides(out);
  const aside = join(out, `${ASIDE_PREFIX}${randomUUID()}`);
  try {
    await mkdir(aside);
    await writeFile(join(aside, 'report.html'), html);
    for (const [file, svg] of svgs) await writeFile(join(aside, file), svg);
    let folder = join(out, name);
    // Two reports of the same millisecond: the second gets its own folder.
    for (let n = 2; await exists(folder); n++) folder = join(out, `${name}-${n}`);
    await rename(aside, folder);
    const latest = join(out, 'latest.html');
    const latestAside = `${aside}.latest.html`;
    await writeFile(latestAside, html);
    await rename(latestAside, latest);
    return { html: join(folder, 'report.html'), latest, svgs: [...svgs.keys()].map((f) => join(folder, f)) };
  } finally {
    await rm(aside, { recursive: true, force: true });
    await rm(`${aside}.latest.html`, { force: true });
  }
}

/** Removes what builds that crashed left aside (older than an hour, so a build in progress keeps its own). */
async function removeStaleAsides(out: string): Promise<void> {
  for (const name of await readdir(out)) {
    if (!name.startsWith(ASIDE_PREFIX)) continue;
    const path = join(out, name);
    const info = await stat(path).catch(() => null);
    if (info && Date.now() - info.mtimeMs > ASIDE_MAX_AGE_MS)
      await rm(path, { recursive: true, force: true });
  }
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null)) !== null;
}
