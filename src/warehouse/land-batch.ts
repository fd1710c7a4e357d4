/** Lands one batch inside the write's transaction: every registered field in order, then its `loads` row. */
import { randomUUID } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { LoadSummary, WarehouseBatch } from './batch.js';
import { ALL_LANDERS } from './landers.js';
import { type LandingContext, msToTimestamp, run } from './sql.js';

/**
 * Lands the fields of `batch` in registry order on `connection` (inside the open transaction) and
 * records the batch in `loads` with the rows it landed.
 */
export async function landBatch(
  connection: DuckDBConnection,
  stagingDir: string,
  batch: WarehouseBatch,
  now: number,
): Promise<LoadSummary> {
  const tables: Record<string, number> = {};
  const context: LandingContext = {
    connection,
    stagingDir,
    loadId: randomUUID(),
    source: batch.source,
    now,
    count: (table, rows) => {
      tables[table] = (tables[table] ?? 0) + rows;
    },
  };
  for (const lander of ALL_LANDERS) {
    const value = batch[lander.field];
    if (value !== undefined) await lander.land(context, value);
  }
  const rows = Object.values(tables).reduce((sum, n) => sum + n, 0);
  await landLoad(context, rows);
  return { loadId: context.loadId, source: batch.source, rows, tables };
}

/** Records the batch in `loads` with the number of rows it changed. */
async function landLoad(context: LandingContext, rows: number): Promise<void> {
  await run(
    context,
    `INSERT INTO loads (load_id, source, started_at, rows) VALUES ($load, $source, ${msToTimestamp('$now')}, $rows)`,
    { load: context.loadId, source: context.source, now: context.now, rows },
  );
}
