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

  it('lands every line of a drifted file: a malformed or non-UTF-8 line rejected, a bad price noted, a new field kept', async () => {
    const [first, second, third] = PRICE_ROWS.map((r) => JSON.stringify(r));
    const lines = [
      Buffer.from(`${first?.replace('}', ',"float_floor":0.01}')}\n`),
      Buffer.from(`${JSON.stringify({ ...PRICE_ROWS[1], min_ask_usd: 'cheap' })}\n`),
      Buffer.from('{"market_hash_name": "cut short\n\n'),
      Buffer.concat([Buffer.from('{"market_hash_name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n')]),
      Buffer.from(
        `{"wear":null}\n${third}\n${second?.replace('"listed_count":1', '"listed_count":"one"')}\n`,
      ),
    ];
    const file = join(dir, 'drifted.ndjson.gz');
    writeFileSync(file, gzipSync(Buffer.concat(lines)));
    await warehouse.write([
      {
        source: 'snapshot',
        snapshot: { status: 'downloaded', etag: '"v2"', generatedAt: T0, fetchedAt: T0 + 1, file },
      },
    ]);
    expect(await warehouse.query('SELECT rows FROM snapshot_fetches')).toEqual([{ rows: 7 }]);
    expect(
      await warehouse.query(
        `SELECT market_hash_name, CAST(min_ask_usd AS VARCHAR) AS price, listed_count,
                typing_notes::VARCHAR AS notes, extra_fields::VARCHAR AS extra
         FROM price_snapshots_typed ORDER BY market_hash_name`,
      ),
    ).toEqual([
      {
        market_hash_name: 'AK-47 | Redline (Field-Tested)',
        price: '0.10',
        listed_count: 3,
        notes: '[]',
        extra: '{"float_floor":0.01}',
      },
      {
        market_hash_name: 'Sticker | Crown (Foil)',
        price: '1234567.89',
        listed_count: 12,
        notes: '[]',
        extra: null,
      },
      {
        market_hash_name: '★ Karambit | Doppler (Factory New)',
        price: null,
        listed_count: 1,
        notes: "[{'field': min_ask_usd, 'reason': 'expected a number, got VARCHAR'}]",
        extra: null,
      },
      {
        market_hash_name: '★ Karambit | Doppler (Factory New)',
        price: '0.20',
        listed_count: null,
        notes: "[{'field': listed_count, 'reason': 'expected an integer, got VARCHAR'}]",
        extra: null,
      },
    ]);
    expect(
      await warehouse.query('SELECT source, event_id, reason FROM rejected_payloads ORDER BY event_id'),
    ).toEqual([
      { source: 'snapshot', event_id: '"v2":3', reason: 'not valid JSON' },
      { source: 'snapshot', event_id: '"v2":5', reason: 'no data, or not UTF-8' },
      { source: 'snapshot', event_id: '"v2":6', reason: 'no market_hash_name' },
    ]);
    expect(await warehouse.query('SELECT payloads, rejected, partly_typed FROM payload_checks')).toEqual([
      { payloads: 7, rejected: 3, partly_typed: 2 },
    ]);
    expect(
      await warehouse.query("SELECT field, payloads FROM payload_fields WHERE field = 'float_floor'"),
    ).toEqual([{ field: 'float_floor', payloads: 1 }]);
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

  it('lands a drifted FX answer whole: a rate that is no number noted, a new key kept, one without rates rejected', async () => {
    const answer = {
      base: 'USD',
      rates: { EUR: 0.92, GBP: 'n/a' },
      updated_at: '2026-11-01T00:00:00.000Z',
      source: 'ecb',
    };
    await warehouse.write([
      { source: 'fx', fx: { updatedAt: T0, fetchedAt: T0 + 1, rates: answer.rates, answer } },
      { source: 'fx', fx: { updatedAt: null, fetchedAt: T0 + 2, rates: null, answer: { base: 'USD' } } },
    ]);
    expect(
      await warehouse.query(
        'SELECT currency, rate, typing_notes::VARCHAR AS notes, extra_fields::VARCHAR AS extra FROM fx_rates_typed ORDER BY currency',
      ),
    ).toEqual([
      { currency: 'EUR', rate: 0.92, notes: '[]', extra: '{"source":"ecb"}' },
      {
        currency: 'GBP',
        rate: null,
        notes: "[{'field': rate, 'reason': 'expected a number, got VARCHAR'}]",
        extra: '{"source":"ecb"}',
      },
    ]);
    expect(await warehouse.query('SELECT source, reason FROM rejected_payloads')).toEqual([
      { source: 'fx', reason: 'no rates object' },
    ]);
    expect(await warehouse.query('SELECT payloads, rejected, partly_typed FROM payload_checks')).toEqual([
      { payloads: 2, rejected: 1, partly_typed: 1 },
    ]);
  });
});

