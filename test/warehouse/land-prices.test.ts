import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PriceRow } from '../../src/contract/market.js';
import { Warehouse, type WarehouseBatch } from '../../src/warehouse/index.js';
import { makeTempDir, T0 } from './fixtures.js';

let warehouse: Warehouse;
let dir: string;
let cleanup: () => void;

beforeEach(async () => {
  ({ dir, cleanup } = makeTempDir());
  warehouse = await Warehouse.open(join(dir, 'wh.duckdb'), { clock: () => T0 + 60_000 });
});

afterEach(async () => {
  await warehouse.close();
  cleanup();
});

async function count(table: string): Promise<number> {
  const [row] = await warehouse.query(`SELECT count(*) AS n FROM ${table}`);
  return row?.n as number;
}

const PRICE_ROWS: PriceRow[] = [
  {
    market_hash_name: 'AK-47 | Redline (Field-Tested)',
    wear: 'Field-Tested',
    doppler_phase: null,
    min_ask_usd: 0.1,
    listed_count: 3,
  },
  {
    market_hash_name: '★ Karambit | Doppler (Factory New)',
    wear: 'Factory New',
    doppler_phase: 'Ruby',
    min_ask_usd: 0.2,
    listed_count: 1,
  },
  {
    market_hash_name: 'Sticker | Crown (Foil)',
    wear: null,
    doppler_phase: null,
    min_ask_usd: 1234567.89,
    listed_count: 12,
  },
];

function writeSnapshotFile(rows: readonly PriceRow[]): string {
  const file = join(dir, 'snapshot.ndjson.gz');
  writeFileSync(file, gzipSync(rows.map((r) => JSON.stringify(r)).join('\n')));
  return file;
}

describe('Warehouse.write: price snapshot', () => {
  it('loads a downloaded gzip NDJSON file with its etag and times, and records the fetch', async () => {
    const file = writeSnapshotFile(PRICE_ROWS);
    const snapshot = {
      status: 'downloaded',
      etag: '"v1"',
      generatedAt: T0,
      fetchedAt: T0 + 1000,
      file,
    } as const;
    await warehouse.write([{ source: 'snapshot', snapshot, state: { etag: '"v1"' } }]);
    const rows = await warehouse.query(
      "SELECT * EXCLUDE (load_id, ingested_at) FROM price_snapshots WHERE doppler_phase = 'Ruby'",
    );
    expect(rows).toEqual([
      {
        etag: '"v1"',
        generated_at: '2026-11-01T00:00:00.000Z',
        fetched_at: '2026-11-01T00:00:01.000Z',
        market_hash_name: '★ Karambit | Doppler (Factory New)',
        wear: 'Factory New',
        doppler_phase: 'Ruby',
        min_ask_usd: 0.2,
        listed_count: 1,
      },
    ]);
    // 0.1 + 0.2 summed exactly: DECIMAL, not binary floating point.
    const [sum] = await warehouse.query(
      'SELECT CAST(sum(min_ask_usd) AS VARCHAR) AS total, typeof(min_ask_usd) AS type FROM price_snapshots GROUP BY ALL',
    );
    expect(sum).toEqual({ total: '1234568.19', type: 'DECIMAL(18,2)' });
    expect(await warehouse.query('SELECT etag, status, rows FROM snapshot_fetches')).toEqual([
      { etag: '"v1"', status: 'downloaded', rows: 3 },
    ]);
    expect(await warehouse.readState('snapshot')).toEqual({ etag: '"v1"' });
  });

  it('records a 304 as an unchanged fetch without rows', async () => {
    await warehouse.write([
      { source: 'snapshot', snapshot: { status: 'unchanged', etag: '"v1"', fetchedAt: T0 } },
    ]);
    expect(await count('price_snapshots')).toBe(0);
    expect(await warehouse.query('SELECT fetched_at, etag, status, rows FROM snapshot_fetches')).toEqual([
      { fetched_at: '2026-11-01T00:00:00.000Z', etag: '"v1"', status: 'unchanged', rows: 0 },
    ]);
  });

  it('lands a snapshot once per ETag, and a replayed fetch adds nothing', async () => {
    const file = writeSnapshotFile(PRICE_ROWS);
    const batch: WarehouseBatch = {
      source: 'snapshot',
      snapshot: { status: 'downloaded', etag: '"v1"', generatedAt: null, fetchedAt: T0, file },
    };
    await warehouse.write([batch]);
    await warehouse.write([batch]);
    await warehouse.write([
      {
        ...batch,
        snapshot: { status: 'downloaded', etag: '"v1"', generatedAt: null, fetchedAt: T0 + 5, file },
      },
    ]);
    expect(await count('price_snapshots')).toBe(3);
    expect(await warehouse.query('SELECT DISTINCT generated_at FROM price_snapshots')).toEqual([
      { generated_at: null },
    ]);
    expect(await warehouse.query('SELECT rows FROM snapshot_fetches ORDER BY fetched_at')).toEqual([
      { rows: 3 },
      { rows: 0 },
    ]);
  });

  it('lands every download when the service sent no ETag, once per fetch', async () => {
    const file = writeSnapshotFile(PRICE_ROWS);
    const download = (fetchedAt: number): WarehouseBatch => ({
      source: 'snapshot',
      snapshot: { status: 'downloaded', etag: '', generatedAt: null, fetchedAt, file },
    });
    await warehouse.write([download(T0), download(T0), download(T0 + 60_000)]);
    expect(await count('price_snapshots')).toBe(6);
    expect(await count('snapshot_fetches')).toBe(2);
  });
});

