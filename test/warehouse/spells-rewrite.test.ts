/**
 * int_listing_spells was rewritten so that DuckDB can build it over a month of events within the
 * warehouse's memory limit (narrow windows, the listing's fields joined back once per spell). On a
 * generated warehouse, the new model must hold exactly the rows the former SQL computes, in a full
 * build and after an incremental one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ObservationRow, type StreamEventRow, Warehouse } from '../../src/warehouse/index.js';
import { parseModel, renderModelSql } from '../../src/warehouse/models/index.js';
import { generateWarehouse, planWarehouse } from '../bench/warehouse-generator.js';
import { landMinute } from '../bench/warehouse-minute.js';
import { goneEvent, makeTempDir, newEvent, observation } from './fixtures.js';

const COLUMNS =
  'app_id, listing_id, spell, stay, after_departure, started_at, last_seen_at, ended_at, market_hash_name, wear, ' +
  'doppler_phase, float_value, paint_seed, stickers, category, rarity, listed_at, ask_usd, changed_at, changed_from, updated_at';
const MINUTE_MS = 60_000;

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = makeTempDir());
});
afterEach(() => cleanup());

/** Rows in one of the two results and not in the other (as many times as they differ). */
async function differences(warehouse: Warehouse): Promise<number> {
  const before = parseModel(
    'int_listing_spells_before',
    readFileSync(join(import.meta.dirname, 'fixtures', 'int_listing_spells.before.sql'), 'utf8'),
  );
  const former = `SELECT ${COLUMNS} FROM (${renderModelSql(before, null, '2100-01-01 00:00:00')})`;
  const current = `SELECT ${COLUMNS} FROM int_listing_spells`;
  const [row] = await warehouse.query(
    `SELECT count(*) AS n FROM ((${former} EXCEPT ALL ${current}) UNION ALL (${current} EXCEPT ALL ${former}))`,
  );
  return Number(row?.n);
}

/**
 * Lands, through the real landing code, what the generator does not make: for 300 listings a sighting
 * at another ask (a new spell), for some a later sighting at the same ask with another paint seed
 * (the spell takes its last sighting's fields), a departure and a return (a new stay), a sweep's
 * sighting in the same millisecond as a stream event.
 */
async function reprice(warehouse: Warehouse, at: number): Promise<void> {
  const ids = (
    await warehouse.query('SELECT DISTINCT listing_id FROM listing_events ORDER BY listing_id LIMIT 300')
  ).map((r) => String(r.listing_id));
  const events: StreamEventRow[] = [];
  const observations: ObservationRow[] = [];
  ids.forEach((id, i) => {
    events.push(newEvent(`rp-${i}-a`, id, at + i, { price_usd: 1000 + i }));
    if (i % 7 === 0)
      events.push(newEvent(`rp-${i}-s`, id, at + 30_000 + i, { price_usd: 1000 + i, paint_seed: i }));
    if (i % 3 === 0) {
      events.push(goneEvent(`rp-${i}-b`, id, at + 60_000 + i));
      events.push(newEvent(`rp-${i}-c`, id, at + 120_000 + i, { price_usd: 2000 + i }));
    }
    if (i % 5 === 0)
      observations.push(observation(id, at + 120_000 + i, `w-${i}`, { price_usd: 2000 + i }, 'sweep'));
  });
  await warehouse.write([{ source: 'stream', events }]);
  await warehouse.write([{ source: 'sweep:730', observations }]);
}

describe('int_listing_spells', () => {
  it('holds exactly the rows of the former SQL, built in full and then incrementally', async () => {
    const endMs = Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS - 10 * MINUTE_MS;
    const clock = { now: endMs + 1000 };
    const warehouse = await Warehouse.open(join(dir, 'wh.duckdb'), { clock: () => clock.now });
    try {
      const plan = planWarehouse({ events: 40_000, days: 2, groups: 60, endMs });
      await generateWarehouse(warehouse, plan, dir);
      await reprice(warehouse, plan.endUs / 1000 - 3_600_000);
      await warehouse.refreshModels({ select: ['int_listing_spells'] });
      const [spells] = await warehouse.query(
        'SELECT count(*) AS n, max(spell) AS spells, max(stay) AS stays, count(ended_at) AS ended FROM int_listing_spells',
      );
      expect(Number(spells?.n)).toBeGreaterThan(10_000);
      expect(Number(spells?.spells)).toBeGreaterThan(2);
      expect(Number(spells?.stays)).toBeGreaterThan(1);
      expect(Number(spells?.ended)).toBeGreaterThan(1000);
      expect(await differences(warehouse)).toBe(0);

      await landMinute(warehouse, plan, clock, plan.endUs, dir);
      clock.now = endMs + MINUTE_MS + 2000;
      const refresh = await warehouse.refreshModels({ select: ['int_listing_spells'] });
      expect(refresh.models.find((m) => m.model === 'int_listing_spells')?.mode).toBe('incremental');
      expect(await differences(warehouse)).toBe(0);
    } finally {
      await warehouse.close();
    }
  });
});
