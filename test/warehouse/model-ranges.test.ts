/**
 * The project's `int_listing_spells` built in full in several ranges of listing ids (`chunks: per n rows of …`)
 * leaves the same rows as one statement: each range types its own page items and joins its own
 * repeats to their stored payloads, and no listing falls between two ranges.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { findSqlDir } from '../../src/shared/project-root.js';
import { Warehouse, type WarehouseBatch } from '../../src/warehouse/index.js';
import { goneEvent, makeTempDir, newEvent, observation, T0 } from './fixtures.js';

const MINUTE = 60_000;
const MODELS = ['int_listing_spells', 'fct_listing_lifecycle'];
const IDS = ['a1', 'b2', 'c3', 'd4', 'e5', 'f6', 'g7', 'h8'];

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = makeTempDir());
});
afterEach(() => cleanup());

/** The project's models, with the spells built in ranges of about `rows` sightings. */
function modelsInRangesOf(rows: number): string {
  const folder = join(dir, 'models');
  cpSync(findSqlDir('models'), folder, { recursive: true });
  const spells = join(folder, 'int_listing_spells.sql');
  const sql = readFileSync(spells, 'utf8');
  expect(sql).toMatch(/^-- chunks: per \d+ rows of stg_listing_appearances\.listing_id$/m);
  writeFileSync(spells, sql.replace(/(-- chunks: per )\d+/, `$1${rows}`));
  return folder;
}

/** The stream lists every listing, two sweeps see them (the second mostly repeats), some asks change, some leave. */
function traffic(): WarehouseBatch[] {
  const sweep = (pass: string, at: number) =>
    IDS.map((id, i) =>
      observation(id, at, pass, pass === 's2' && i % 3 === 0 ? { price_usd: 20 + i } : {}, 'sweep'),
    );
  return [
    { source: 'stream', events: IDS.map((id, i) => newEvent(`log-${i + 1}`, id, T0 + i * 1000)) },
    { source: 'sweep:730', observations: sweep('s1', T0 + MINUTE) },
    { source: 'sweep:730', observations: sweep('s2', T0 + 2 * MINUTE) },
    {
      source: 'stream',
      events: [goneEvent('log-9', 'b2', T0 + 3 * MINUTE), goneEvent('log-10', 'f6', T0 + 3 * MINUTE)],
    },
    {
      source: 'sweep:730',
      observations: sweep('s3', T0 + 4 * MINUTE).filter((o) => !['b2', 'f6'].includes(String(o.listingId))),
    },
  ];
}

async function buildAndRead(modelsDir?: string): Promise<Record<string, unknown[]>> {
  const clock = { now: T0 };
  const warehouse = await Warehouse.open(join(dir, 'w.duckdb'), {
    clock: () => clock.now,
    ...(modelsDir ? { modelsDir } : {}),
  });
  try {
    if (modelsDir === undefined)
      for (const batch of traffic()) {
        clock.now += MINUTE;
        await warehouse.write([batch]);
      }
    clock.now = T0 + 10 * MINUTE;
    await warehouse.refreshModels({ select: MODELS, fullRefresh: true });
    const rows: Record<string, unknown[]> = {};
    for (const model of MODELS) rows[model] = await warehouse.query(`SELECT * FROM ${model} ORDER BY ALL`);
    const [sizes] = await warehouse.query(
      `SELECT (SELECT count(*) FROM stg_listing_appearances)::INT AS sightings,
              (SELECT count(*) FROM raw_listing_repeats)::INT AS repeats`,
    );
    rows.sizes = [sizes];
    return rows;
  } finally {
    await warehouse.close();
  }
}

it('builds the spells in ranges of listing ids with the same rows as in one statement', async () => {
  const whole = await buildAndRead();
  // Enough sightings for several ranges of 4, and repeats to join back to their stored payloads.
  expect(whole.sizes).toEqual([{ sightings: expect.any(Number), repeats: expect.any(Number) }]);
  const { sightings, repeats } = (whole.sizes ?? [])[0] as { sightings: number; repeats: number };
  expect(sightings).toBeGreaterThanOrEqual(3 * 4);
  expect(repeats).toBeGreaterThan(0);
  expect(whole.int_listing_spells?.length).toBeGreaterThan(IDS.length);
  const inRanges = await buildAndRead(modelsInRangesOf(4));
  expect(inRanges).toEqual(whole);
});