describe('Warehouse.write: minAsk prices and FX', () => {
  it('lands a price list once per build, and a replay adds nothing', async () => {
    const batch = {
      source: 'prices:730',
      minask: { appId: 730, fetchedAt: T0 + 2, generatedAt: T0, rows: PRICE_ROWS },
    };
    await warehouse.write([batch]);
    await warehouse.write([batch]);
    expect(await count('minask_prices')).toBe(3);
    const [row] = await warehouse.query(
      "SELECT * EXCLUDE (load_id) FROM minask_prices WHERE doppler_phase = 'Ruby'",
    );
    expect(row).toEqual({
      app_id: 730,
      fetched_at: '2026-11-01T00:00:00.002Z',
      generated_at: '2026-11-01T00:00:00.000Z',
      market_hash_name: '★ Karambit | Doppler (Factory New)',
      wear: 'Factory New',
      doppler_phase: 'Ruby',
      min_ask_usd: 0.2,
      listed_count: 1,
      ingested_at: '2026-11-01T00:01:00.000Z',
    });
    await warehouse.write([{ source: 'prices:730', minask: { ...batch.minask, generatedAt: T0 + 60_000 } }]);
    expect(await count('minask_prices')).toBe(6);
  });

  it('lands FX rates against USD once per (currency, updated_at)', async () => {
    const batch = {
      source: 'fx',
      fx: { updatedAt: T0, fetchedAt: T0 + 1, rates: { USD: 1, EUR: 0.92, CNY: 7.18 } },
    };
    await warehouse.write([batch]);
    await warehouse.write([{ source: 'fx', fx: { ...batch.fx, fetchedAt: T0 + 2 } }]);
    expect(
      await warehouse.query('SELECT currency, rate, base, updated_at FROM fx_rates ORDER BY currency'),
    ).toEqual([
      { currency: 'CNY', rate: 7.18, base: 'USD', updated_at: '2026-11-01T00:00:00.000Z' },
      { currency: 'EUR', rate: 0.92, base: 'USD', updated_at: '2026-11-01T00:00:00.000Z' },
      { currency: 'USD', rate: 1, base: 'USD', updated_at: '2026-11-01T00:00:00.000Z' },
    ]);
  });
});

describe('Warehouse.write: gaps, state and loads', () => {
  it('opens a gap, closes it by sending it again, and ignores an identical replay', async () => {
    const open = { kind: 'reconnect', startedAt: T0, endedAt: null, rows: 0, detail: 'stream dropped' };
    await warehouse.write([{ source: 'stream', gaps: [open] }]);
    const closed = { ...open, endedAt: T0 + 5000, rows: 42, detail: 'caught up' };
    await warehouse.write([{ source: 'stream', gaps: [closed] }]);
    const replay = await warehouse.write([{ source: 'stream', gaps: [closed] }]);
    expect(replay.rows).toBe(0);
    expect(await warehouse.query('SELECT * EXCLUDE (load_id, ingested_at) FROM ingest_gaps')).toEqual([
      {
        gap_id: 'stream:reconnect:2026-11-01T00:00:00.000Z',
        source: 'stream',
        kind: 'reconnect',
        started_at: '2026-11-01T00:00:00.000Z',
        ended_at: '2026-11-01T00:00:05.000Z',
        rows: 42,
        detail: 'caught up',
      },
    ]);
  });

  it('upserts state by key per source, in the same write as the rows', async () => {
    await warehouse.write([
      { source: 'stream', state: { last_event_id: 'e1', connected: 'yes' } },
      { source: 'poll:730', state: { watermark: '100' } },
    ]);
    await warehouse.write([{ source: 'stream', state: { last_event_id: 'e2' } }]);
    expect(await warehouse.readState('stream')).toEqual({ last_event_id: 'e2', connected: 'yes' });
    expect(await warehouse.readState('poll:730')).toEqual({ watermark: '100' });
    expect(await warehouse.readState('nobody')).toEqual({});
  });

  it('records one loads row per batch, and every landed row carries its load_id', async () => {
    const summary = await warehouse.write([
      { source: 'fx', fx: { updatedAt: T0, fetchedAt: T0, rates: { EUR: 0.9 } } },
      { source: 'prices:570', minask: { appId: 570, fetchedAt: T0, generatedAt: T0, rows: PRICE_ROWS } },
    ]);
    const loads = await warehouse.query(
      'SELECT load_id, source, started_at, rows FROM loads ORDER BY source',
    );
    expect(loads).toEqual([
      { load_id: summary.loads[0]?.loadId, source: 'fx', started_at: '2026-11-01T00:01:00.000Z', rows: 1 },
      {
        load_id: summary.loads[1]?.loadId,
        source: 'prices:570',
        started_at: '2026-11-01T00:01:00.000Z',
        rows: 3,
      },
    ]);
    expect(summary.rows).toBe(4);
    expect(await warehouse.query('SELECT DISTINCT load_id FROM minask_prices')).toEqual([
      { load_id: summary.loads[1]?.loadId },
    ]);
  });
});
