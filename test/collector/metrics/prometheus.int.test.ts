/**
 * The collector's `/metrics` on its control endpoint: behind the run's token, in Prometheus' text
 * format as `promtool check metrics` reads it, and scraped by a real Prometheus (at the fixed
 * control port, with the token file as its `credentials_file`) whose HTTP API sees the
 * landed-payloads counter grow and the scrapes succeed again after the collector restarts, and
 * whose evaluation of the shipped alerting rules (their 2-minute `for` cut to 5 s) takes the down
 * alert from pending to firing while a collector process is frozen with SIGSTOP (where
 * `prometheus` and `promtool` are installed).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ControlClient } from '../../../src/cli/control-client.js';
import { controlEndpointOf } from '../../../src/cli/control-endpoint.js';
import type { ControlEndpointOptions } from '../../../src/collector/collector-options.js';
import type { ControlFile } from '../../../src/collector/control/protocol.js';
import { controlFileOf } from '../../../src/collector/control/protocol.js';
import type { RunningCollector } from '../../../src/collector/daemon.js';
import { projectPath } from '../../../src/shared/project-root.js';
import { churnUntil } from '../../helpers/churn.js';
import { spawnCollector } from '../../helpers/cli.js';
import { startTestCollector } from '../../helpers/collector.js';
import { freePort, holdsWarehouse, stopChild } from '../../helpers/crash.js';
import {
  alertStates,
  promQuery,
  promtool,
  startPrometheus,
  type TestPrometheus,
  which,
} from '../../helpers/prometheus.js';
import { startTestService, type TestService } from '../../helpers/service.js';

let t: TestService;
let collector: RunningCollector;
let control: ControlFile;
let key: string;
/** The scraper's lasting token, in the file that both the collector and Prometheus read. */
let tokenFile: string;
/** A fixed port and the token of the file, as `--control-port` and `--metrics-token-file` give them. */
let endpoint: ControlEndpointOptions;

beforeAll(async () => {
  t = await startTestService({ listings: 300, rateLimits: { read: 1_000_000 } });
  ({ key } = await t.account({ balance_usd: 50 }));
  tokenFile = join(t.dir, 'metrics-token');
  await writeFile(tokenFile, `${randomBytes(24).toString('base64url')}\n`, { mode: 0o600 });
  endpoint = await controlEndpointOf({ controlPort: await freePort(), metricsTokenFile: tokenFile });
  collector = await startTestCollector(t, key, { control: endpoint, work: { exportDir: exportsOf(t) } });
  control = JSON.parse(await readFile(controlFileOf(collector.warehouse.path), 'utf8')) as ControlFile;
  // Wait for the first Dota 2 sweep and FX rates to land.
  const landed = (name: string) => collector.status().find((s) => s.name === name)?.landed ?? 0;
  await vi.waitFor(() => expect(Math.min(landed('sweep:570'), landed('fx'))).toBeGreaterThan(0), {
    timeout: 30_000,
  });
});
afterAll(async () => {
  await collector?.stop();
  await t?.close();
});

/** The collector's export folder. */
function exportsOf(service: TestService): string {
  return join(service.dir, 'exports');
}

