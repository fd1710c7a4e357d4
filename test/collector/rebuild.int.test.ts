import type { ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { Warehouse } from '../../src/warehouse/index.js';
import { askCollector, spawnCollector } from '../helpers/cli.js';
import { holdsWarehouse, stopChild } from '../helpers/crash.js';
import { type RecordingProxy, startRecordingProxy } from '../helpers/recording-proxy.js';
import { startTestService, type TestService } from '../helpers/service.js';

let service: TestService | undefined;
let proxy: RecordingProxy | undefined;
const children = new Set<ChildProcess>();
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await proxy?.close();
  await service?.close();
});

const LISTINGS = '/v1/listings';
const SNAPSHOT = '/v1/prices/snapshot.ndjson.gz';

/** How many page items landed as repeats, snapshot files were downloaded and pages landed, so far. */
async function progress(warehousePath: string): Promise<{ repeats: number; files: number; pages: number }> {
  const [row] = await askCollector(
    warehousePath,
    `SELECT (SELECT count(*) FROM raw_listing_repeats) AS repeats,
            (SELECT count(*) FROM snapshot_fetches WHERE status = 'downloaded') AS files,
            (SELECT count(*) FROM (SELECT via, pass_id, page FROM raw_listing_observations WHERE page IS NOT NULL
              UNION SELECT via, pass_id, page FROM raw_listing_repeats WHERE page IS NOT NULL)) AS pages`,
  );
  return {
    repeats: Number(row?.repeats ?? 0),
    files: Number(row?.files ?? 0),
    pages: Number(row?.pages ?? 0),
  };
}

/**
 * Lets the collector download the next snapshot file now rather than in a minute: the service's
 * test clock moves past the key's one-download-a-minute window, and the price list is rebuilt from
 * the churned market, so the file has a new ETag for the collector's next conditional request.
 */
async function offerNextSnapshot(t: TestService): Promise<void> {
  t.clock.advance(61_000);
  await t.sandbox('/prices/rebuild', {});
}

/** Waits until more page items landed as repeats and more snapshot files were downloaded than `than`. */
async function landedMore(warehousePath: string, than: { repeats: number; files: number }): Promise<void> {
  await expect
    .poll(
      async () => {
        const now = await progress(warehousePath);
        return now.repeats > than.repeats && now.files > than.files;
      },
      { timeout: 90_000, interval: 250 },
    )
    .toBe(true);
}

describe('what the collector received, rebuilt from the warehouse', () => {
  it('gives back listing pages and snapshot files byte for byte, repeats included, across kill -9 and a restart', async () => {
    service = await startTestService({ listings: 300, churnRate: 5, churnPaused: true });
    const t = service;
    const { key } = await t.account({ balance_usd: 10 });
    proxy = await startRecordingProxy(t.origin, (path) => path === LISTINGS || path === SNAPSHOT);
    const through = proxy;
    await t.sandbox('/simulator', { paused: false, rate_per_second: 5 });
    const warehousePath = join(t.dir, 'warehouse.duckdb');
    const start = () => {
      const child = spawnCollector(through.baseUrl, key, warehousePath, ['--models-cron', 'off']);
      children.add(child);
      return child;
    };

    let collector = start();
    await holdsWarehouse(warehousePath);
    // The first file comes at start; the second, a minute later by the test clock.
    await landedMore(warehousePath, { repeats: 0, files: 0 });
    await offerNextSnapshot(t);
    await landedMore(warehousePath, { repeats: 0, files: 1 });
    const beforeKill = await progress(warehousePath);
    await stopChild(collector, 'SIGKILL', children);
    await rm(`${warehousePath}.collector.json`, { force: true });
    collector = start();
    await holdsWarehouse(warehousePath);
    await offerNextSnapshot(t);
    await landedMore(warehousePath, beforeKill);
    // Enough pages to check, however fast the collector went meanwhile.
    await expect
      .poll(async () => (await progress(warehousePath)).pages, { timeout: 90_000, interval: 250 })
      .toBeGreaterThan(15);
    await t.sandbox('/simulator', { paused: true });
    await stopChild(collector, 'SIGTERM', children);

    const warehouse = await Warehouse.open(warehousePath, { readOnly: true });
    try {
      // Every page a pass landed: its items in place, as the page's items array held them.
      const pages = await warehouse.query(
        `SELECT via, pass_id, page, list(item ORDER BY item) AS items, list(raw ORDER BY item) AS texts,
                count(*) FILTER (WHERE (via, pass_id, listing_id) IN (SELECT (via, pass_id, listing_id) FROM raw_listing_repeats)) AS repeats
         FROM listing_observations_typed WHERE page IS NOT NULL GROUP BY via, pass_id, page`,
      );
      const bodies = through.recorded
        .filter((r) => r.url.startsWith(LISTINGS) && r.status === 200)
        .map((r) => r.body.toString('utf8'));
      let whole = 0;
      let withRepeats = 0;
      for (const page of pages) {
        const items = page.items as number[];
        const texts = page.texts as string[];
        // A page whose items all landed is its items array exactly; an item a pass had seen on an
        // earlier page is landed once, so such a page is matched item by item.
        const contiguous = items.every((item, i) => item === i);
        const array = `"items":[${texts.join(',')}]`;
        const found = contiguous
          ? bodies.some((body) => body.includes(array))
          : bodies.some((body) => texts.every((text) => body.includes(text)));
        expect(found, `${page.via} ${page.pass_id} page ${page.page}`).toBe(true);
        if (contiguous) whole++;
        if (Number(page.repeats) > 0 && contiguous) withRepeats++;
      }
      expect(whole).toBeGreaterThan(10);
      expect(withRepeats).toBeGreaterThan(3);

      // Every downloaded snapshot file: its lines in order, repeated lines read from the line they repeat.
      const files = await warehouse.query(
        `SELECT etag, list(data ORDER BY line) AS lines FROM (
           SELECT etag, line, data FROM raw_price_snapshots
           UNION ALL
           SELECT s.etag, s.line, r.data FROM raw_price_snapshot_repeats s
           JOIN raw_price_snapshots r ON r.etag = s.same_etag AND r.fetched_at = s.same_fetched_at AND r.line = s.same_line
         ) GROUP BY etag`,
      );
      const downloads = through.recorded.filter((r) => r.url.startsWith(SNAPSHOT) && r.status === 200);
      expect(files.length).toBeGreaterThanOrEqual(3);
      for (const file of files) {
        const download = downloads.find((d) => d.headers.etag === file.etag);
        expect(download, String(file.etag)).toBeDefined();
        const sent = gunzipSync(download?.body ?? Buffer.alloc(0))
          .toString('utf8')
          .split('\n')
          .filter((l) => l.trim() !== '');
        expect(file.lines).toEqual(sent);
      }
    } finally {
      await warehouse.close();
    }
  }, 240_000);
});
