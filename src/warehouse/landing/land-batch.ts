/**
 * Lands one batch inside the write's transaction: every registered field in order, then its `loads`
 * row and, when it landed rows, its mark in `live_set_pending`.
 */
import { randomUUID } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { LoadSummary, WarehouseBatch } from './batch.js';
import { ALL_LANDERS } from './landers.js';
import { type LandingContext, msToTimestamp, run } from './sql.js';

/**
 * Lands the fields of `batch` in registry order on `connection` (inside the open transaction) and
 * records the batch in `loads` with the rows it landed (and, unless `liveSet` is false for a file
 * of a layout before the live set's state, marks it pending there).
 */
export async function landBatch(
  connection: DuckDBConnection,
  stagingDir: string,
  batch: WarehouseBatch,
  now: number,
  liveSet = true,
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
  await landLoad(context, rows, batch);
  if (rows > 0 && liveSet) await markPending(context);
  return { loadId: context.loadId, source: batch.source, rows, tables };
}

/** Marks the batch's rows as not yet in the live set's state (see `live-set.ts`). */
async function markPending(context: LandingContext): Promise<void> {
  await run(
    context,
    `INSERT INTO live_set_pending (load_id, ingested_at) VALUES ($load, ${msToTimestamp('$now')})`,
    { load: context.loadId, now: context.now },
  );
}

/**
 * Records the batch in `loads` with the number of rows it changed, the upstream's clock offset and
 * the account it belongs to (each named only when known: a file of a layout before migrations 013
 * and 014 has no column for them).
 */
async function landLoad(context: LandingContext, rows: number, batch: WarehouseBatch): Promise<void> {
  const params: Record<string, string | number> = {
    load: context.loadId,
    source: context.source,
    now: context.now,
    rows,
  };
  const columns = ['load_id', 'source', 'started_at', 'rows'];
  const values = ['$load', '$source', msToTimestamp('$now'), '$rows'];
  if (batch.upstreamOffsetMs != null) {
    columns.push('upstream_offset_ms');
    values.push('$offset::BIGINT');
    params.offset = batch.upstreamOffsetMs;
  }
  if (batch.accountId !== undefined) {
    columns.push('account_id');
    values.push('$account');
    params.account = batch.accountId;
  }
  await run(context, `INSERT INTO loads (${columns.join(', ')}) VALUES (${values.join(', ')})`, params);
}