describe('Warehouse.write: the account', () => {
  const row = (id: unknown, extra: object = {}) => ({
    id,
    type: 'deposit',
    amount_usd: 5,
    balance_after_usd: 5,
    order_id: null,
    description: 'd',
    created_at: '2026-11-01T00:00:00.000Z',
    ...extra,
  });

  it('lands ledger rows once per id, one without an id once per text (rejected), and keeps a new field', async () => {
    const ledger = [
      { id: 't1', transaction: row('t1', { memo: 'x' }), observedAt: T0 },
      { id: null, transaction: row(7), observedAt: T0 },
      { id: 't2', transaction: row('t2', { amount_usd: '5.00' }), observedAt: T0 },
    ];
    await warehouse.write([{ source: 'account', ledger }]);
    await warehouse.write([{ source: 'account', ledger: ledger.map((r) => ({ ...r, observedAt: T0 + 1 })) }]);
    expect(
      await warehouse.query(
        `SELECT transaction_id, CAST(amount_usd AS VARCHAR) AS amount, typing_notes::VARCHAR AS notes,
                extra_fields::VARCHAR AS extra
         FROM account_transactions_typed ORDER BY transaction_id`,
      ),
    ).toEqual([
      { transaction_id: 't1', amount: '5.00', notes: '[]', extra: '{"memo":"x"}' },
      {
        transaction_id: 't2',
        amount: null,
        notes: "[{'field': amount_usd, 'reason': 'expected a number, got VARCHAR'}]",
        extra: null,
      },
    ]);
    expect(await warehouse.query('SELECT source, kind, reason FROM rejected_payloads')).toEqual([
      { source: 'account', kind: 'transaction', reason: 'no transaction id' },
    ]);
    expect(await warehouse.query('SELECT payloads, rejected, partly_typed FROM payload_checks')).toEqual([
      { payloads: 3, rejected: 1, partly_typed: 1 },
    ]);
  });

  it('lands an object state once per (kind, id, updated_at), whole in body, its unknown keys in extra_fields', async () => {
    const body = { order_id: 'o1', status: 'pending', updated_at: '2026-11-01T00:00:00.000Z', rush: true };
    const state = {
      kind: 'order' as const,
      id: 'o1',
      appId: 730,
      updatedAt: body.updated_at,
      observedAt: T0,
      body,
    };
    await warehouse.write([{ source: 'account', accountStates: [state, state] }]);
    await warehouse.write([
      {
        source: 'account',
        accountStates: [
          { ...state, observedAt: T0 + 1 },
          { ...state, id: null, body: { status: 'pending' } },
        ],
      },
    ]);
    expect(
      await warehouse.query(
        `SELECT kind, object_id, app_id, status, updated_at, body ->> '$.rush' AS rush, extra_fields::VARCHAR AS extra
         FROM account_states_typed`,
      ),
    ).toEqual([
      {
        kind: 'order',
        object_id: 'o1',
        app_id: 730,
        status: 'pending',
        updated_at: '2026-11-01T00:00:00.000Z',
        rush: 'true',
        extra: '{"rush":true}',
      },
    ]);
    expect(await warehouse.query('SELECT kind, reason FROM rejected_payloads')).toEqual([
      { kind: 'order', reason: 'no object id' },
    ]);
  });
});

