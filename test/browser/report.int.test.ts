/**
 * The report page in headless Chromium (the system's, driven through playwright-core, which
 * downloads nothing): it renders every chart with zero console errors and requests nothing but
 * itself. Skipped, saying so, when `chromium` is not installed.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReport, type ReportSummary, type Warehouse } from '../../src/warehouse/index.js';
import { findChromium } from '../helpers/chromium.js';
import { openReportWarehouse } from '../helpers/report-warehouse.js';
import { makeTempDir } from '../warehouse/fixtures.js';

const executable = findChromium();
let dir: string;
let cleanup: () => void;
let warehouse: Warehouse | undefined;
let summary: ReportSummary;
let browser: Browser | undefined;

beforeAll(async () => {
  if (!executable) {
    process.stderr.write(
      'chromium is not installed: the browser tests are skipped (apt-get install chromium)\n',
    );
    return;
  }
  ({ dir, cleanup } = makeTempDir());
  warehouse = await openReportWarehouse(dir);
  summary = await buildReport(warehouse, { out: join(dir, 'reports'), window: '7d' });
  browser = await chromium.launch({ executablePath: executable, args: ['--no-sandbox'] });
});
afterAll(async () => {
  await browser?.close();
  await warehouse?.close();
  cleanup?.();
});

describe('the report in headless Chromium', () => {
  it('renders every chart with zero console errors and loads nothing but the page', async (context) => {
    if (!browser) return context.skip('chromium is not installed');
    const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning')
        problems.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('request', (request) => requests.push(request.url()));
    const url = pathToFileURL(summary.html).href;
    await page.goto(url, { waitUntil: 'load' });
    const sizes = await page.$$eval('figure > svg', (svgs) =>
      svgs.map((svg) => {
        const box = svg.getBoundingClientRect();
        return {
          width: box.width,
          height: box.height,
          marks: svg.querySelectorAll('path, rect, line').length,
        };
      }),
    );
    expect(problems).toEqual([]);
    expect(requests).toEqual([url]);
    // Every chart fits the page: no horizontal scrollbar.
    const widths = (await page.evaluate(
      '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
    )) as { scroll: number; client: number };
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    expect(sizes).toHaveLength(summary.svgs.length);
    for (const size of sizes) {
      expect(size.width).toBeGreaterThan(100);
      expect(size.height).toBeGreaterThan(50);
      expect(size.marks).toBeGreaterThan(10);
    }
    await page.close();
  });
});
