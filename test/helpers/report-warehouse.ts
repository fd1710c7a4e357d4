/**
 * A warehouse for report tests: a few days of CS2 trading generated in DuckDB the way the models
 * benchmark makes its month (stream events, sightings, minute snapshots, minAsk lists, FX rates,
 * the live set with floats and stickers), with the models built. Its clock stands just after the data.
 */
import { join } from 'node:path';
import { Warehouse } from '../../src/warehouse/index.js';
import { generateWarehouse, planWarehouse } from '../bench/warehouse-generator.js';

const MINUTE_MS = 60_000;

/** Opens a new warehouse at `dir`/warehouse.duckdb holding `days` of generated data, models built. */
export async function openReportWarehouse(
  dir: string,
  options: { events?: number; days?: number; groups?: number } = {},
): Promise<Warehouse> {
  const endMs = Math.floor(Date.parse('2026-11-20T12:00:00.000Z') / MINUTE_MS) * MINUTE_MS;
  const clock = { now: endMs + 1000 };
  const warehouse = await Warehouse.open(join(dir, 'warehouse.duckdb'), { clock: () => clock.now });
  try {
    const plan = planWarehouse({
      events: options.events ?? 30_000,
      days: options.days ?? 3,
      groups: options.groups ?? 80,
      endMs,
    });
    await generateWarehouse(warehouse, plan, dir);
    await warehouse.refreshModels();
    return warehouse;
  } catch (error) {
    await warehouse.close();
    throw error;
  }
}
