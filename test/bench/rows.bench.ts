/**
 * Decoding DuckDB rows: the event log's hand-written decoder (`logEventOf`, kept for the replay
 * steps) against zod row schemas of the same shape, over 200,000 rows read from DuckDB so that
 * their values have DuckDB's own types.
 */
import { z } from 'zod';
import { logEventOf } from '../../src/service/market/stream/event-log.js';
import { Database } from '../../src/shared/database.js';
import { bigintColumn } from '../../src/shared/row-schema.js';

const ROWS = 200_000;
const ROUNDS = 5;

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  const db = await Database.open(':memory:');
  try {
    const events = await db.all<Record<string, unknown>>(
      `SELECT range AS position, CASE WHEN range % 2 = 0 THEN 'new' ELSE 'gone' END AS kind, 730::INTEGER AS app_id,
              'id-' || range AS listing_id, CASE WHEN range % 2 = 0 THEN '{"id":"id-' || range || '"}' END AS listing,
              epoch_ms(TIMESTAMP '2026-01-01' + INTERVAL (range) SECOND) AS at
       FROM range(${ROWS})`,
    );
    const shape = (int: z.ZodType<number>) =>
      z
        .object({
          position: int,
          kind: z.enum(['new', 'gone']),
          app_id: z.number(),
          listing_id: z.string(),
          listing: z.string().nullable(),
          at: int,
        })
        .transform((r) => ({ ...r }));
    const exact = shape(bigintColumn);
    const union = shape(z.union([z.number(), z.bigint()]).transform(Number));
    const hand = time(() => events.map(logEventOf));
    const zodExact = time(() => events.map((r) => exact.parse(r)));
    const zodUnion = time(() => events.map((r) => union.parse(r)));
    const perRow = (ms: number) => `${((ms * 1000) / ROWS).toFixed(2)} µs/row`;
    console.log(`event log rows: by hand ${perRow(hand)}`);
    console.log(`  zod, one exact type per column: ${perRow(zodExact)} (${(zodExact / hand).toFixed(1)}×)`);
    console.log(`  zod, number|bigint unions: ${perRow(zodUnion)} (${(zodUnion / hand).toFixed(1)}×)`);
  } finally {
    await db.close();
  }
}

/** Median milliseconds of `f` over ROUNDS runs, after one warm-up. */
function time(f: () => unknown): number {
  f();
  const runs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    f();
    runs.push(performance.now() - started);
  }
  return runs.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)] as number;
}
