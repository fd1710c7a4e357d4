/** Lands a batch's bookkeeping: its ingest gaps, its source's state markers and its `loads` row. */
import type { GapRow } from './batch.js';
import { type LandingContext, msToTimestamp, run, unnestJson } from './sql.js';

const GAP_STRUCTURE = {
  o: 'BIGINT',
  g: 'VARCHAR',
  k: 'VARCHAR',
  s: 'DOUBLE',
  e: 'DOUBLE',
  n: 'BIGINT',
  d: 'VARCHAR',
};

/**
 * Lands `gaps` in `ingest_gaps`. A gap is identified by source, kind and start
 * (`gap_id` = `source:kind:startISO`): sending it again updates its end, rows and detail, so a gap
 * can be opened with `endedAt: null` and closed later; an identical replay changes nothing.
 */
export async function landGaps(context: LandingContext, gaps: readonly GapRow[]): Promise<void> {
  if (gaps.length === 0) return;
  const rows = gaps.map((g, i) => ({
    o: i,
    g: `${context.source}:${g.kind}:${new Date(g.startedAt).toISOString()}`,
    k: g.kind,
    s: g.startedAt,
    e: g.endedAt,
    n: g.rows,
    d: g.detail,
  }));
  const landed = await run(
    context,
    `INSERT INTO ingest_gaps (gap_id, source, kind, started_at, ended_at, rows, detail, load_id, ingested_at)
     SELECT r.g, $source, r.k, ${msToTimestamp('r.s')}, ${msToTimestamp('r.e')}, r.n, r.d, $load, ${msToTimestamp('$now')}
     FROM ${unnestJson('rows', GAP_STRUCTURE)}
     QUALIFY row_number() OVER (PARTITION BY r.g ORDER BY r.o DESC) = 1
     ON CONFLICT (gap_id) DO UPDATE SET
       ended_at = excluded.ended_at, rows = excluded.rows, detail = excluded.detail,
       load_id = excluded.load_id, ingested_at = excluded.ingested_at
     WHERE ingest_gaps.ended_at IS DISTINCT FROM excluded.ended_at
        OR ingest_gaps.rows <> excluded.rows OR ingest_gaps.detail <> excluded.detail`,
    { rows: JSON.stringify(rows), source: context.source, load: context.loadId, now: context.now },
  );
  context.count('ingest_gaps', landed);
}

/** Upserts the source's progress markers in `collector_state`, by key. */
export async function landState(
  context: LandingContext,
  state: Readonly<Record<string, string>>,
): Promise<void> {
  const rows = Object.entries(state).map(([k, v]) => ({ k, v }));
  if (rows.length === 0) return;
  await run(
    context,
    `INSERT INTO collector_state (source, key, value, updated_at)
     SELECT $source, r.k, r.v, ${msToTimestamp('$now')} FROM ${unnestJson('rows', { k: 'VARCHAR', v: 'VARCHAR' })}
     ON CONFLICT (source, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    { rows: JSON.stringify(rows), source: context.source, now: context.now },
  );
}

/** Records the batch in `loads` with the number of rows it changed. */
export async function landLoad(context: LandingContext, rows: number): Promise<void> {
  await run(
    context,
    `INSERT INTO loads (load_id, source, started_at, rows) VALUES ($load, $source, ${msToTimestamp('$now')}, $rows)`,
    { load: context.loadId, source: context.source, now: context.now, rows },
  );
}
