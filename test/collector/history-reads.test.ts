/**
 * How many reads of the warehouse a history answer costs, on a real DuckDB file with its models
 * built: a group with data is answered by one read (its check is the answer's own observations), 90
 * days of 1h candles are one answer, and an unknown group is still a 404, also before any model is
 * built.
 */
import { join } from 'node:path';
import { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readCandles } from '../../src/collector/history/candles.js';
import { HistoryReader } from '../../src/collector/history/history-reader.js';
import { readStats } from '../../src/collector/history/stats.js';
import { ApiError } from '../../src/contract/api-error.js';
import { candlesQuerySchema, statsQuerySchema } from '../../src/contract/history.js';
import { Warehouse } from '../../src/warehouse/index.js';
import { makeTempDir, newEvent, priceRow, snapshotBatch, T0 } from '../warehouse/fixtures.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
const NOW = T0 + 2 * DAY;

let dir: string;
let cleanup: () => void;
const clock = { now: T0 };
let warehouse: Warehouse;
let reader: HistoryReader;
beforeAll(async () => {
  ({ dir, cleanup } = makeTempDir());
  warehouse = await Warehouse.open(join(dir, 'w.duckdb'), { clock: () => clock.now });
  reader = new HistoryReader(warehouse);
});
afterAll(async () => {
  await reader?.stop();
  await warehouse?.close();
  cleanup?.();
});

/** The reads `work` makes of the warehouse. */
async function readsOf(work: () => Promise<unknown>): Promise<number> {
  const rows = vi.spyOn(reader, 'rows');
  try {
    await work();
    return rows.mock.calls.length;
  } finally {
    rows.mockRestore();
  }
}

function candles(name: string, from: number, interval = '1h') {
  return readCandles(
    reader,
    candlesQuerySchema.parse({
      market_hash_name: name,
      interval,
      from: new Date(from).toISOString(),
      to: new Date(NOW).toISOString(),
    }),
    NOW,
  );
}

function stats(name: string) {
  return readStats(reader, statsQuerySchema.parse({ market_hash_name: name, window: '90d' }), NOW);
}

it('answers an unknown group 404 before any model is built', async () => {
  await expect(candles('AK', NOW - DAY)).rejects.toMatchObject({ code: 'not_found' });
  await expect(stats('AK')).rejects.toBeInstanceOf(ApiError);
});

describe('with the models built', () => {
  beforeAll(async () => {
    clock.now = T0;
    await warehouse.write([
      { source: 'stream', events: [newEvent('s-1', 'l-1', T0, { market_hash_name: 'AK', price_usd: 5 })] },
    ]);
    clock.now = T0 + MINUTE;
    await warehouse.write([snapshotBatch(dir, 'v1', T0 + MINUTE, [priceRow('AK', 4.5, 2)])]);
    clock.now = T0 + 2 * MINUTE;
    await warehouse.refreshModels();
  });

  it('answers 90 days of 1h candles of a group with data in one answer and one read', async () => {
    let answer: Awaited<ReturnType<typeof candles>>['answer'] | undefined;
    const reads = await readsOf(async () => {
      answer = (await candles('AK', NOW - 90 * DAY)).answer;
    });
    expect(answer?.candles).toHaveLength(2160);
    expect(answer?.next_cursor).toBeNull();
    expect(answer?.candles.find((c) => c.observations > 0)).toMatchObject({ close: 5, listed_close: 1 });
    expect(reads).toBe(1);
  });

  it('answers the stats of a group with data in one read', async () => {
    let answer: Awaited<ReturnType<typeof stats>> | undefined;
    const reads = await readsOf(async () => {
      answer = await stats('AK');
    });
    expect(answer).toMatchObject({ min: 5, max: 5, rate: 1 });
    expect(reads).toBe(1);
  });

  it('still checks a group the answer shows nothing of: 404 unknown, empty buckets known', async () => {
    await expect(candles('M4', NOW - DAY)).rejects.toMatchObject({ code: 'not_found' });
    await expect(stats('M4')).rejects.toMatchObject({ code: 'not_found' });
    // AK has no observation in its last day: its buckets are empty, not a 404.
    const { answer } = await candles('AK', NOW - DAY);
    expect(answer.candles.every((c) => c.observations === 0 && c.close === null)).toBe(true);
  });
  it('reads no rate for USD, the base currency: 1 at all times', async () => {
    const rows = vi.spyOn(reader, 'rows');
    try {
      const { answer } = await candles('AK', NOW - 90 * DAY);
      expect(new Set(answer.candles.map((c) => c.rate))).toEqual(new Set([1]));
      expect((await stats('AK')).rate).toBe(1);
      expect(rows.mock.calls.map(([sql]) => sql).filter((sql) => sql.includes('stg_fx_rates'))).toEqual([]);
    } finally {
      rows.mockRestore();
    }
  });

  it('parses and plans a statement once for repeated reads', async () => {
    // A statement is parsed where it is prepared: run with parameters prepares it each time.
    const texts = (calls: unknown[][]) =>
      calls.filter(([sql]) => String(sql).includes('FROM fct_float_rank'));
    const prepare = vi.spyOn(DuckDBConnection.prototype, 'prepare');
    const run = vi.spyOn(DuckDBConnection.prototype, 'run');
    const own = new HistoryReader(warehouse);
    const query = statsQuerySchema.parse({ market_hash_name: 'AK', window: '90d' });
    try {
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await readStats(own, query, NOW));
      expect(answers[2]).toEqual(answers[0]);
      expect(texts(prepare.mock.calls).length + texts(run.mock.calls).length).toBe(1);
    } finally {
      prepare.mockRestore();
      run.mockRestore();
      await own.stop();
    }
  });

  it('leaves DuckDB on one thread between reads, its connections kept', async () => {
    const own = new HistoryReader(warehouse);
    const threads = async () =>
      (await warehouse.query("SELECT current_setting('threads')::INTEGER AS n"))[0]?.n;
    try {
      await readStats(own, statsQuerySchema.parse({ market_hash_name: 'AK', window: '90d' }), NOW);
      // Past the moment after which work in flight gets DuckDB's second thread.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await threads()).toBe(1);
    } finally {
      await own.stop();
    }
  });

  it('takes the volatility from the hours\u2019 closes', async () => {
    // A cheaper listing each hour.
    for (const [hour, price] of [
      [1, 4],
      [2, 3],
      [3, 2],
    ] as const) {
      clock.now = T0 + hour * 3_600_000;
      await warehouse.write([
        {
          source: 'stream',
          events: [
            newEvent(`s-h${hour}`, `l-h${hour}`, clock.now, { market_hash_name: 'AK', price_usd: price }),
          ],
        },
      ]);
    }
    clock.now = T0 + 4 * 3_600_000;
    await warehouse.refreshModels();
    // Each hour's close is its last quarter's.
    const hours = new Map<number, number>();
    for (const c of (await candles('AK', T0, '15m')).answer.candles)
      if (c.observations > 0) hours.set(Math.floor(Date.parse(c.t) / 3_600_000), c.close as number);
    const closes = [...hours.values()];
    expect(closes).toEqual([5, 4, 3, 2]);
    const returns = closes.slice(1).map((close, i) => Math.log(close / (closes[i] as number)));
    const mean = returns.reduce((sum, r) => sum + r, 0) / returns.length;
    const deviation = Math.sqrt(returns.reduce((sum, r) => sum + (r - mean) ** 2, 0) / (returns.length - 1));
    expect((await stats('AK')).volatility).toBeCloseTo(deviation, 12);
  });
});
