/** `market report` on a warehouse file, and through a running collector, and `market collect --report-cron`. */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningCollector } from '../../src/collector/daemon.js';
import { Warehouse } from '../../src/warehouse/index.js';
import { runMarket } from '../helpers/cli.js';
import { startTestCollector } from '../helpers/collector.js';
import { readReportPage } from '../helpers/report-html.js';
import { startTestService, type TestService } from '../helpers/service.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'market-report-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('market report with no collector running', () => {
  it('opens the warehouse read-only, prints the report path, and says on stderr which charts had nothing', async () => {
    const warehouse = join(dir, 'empty.duckdb');
    await (await Warehouse.open(warehouse)).close();
    const out = join(dir, 'reports');
    const result = await runMarket(['report', '--warehouse', warehouse, '--out', out, '--window', '24h']);
    expect(result.code).toBe(0);
    const html = result.stdout.trim();
    expect(dirname(dirname(html))).toBe(out);
    expect(readReportPage(html).errors).toEqual([]);
    expect(readFileSync(join(out, 'latest.html'), 'utf8')).toBe(readFileSync(html, 'utf8'));
    expect(result.stderr).toMatch(
      /^market report: no minask chart: the models fct_minask_hourly, fct_listing_lifecycle are not in this warehouse/m,
    );
  });

  it.each([
    [['--window', '2w'], /invalid option window: give minutes, hours or days, e\.g\. 7d, 24h or 90m/],
    [['--items', '0'], /invalid option items: must be an integer 1-50/],
  ])('refuses %j with exit code 2', async (flags, message) => {
    const result = await runMarket(['report', '--warehouse', join(dir, 'empty.duckdb'), ...flags]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});

describe('market report through a running collector, and --report-cron', () => {
  let t: TestService;
  let collector: RunningCollector;
  const scheduled = () => join(dir, 'scheduled-reports');

  beforeAll(async () => {
    t = await startTestService({ listings: 300, rateLimits: { read: 1_000_000 } });
    const { key } = await t.account({ balance_usd: 10 });
    collector = await startTestCollector(t, key, {
      sources: { games: [730] },
      work: { reportCron: '*/2 * * * * *', reportDir: scheduled() },
    });
    // A hook: vi.waitFor, since expect.poll runs only inside a test.
    await vi.waitFor(
      async () => {
        const [row] = await collector.warehouse.query('SELECT count(*) AS n FROM live_listings');
        expect(Number(row?.n)).toBeGreaterThan(0);
      },
      { timeout: 20_000 },
    );
  });
  afterAll(async () => {
    await collector?.stop();
    await t?.close();
  });

  it('writes reports on its schedule, counting the charts drawn on the status board', async () => {
    await collector.warehouse.refreshModels();
    await expect
      .poll(() => (collector.status().find((s) => s.name === 'report')?.landed ?? 0) > 0, { timeout: 20_000 })
      .toBe(true);
    const page = readReportPage(join(scheduled(), 'latest.html'));
    expect(page.errors).toEqual([]);
    expect(page.specs.has('float')).toBe(true);
  });

  it('builds the report inside the collector, which alone holds the file', async () => {
    const out = join(dir, 'through-collector');
    const drawnBefore = collector.status().find((s) => s.name === 'report')?.landed ?? 0;
    const result = await runMarket([
      'report',
      '--warehouse',
      collector.warehouse.path,
      '--out',
      out,
      '--window',
      '1h',
    ]);
    expect(result.stderr).not.toMatch(/in use/);
    expect(result.code).toBe(0);
    const html = result.stdout.trim();
    expect(existsSync(html)).toBe(true);
    expect(dirname(dirname(html))).toBe(out);
    expect(readReportPage(html).specs.get('float')?.data.values.length).toBeGreaterThan(0);
    // market status counts a report asked for through the collector like a scheduled one.
    expect(collector.status().find((s) => s.name === 'report')?.landed).toBeGreaterThan(drawnBefore);
  });

  it('refuses a schedule that is not a cron expression before starting anything', async () => {
    const result = await runMarket([
      'collect',
      '--base-url',
      t.baseUrl,
      '--api-key',
      'svc_pub_x',
      '--warehouse',
      join(dir, 'never.duckdb'),
      '--report-cron',
      'hourly',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/invalid option reportCron: give a cron expression/);
    expect(existsSync(join(dir, 'never.duckdb'))).toBe(false);
  });
});
