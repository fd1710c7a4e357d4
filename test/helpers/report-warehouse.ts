/**
 * A warehouse for report tests: a few days (or minutes) of CS2 trading generated in DuckDB the way
 * the models benchmark makes its month (stream events, sightings, minute snapshots, minAsk lists,
 * FX rates, the live set with floats and stickers), with the models built. Its clock stands just
 * after the data.
 */
import { join } from 'node:path';
import { Warehouse } from '../../src/warehouse/index.js';
import { GENERATED_TABLES, generateWarehouse, planWarehouse } from '../bench/warehouse-generator.js';

const MINUTE_MS = 60_000;

/** The generated data ends here: the test clock stands a second later. */
export const REPORT_DATA_END_MS = Math.floor(Date.parse('2026-11-20T12:00:00.000Z') / MINUTE_MS) * MINUTE_MS;

/** What {@link openReportWarehouse} generates. */
export interface ReportWarehouseOptions {
  /** Listing events, about. @default 30_000 */
  events?: number;
  /** Days of data, a fraction for minutes of it. @default 3 */
  days?: number;
  /** CS2 item groups. @default 80 */
  groups?: number;
  /** A span in which the collector was down: everything landed in it is removed before the models run. */
  uncollected?: { fromMs: number; toMs: number };
  /** Lands more (e.g. the account's history) before the models run. */
  landMore?: (warehouse: Warehouse) => Promise<unknown>;
}

/** Opens a new warehouse at `dir`/warehouse.duckdb holding `days` of generated data, models built. */
export async function openReportWarehouse(
  dir: string,
  options: ReportWarehouseOptions = {},
): Promise<Warehouse> {
  const endMs = REPORT_DATA_END_MS;
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
    if (options.uncollected) await removeLoads(warehouse, options.uncollected);
    await options.landMore?.(warehouse);
    await warehouse.refreshModels();
    return warehouse;
  } catch (error) {
    await warehouse.close();
    throw error;
  }
}

/** Removes every load that started in the span, and every row it landed: as if nothing was collected then. */
async function removeLoads(warehouse: Warehouse, span: { fromMs: number; toMs: number }): Promise<void> {
  const within = `started_at >= make_timestamp(${span.fromMs * 1000}) AND started_at < make_timestamp(${span.toMs * 1000})`;
  await warehouse.withConnection(async (connection) => {
    for (const table of GENERATED_TABLES.filter((t) => t !== 'loads'))
      await connection.run(
        `DELETE FROM ${table} WHERE load_id IN (SELECT load_id FROM loads WHERE ${within})`,
      );
    await connection.run(`DELETE FROM loads WHERE ${within}`);
  });
}
