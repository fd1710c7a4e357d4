/**
 * What `int_listing_spells`' increment reads of the stored page items: the items of the listings
 * it replays (none most minutes), not every item landed. Counted from DuckDB's profile of each
 * statement of the increment as the runner renders it: the rows its scans of
 * `raw_listing_observations` hand on with the text (`data`), which the repeats' join hashed whole
 * when the replayed listings' ids came as a join instead of a constant list.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Warehouse, type WarehouseBatch } from '../../src/warehouse/index.js';
import { renderModelSql } from '../../src/warehouse/models/index.js';
import { splitStatements } from '../../src/warehouse/models/sql-statements.js';
import { makeTempDir, modelRows, observation } from './fixtures.js';

const MODELS = ['int_listing_spells'];
const NOON = Date.UTC(2026, 10, 1, 12);
/** Stored page items: more than two of DuckDB's vectors (2,048 rows), so a read of one shows. */
const LISTINGS = 5_000;

let cleanup: () => void;
let dir: string;
let warehouse: Warehouse;
const clock = { now: NOON };
beforeAll(async () => {
  ({ dir, cleanup } = makeTempDir());
  warehouse = await Warehouse.open(join(dir, 'w.duckdb'), { clock: () => clock.now });
  // Two sweeps of every listing: the first stores each item, the second lands repeats of them.
  const ids = Array.from({ length: LISTINGS }, (_, i) => `l${String(i).padStart(5, '0')}`);
  for (const [n, pass] of ['s1', 's2'].entries()) {
    const at = NOON + n * 600_000;
    await land(at + 1_000, {
      source: 'sweep:730',
      observations: ids.map((id, i) => ({
        ...observation(id, at, pass, { price_usd: 10 }, 'sweep'),
        page: Math.floor(i / 100),
        index: i % 100,
      })),
    });
  }
  // A load touching no listing: the build's watermark, which the next increment reads from.
  await land(NOON + 650_000, rates());
  clock.now = NOON + 700_000;
  await warehouse.refreshModels({ select: MODELS });
}, 120_000);
afterAll(async () => {
  await warehouse.close();
  cleanup();
});

async function land(landedAt: number, ...batches: WarehouseBatch[]): Promise<void> {
  clock.now = landedAt;
  await warehouse.write(batches);
}

/** A poll of `listing` seeing it at `at` as the sweeps did (a repeat of its stored item). */
const poll = (listing: string, at: number, pass: string): WarehouseBatch => ({
  source: 'poll:730',
  observations: [observation(listing, at, pass, { price_usd: 10 })],
});

/** An FX landing: it moves the build's watermark past the landings before it, touching no listing. */
const rates = (): WarehouseBatch => ({
  source: 'fx',
  fx: { updatedAt: clock.now, fetchedAt: clock.now, rates: { EUR: 0.9 } },
});

/**
 * Runs the spells' increment as the runner renders it, in a transaction rolled back, and counts
 * the stored page items its statements' scans handed on with their text.
 */
async function storedItemsRead(): Promise<number> {
  const [model] = warehouse.models().filter((m) => m.name === 'int_listing_spells');
  if (!model) throw new Error('no int_listing_spells model');
  const [state] = await warehouse.query(
    "SELECT CAST(watermark AS VARCHAR) AS since FROM model_state WHERE model = 'int_listing_spells'",
  );
  const [loads] = await warehouse.query('SELECT CAST(max(started_at) AS VARCHAR) AS watermark FROM loads');
  const sql = renderModelSql(model, String(state?.since), String(loads?.watermark));
  const profile = join(dir, `profile-${Date.now()}.json`);
  return warehouse.withConnection(async (connection) => {
    await connection.run('BEGIN');
    await connection.run("PRAGMA enable_profiling = 'json'");
    await connection.run(`PRAGMA profiling_output = '${profile}'`);
    let read = 0;
    try {
      for (const statement of splitStatements(sql)) {
        await connection.run(statement);
        read += storedScansRows(JSON.parse(readFileSync(profile, 'utf8')));
      }
    } finally {
      await connection.run('PRAGMA disable_profiling');
      await connection.run('ROLLBACK');
    }
    return read;
  });
}

interface ProfileNode {
  operator_name?: string;
  operator_cardinality?: number;
  extra_info?: { Table?: string; Projections?: string | string[] };
  children?: ProfileNode[];
}

/** Rows handed on by the scans of the stored page items that read their text. */
function storedScansRows(node: ProfileNode): number {
  const info = node.extra_info ?? {};
  const projections = [info.Projections ?? []].flat().join(' ');
  const own =
    /SCAN/.test(node.operator_name ?? '') &&
    /raw_listing_observations/.test(info.Table ?? '') &&
    /\bdata\b/.test(projections)
      ? (node.operator_cardinality ?? 0)
      : 0;
  return own + (node.children ?? []).reduce((sum, child) => sum + storedScansRows(child), 0);
}

it('reads no stored page item of another listing when it replays none', async () => {
  await land(NOON + 1_201_000, poll('l00042', NOON + 1_200_000, 'p1'));
  await land(NOON + 1_202_000, rates());
  const read = await storedItemsRead();
  // The poll's repeat is typed from its one stored item; the 5,000 others stay unread.
  expect(read).toBeLessThan(10);
  await warehouse.refreshModels({ select: MODELS });
});

it('reads the stored page items of the listings it replays alone', async () => {
  // A poll landing late (before the listing's last sighting): its listing is numbered again.
  await land(NOON + 1_801_000, poll('l04321', NOON + 300_000, 'p2'));
  await land(NOON + 1_802_000, rates());
  const read = await storedItemsRead();
  expect(read).toBeLessThan(10);
  clock.now = NOON + 1_810_000;
  await warehouse.refreshModels({ select: MODELS });
  const incremental = await modelRows(warehouse, MODELS);
  await warehouse.refreshModels({ select: MODELS, fullRefresh: true });
  expect(incremental).toEqual(await modelRows(warehouse, MODELS));
});