describe('Warehouse.write: repeated account states', () => {
  it("records a state byte-identical to its key's last state as a repeat, and stores one that changed", async () => {
    const updated_at = '2026-11-01T00:00:00.000Z';
    const bodies = [
      { order_id: 'o1', status: 'pending', updated_at },
      { order_id: 'o1', status: 'pending', updated_at },
      { order_id: 'o1', status: 'held', updated_at },
      { order_id: 'o1', status: 'pending', updated_at },
    ];
    for (const [i, body] of bodies.entries())
      await warehouse.write([
        {
          source: 'account',
          accountStates: [
            { kind: 'order', id: 'o1', appId: 730, updatedAt: updated_at, observedAt: T0 + i * 1000, body },
          ],
        },
      ]);
    // Stored: the first state, the change, the change back (not its last text); the second repeats.
    expect(await warehouse.query('SELECT status FROM account_states ORDER BY observed_at')).toEqual([
      { status: 'pending' },
      { status: 'held' },
      { status: 'pending' },
    ]);
    expect(
      await warehouse.query(
        `SELECT r.observed_at, r.same_load_id = s.load_id AS same, l.rows
         FROM raw_account_state_repeats r JOIN loads l USING (load_id)
         JOIN raw_account_states s ON s.observed_at = TIMESTAMP '2026-11-01 00:00:00'`,
      ),
    ).toEqual([{ observed_at: '2026-11-01T00:00:01.000Z', same: true, rows: 1 }]);
    const received = await warehouse.query(
      `SELECT list(data ORDER BY observed_at) AS states FROM (
         SELECT observed_at, data FROM raw_account_states
         UNION ALL
         SELECT s.observed_at, r.data FROM raw_account_state_repeats s
         JOIN raw_account_states r ON r.kind = s.kind AND r.object_id = s.object_id AND r.updated_at = s.updated_at
           AND r.load_id = s.same_load_id AND md5_number(r.data) = s.same_md5
       )`,
    );
    expect(received[0]?.states).toEqual(bodies.map((b) => JSON.stringify(b)));
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

describe('Warehouse.write: repeated snapshot lines', () => {
  it("records a line byte-identical to its group's last line as a repeat, and gives back every file as sent", async () => {
    const [a, b, c] = PRICE_ROWS as [PriceRow, PriceRow, PriceRow];
    const files = [
      [a, b, c],
      [a, { ...b, min_ask_usd: 0.3 }, c],
      [a, b, c],
    ];
    for (const [i, rows] of files.entries()) {
      const file = join(dir, `snapshot-${i}.ndjson.gz`);
      writeFileSync(file, gzipSync(rows.map((r) => JSON.stringify(r)).join('\n')));
      const fetchedAt = T0 + i * 60_000;
      const snapshot = {
        status: 'downloaded' as const,
        etag: `"v${i}"`,
        generatedAt: fetchedAt,
        fetchedAt,
        file,
      };
      await warehouse.write([{ source: 'snapshot', snapshot }]);
    }
    // Stored: the first file, b's change, b back to its first text (not its last); the rest repeats.
    expect(await count('raw_price_snapshots')).toBe(5);
    expect(await count('raw_price_snapshot_repeats')).toBe(4);
    const read = await warehouse.query(
      'SELECT etag, list(raw ORDER BY fetched_at) AS lines FROM price_snapshots_typed GROUP BY etag ORDER BY etag',
    );
    expect(read.map((r) => (r.lines as string[]).sort())).toEqual(
      files.map((rows) => rows.map((r) => JSON.stringify(r)).sort()),
    );
    const rebuilt = await warehouse.query(
      `SELECT etag, list(data ORDER BY line) AS lines FROM (
         SELECT etag, line, data FROM raw_price_snapshots
         UNION ALL
         SELECT s.etag, s.line, r.data FROM raw_price_snapshot_repeats s
         JOIN raw_price_snapshots r ON r.etag = s.same_etag AND r.fetched_at = s.same_fetched_at AND r.line = s.same_line
       ) GROUP BY etag ORDER BY etag`,
    );
    expect(rebuilt.map((r) => r.lines)).toEqual(files.map((rows) => rows.map((r) => JSON.stringify(r))));
    expect(await warehouse.query('SELECT rows FROM snapshot_fetches ORDER BY fetched_at')).toEqual([
      { rows: 3 },
      { rows: 3 },
      { rows: 3 },
    ]);
    expect(await count('price_snapshots')).toBe(9);
    // Every line counts once: in its load's rows and as a payload of the source.
    expect(await warehouse.query('SELECT rows FROM loads ORDER BY started_at, rows')).toEqual([
      { rows: 4 },
      { rows: 4 },
      { rows: 4 },
    ]);
    expect(await warehouse.query('SELECT source, payloads FROM payload_checks')).toEqual([
      { source: 'snapshot', payloads: 9 },
    ]);
  });
});

describe('Warehouse.write: repeated minAsk rows', () => {
  it("records a row byte-identical to its group's last row in the game as a repeat, and gives back every list as sent", async () => {
    const [a, b, c] = PRICE_ROWS as [PriceRow, PriceRow, PriceRow];
    const lists = [
      [a, b, c],
      [a, { ...b, min_ask_usd: 0.3 }, c],
      [a, b, c],
    ];
    for (const [i, rows] of lists.entries()) {
      const fetchedAt = T0 + i * 60_000;
      await warehouse.write([
        { source: 'prices:730', minask: { appId: 730, fetchedAt, generatedAt: fetchedAt, rows } },
      ]);
    }
    // Another game's list of the same rows is its own.
    await warehouse.write([
      { source: 'prices:570', minask: { appId: 570, fetchedAt: T0, generatedAt: T0, rows: [a] } },
    ]);
    // Stored: the first list, b's change, b back to its first text (not its last); the rest repeats.
    expect(await count('raw_minask_prices')).toBe(6);
    const repeats = await warehouse.query(
      `SELECT r.fetched_at, r.position, r.same_fetched_at, r.same_position, l.rows
       FROM raw_minask_price_repeats r JOIN loads l USING (load_id) ORDER BY r.fetched_at, r.position`,
    );
    expect(repeats).toEqual([
      {
        fetched_at: '2026-11-01T00:01:00.000Z',
        position: 0,
        same_fetched_at: '2026-11-01T00:00:00.000Z',
        same_position: 0,
        rows: 3,
      },
      {
        fetched_at: '2026-11-01T00:01:00.000Z',
        position: 2,
        same_fetched_at: '2026-11-01T00:00:00.000Z',
        same_position: 2,
        rows: 3,
      },
      {
        fetched_at: '2026-11-01T00:02:00.000Z',
        position: 0,
        same_fetched_at: '2026-11-01T00:00:00.000Z',
        same_position: 0,
        rows: 3,
      },
      {
        fetched_at: '2026-11-01T00:02:00.000Z',
        position: 2,
        same_fetched_at: '2026-11-01T00:00:00.000Z',
        same_position: 2,
        rows: 3,
      },
    ]);
    const read = await warehouse.query(
      `SELECT list(raw) AS rows FROM minask_prices_typed WHERE app_id = 730 GROUP BY fetched_at ORDER BY fetched_at`,
    );
    expect(read.map((r) => (r.rows as string[]).sort())).toEqual(
      lists.map((rows) => rows.map((r) => JSON.stringify(r)).sort()),
    );
    const rebuilt = await warehouse.query(
      `SELECT list(data ORDER BY position) AS rows FROM (
         SELECT app_id, fetched_at, position, data FROM raw_minask_prices
         UNION ALL
         SELECT s.app_id, s.fetched_at, s.position, r.data FROM raw_minask_price_repeats s
         JOIN raw_minask_prices r ON r.app_id = s.app_id AND r.fetched_at = s.same_fetched_at AND r.position = s.same_position
       ) WHERE app_id = 730 GROUP BY fetched_at ORDER BY fetched_at`,
    );
    expect(rebuilt.map((r) => r.rows)).toEqual(lists.map((rows) => rows.map((r) => JSON.stringify(r))));
    expect(await count('minask_prices')).toBe(10);
    expect(
      await warehouse.query("SELECT payloads, partly_typed FROM payload_checks WHERE source = 'prices:730'"),
    ).toEqual([{ payloads: 9, partly_typed: 0 }]);
    // A replayed list that was all repeats still lands once.
    await warehouse.write([
      {
        source: 'prices:730',
        minask: {
          appId: 730,
          fetchedAt: T0 + 120_000,
          generatedAt: T0 + 120_000,
          rows: lists[2] as PriceRow[],
        },
      },
    ]);
    expect(await count('minask_prices')).toBe(10);
  });
});

describe('Warehouse.write: repeated FX answers', () => {
  it("records an answer byte-identical to its update's last answer as a repeat, and stores one that changed", async () => {
    const rates = [{ EUR: 0.92 }, { EUR: 0.92 }, { EUR: 0.93 }, { EUR: 0.92 }];
    for (const [i, r] of rates.entries())
      await warehouse.write([{ source: 'fx', fx: { updatedAt: T0, fetchedAt: T0 + i * 1000, rates: r } }]);
    // A replayed fetch adds nothing.
    await warehouse.write([{ source: 'fx', fx: { updatedAt: T0, fetchedAt: T0 + 1000, rates: rates[1] } }]);
    // Stored: the first answer, the change, the change back (not its last text); the second repeats.
    expect(
      await warehouse.query(
        "SELECT epoch_ms(fetched_at) - epoch_ms(TIMESTAMP '2026-11-01') AS ms, data FROM raw_fx_rates ORDER BY ms",
      ),
    ).toEqual(
      [0, 2000, 3000].map((ms) => ({
        ms,
        data: JSON.stringify({
          base: 'USD',
          rates: rates[ms / 1000],
          updated_at: '2026-11-01T00:00:00.000Z',
        }),
      })),
    );
    expect(
      await warehouse.query(
        `SELECT r.fetched_at, r.same_fetched_at, l.rows FROM raw_fx_rate_repeats r JOIN loads l USING (load_id)`,
      ),
    ).toEqual([
      { fetched_at: '2026-11-01T00:00:01.000Z', same_fetched_at: '2026-11-01T00:00:00.000Z', rows: 1 },
    ]);
    const received = await warehouse.query(
      `SELECT list(data ORDER BY fetched_at) AS answers FROM (
         SELECT fetched_at, data FROM raw_fx_rates
         UNION ALL
         SELECT s.fetched_at, r.data FROM raw_fx_rate_repeats s
         JOIN raw_fx_rates r ON r.updated_at = s.updated_at AND r.fetched_at = s.same_fetched_at
       )`,
    );
    expect(received[0]?.answers).toEqual(
      rates.map((r) => JSON.stringify({ base: 'USD', rates: r, updated_at: '2026-11-01T00:00:00.000Z' })),
    );
    expect(await warehouse.query('SELECT rate FROM fx_rates ORDER BY fetched_at')).toEqual([
      { rate: 0.92 },
      { rate: 0.93 },
      { rate: 0.92 },
    ]);
  });
});