/** The value of a series of the exposition, or undefined when it has none. */
function seriesValue(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** `GET /metrics` of the control endpoint, with the run's token unless told otherwise. */
async function scrape(token: string | null = control.token) {
  const response = await fetch(`http://127.0.0.1:${control.port}/metrics`, {
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

describe('GET /metrics', () => {
  it('answers the instruments of every source in the text format, with the token only', async () => {
    const refused = await scrape(null);
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.text)).toEqual({ code: 'unauthorized', detail: expect.any(String) });
    const answer = await scrape();
    expect(answer.status).toBe(200);
    expect(answer.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const landed = /^market_collector_payloads_landed_total\{source="sweep:570"\} (\d+)$/m.exec(answer.text);
    expect(Number(landed?.[1])).toBeGreaterThan(0);
    expect(answer.text).toMatch(/^market_collector_requests_total\{source="sweep:570",status="200"\} [1-9]/m);
    expect(answer.text).toMatch(/^market_collector_received_bytes_total\{source="poll:730"\} [1-9]/m);
    expect(answer.text).toMatch(/^market_collector_freshness_state\{source="stream",state="ok"\} 1$/m);
    expect(answer.text).toMatch(/^market_collector_freshness_error_seconds\{source="stream"\} 300$/m);
    expect(answer.text).toMatch(/^market_collector_last_success_timestamp_seconds\{source="fx"\} \d/m);
    expect(answer.text).toMatch(/^market_collector_stream_reconnects_total\{source="stream"\} 0$/m);
    expect(answer.text).toMatch(/^market_collector_warehouse_bytes [1-9]/m);
    expect(answer.text).toMatch(/^# TYPE market_collector_model_refresh_duration_seconds histogram$/m);
    expect(answer.text).toMatch(/^process_resident_memory_bytes [1-9]/m);
    // What the soak benchmark samples: the heap, and DuckDB's own share of the memory.
    expect(answer.text).toMatch(/^nodejs_heap_size_used_bytes [1-9]/m);
    expect(answer.text).toMatch(/^market_collector_duckdb_memory_bytes [1-9]/m);
  });

  it("counts as landed payloads only the upstream's, and the daemon's own work under names of its own", async () => {
    const client = await ControlClient.find(collector.warehouse.path);
    if (!client) throw new Error('no control file');
    const models = ['dim_items'];
    await client.runModels({ select: models });
    const exported = await client.export({ to: exportsOf(t), models }, () => undefined);
    const rows = exported.models.reduce((sum, m) => sum + m.rows, 0);
    expect(rows).toBeGreaterThan(0);
    const { text } = await scrape();
    expect(seriesValue(text, 'market_collector_export_rows_total')).toBe(rows);
    expect(text).toMatch(/^market_collector_report_charts_total 0$/m);
    expect(text).not.toMatch(
      /^market_collector_payloads_(landed|received)_total\{source="(export|report|models)"\}/m,
    );
    // The snapshot lands its lines and a row per fetch, as the report's rows landed (loads) count them.
    await vi.waitFor(
      async () => {
        const [loads] = await client.query(
          "SELECT sum(rows) AS n, count(*) AS fetches FROM loads WHERE source = 'snapshot'",
        );
        expect(Number(loads?.n)).toBeGreaterThan(Number(loads?.fetches));
        const landed = seriesValue(
          (await scrape()).text,
          'market_collector_payloads_landed_total{source="snapshot"}',
        );
        expect(landed).toBe(Number(loads?.n));
      },
      { timeout: 30_000, interval: 250 },
    );
  });

  it('passes promtool check metrics', async (context) => {
    if (!(await which('promtool')))
      return context.skip('promtool is not installed (apt-get install prometheus)');
    const { code, output } = await promtool(['check', 'metrics'], (await scrape()).text);
    expect(output).toBe('');
    expect(code).toBe(0);
  });
});

/**
 * The shipped rules with their 2-minute `for` cut to 5 s, so that a test waits seconds for an alert
 * to fire (alerts.test.yml checks the real durations with promtool).
 */
async function writeQuickRules(dir: string): Promise<string> {
  const shipped = await readFile(projectPath('src', 'collector', 'metrics', 'alerts.yml'), 'utf8');
  const quick = shipped.replaceAll('for: 2m', 'for: 5s');
  expect(quick).not.toBe(shipped);
  const file = join(dir, 'alerts.yml');
  await writeFile(file, quick);
  return file;
}

describe('a real Prometheus', () => {
  let prometheus: TestPrometheus | null = null;
  const children = new Set<ChildProcess>();
  afterAll(async () => {
    for (const child of children) {
      child.kill('SIGCONT');
      await stopChild(child, 'SIGKILL', children);
    }
    await prometheus?.stop();
  });

  it('scrapes the collector and sees its landed payloads grow, and scrapes it again after a restart', async (context) => {
    if (!(await which('prometheus')))
      return context.skip('prometheus is not installed (apt-get install prometheus)');
    expect(control.port).toBe(endpoint.port);
    prometheus = await startPrometheus(t.dir, control.port, tokenFile, await writeQuickRules(t.dir));
    const { origin } = prometheus;
    const job = 'job="market_collector"';
    // Two scrapes that succeeded, through the token of the scrape config.
    await vi.waitFor(
      async () => expect(await promQuery(origin, `sum_over_time(up{${job}}[5m])`)).toBeGreaterThanOrEqual(2),
      { timeout: 30_000, interval: 500 },
    );
    await churnUntil(t, { changes: 40, rate: 100, appId: 730 });
    const grown = `sum(max_over_time(market_collector_payloads_landed_total{${job}}[5m]) - min_over_time(market_collector_payloads_landed_total{${job}}[5m]))`;
    await vi.waitFor(async () => expect(await promQuery(origin, grown)).toBeGreaterThan(0), {
      timeout: 30_000,
      interval: 500,
    });
    // A restart draws a new run token; the same scrape config still gets in.
    await collector.stop();
    const restartedSeconds = Date.now() / 1000;
    collector = await startTestCollector(t, key, { control: endpoint });
    const lastGoodScrape = `timestamp(up{${job}} == 1)`;
    await vi.waitFor(
      async () => expect(await promQuery(origin, lastGoodScrape)).toBeGreaterThan(restartedSeconds),
      { timeout: 30_000, interval: 500 },
    );
  });

  it('fires the down alert, pending then firing, while the collector is frozen with SIGSTOP', async (context) => {
    if (!prometheus) return context.skip('prometheus is not installed (apt-get install prometheus)');
    const { origin } = prometheus;
    // A collector in a process of its own, on the same port and token file, so that it can be frozen.
    await collector.stop();
    const warehouse = join(t.dir, 'frozen.duckdb');
    const child = spawnCollector(t.baseUrl, key, warehouse, [
      ...['--control-port', String(endpoint.port), '--metrics-token-file', tokenFile, '--models-cron', 'off'],
    ]);
    children.add(child);
    await holdsWarehouse(warehouse);
    // Scraped, and no down alert left from the moment between the two collectors.
    await vi.waitFor(
      async () => {
        expect(await promQuery(origin, 'up{job="market_collector"}')).toBe(1);
        expect(await alertStates(origin, 'MarketCollectorDown')).toEqual([]);
      },
      { timeout: 30_000, interval: 250 },
    );
    child.kill('SIGSTOP');
    await vi.waitFor(
      async () => expect(await alertStates(origin, 'MarketCollectorDown')).toEqual(['pending']),
      {
        timeout: 30_000,
        interval: 250,
      },
    );
    await vi.waitFor(
      async () => expect(await alertStates(origin, 'MarketCollectorDown')).toEqual(['firing']),
      {
        timeout: 30_000,
        interval: 250,
      },
    );
    expect(await alertStates(origin, 'MarketCollectorAbsent')).toEqual([]);
  });
});
