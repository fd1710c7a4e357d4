/**
 * `fct_minask_history` as a view over the group's runs of unchanged figures (`int_minask_spells`)
 * and the game's minutes (`int_minask_minutes`) answers exactly as the table of a row per group and
 * minute it replaced: that model's SQL (`test/fixtures/models/dense_minask_history.sql`) is built
 * beside it on the same warehouse, refreshed by the same runs, and the two compared with `EXCEPT
 * ALL` both ways, every column (the build watermarks too), after each incremental refresh and after
 * a full one; and so is `fct_minask_hourly`, which reads the tables behind the view, with the
 * hourly model as it read the table (`dense_minask_hourly.sql`). The market: CS2 snapshots a minute apart whose groups change now and then, 304s, a
 * minute without a fetch, /prices lists of another game, and listings that come and go, across
 * midnight.
 */
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PriceRow } from '../../src/contract/market.js';
import { projectPath } from '../../src/shared/project-root.js';
import { Warehouse, type WarehouseBatch } from '../../src/warehouse/index.js';
import { goneEvent, makeTempDir, newEvent, priceRow, snapshotBatch, T0 } from './fixtures.js';

const MINUTE = 60_000;
const DENSE = 'dense_minask_history';
/** The hourly model as it read that table. */
const DENSE_HOURLY = 'dense_minask_hourly';
const START = T0 - 8 * MINUTE;

let dir: string;
let cleanup: () => void;
let clock: { now: number };
let warehouse: Warehouse;
beforeAll(async () => {
  ({ dir, cleanup } = makeTempDir());
  const models = join(dir, 'models');
  mkdirSync(models);
  for (const file of readdirSync(projectPath('sql', 'models')))
    if (file.endsWith('.sql')) copyFileSync(projectPath('sql', 'models', file), join(models, file));
  for (const dense of [DENSE, DENSE_HOURLY])
    copyFileSync(projectPath('test', 'fixtures', 'models', `${dense}.sql`), join(models, `${dense}.sql`));
  clock = { now: START };
  warehouse = await Warehouse.open(join(dir, 'w.duckdb'), { clock: () => clock.now, modelsDir: models });
});
afterAll(async () => {
  await warehouse?.close();
  cleanup?.();
});

const SELECT = [
  'fct_minask_history',
  'int_minask_spells',
  'int_minask_minutes',
  DENSE,
  'fct_minask_hourly',
  DENSE_HOURLY,
  'int_live_minask_changes',
  'stg_price_lists',
];

async function landAt(at: number, batch: WarehouseBatch) {
  clock.now = at;
  await warehouse.write([batch]);
}

/** The rows of each pair of relations not in the other, both ways, every column. */
async function differences(): Promise<unknown[]> {
  const one = (a: string, b: string) => `SELECT '${a}' AS only_in, * FROM (FROM ${a} EXCEPT ALL FROM ${b})`;
  const pair = (a: string, b: string) => warehouse.query(`${one(a, b)} UNION ALL ${one(b, a)} ORDER BY ALL`);
  return [...(await pair('fct_minask_history', DENSE)), ...(await pair('fct_minask_hourly', DENSE_HOURLY))];
}

it('answers every row of the table of a row per group and minute, incrementally and in full', async () => {
  // Three groups whose figures change every few minutes, one that drops out of the list and back.
  const lists = (m: number): PriceRow[] => [
    priceRow('AK', 1.5 + Math.floor(m / 4) * 0.25, 3 + Math.floor(m / 3)),
    priceRow('M4', 7, 2),
    ...(m % 7 < 4 ? [priceRow('AWP', 40 - m, 1)] : []),
  ];
  let event = 0;
  for (let m = 0; m < 12; m += 1) {
    // Across midnight: a run of unchanged figures ends with its day.
    const at = START + m * MINUTE + 5_000;
    if (m === 9) {
      // No fetch this minute: a row only where the live set changed.
    } else if (m % 5 === 2) {
      await landAt(at, {
        source: 'snapshot',
        snapshot: { status: 'unchanged', etag: `"v${m - 1}"`, fetchedAt: at },
      });
    } else await landAt(at, snapshotBatch(dir, `v${m}`, at, lists(m)));
    if (m % 3 === 0)
      await landAt(at + 1_000, {
        source: 'prices:570',
        minask: {
          appId: 570,
          fetchedAt: at + 1_000,
          generatedAt: at + 500,
          rows: [priceRow('Hook', 0.3 + m / 100, 2)],
        },
      });
    if (m % 2 === 1) {
      event += 1;
      await landAt(at + 2_000, {
        source: 'stream',
        events: [newEvent(`s-${event}`, `l-${m}`, at + 2_000, { market_hash_name: 'AK', price_usd: 1 + m })],
      });
    }
    if (m % 4 === 3) {
      event += 1;
      await landAt(at + 3_000, {
        source: 'stream',
        events: [goneEvent(`s-${event}`, `l-${m - 2}`, at + 3_000)],
      });
    }
    clock.now = at + 10_000;
    await warehouse.refreshModels({ select: SELECT });
    expect(await differences()).toEqual([]);
  }
  const [counts] = await warehouse.query(
    `SELECT (SELECT count(*) FROM ${DENSE}) AS dense, (SELECT count(*) FROM int_minask_spells) AS runs`,
  );
  // The comparison compared something: the dense rows outnumber the stored runs.
  expect(Number(counts?.dense)).toBeGreaterThan(30);
  expect(Number(counts?.runs)).toBeLessThan(Number(counts?.dense));
  clock.now += 1_000;
  await warehouse.refreshModels({ select: SELECT, fullRefresh: true });
  expect(await differences()).toEqual([]);
});
