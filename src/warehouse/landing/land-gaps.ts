/** Lands a source's ingest gaps: periods it may have missed data in, upserted by source, kind and start. */
import { defineLander } from './lander.js';
import { type LandingContext, msToTimestamp, run, unnestJson } from './sql.js';

/**
 * A period a source may have missed data in (or recovered it by a catch-up). The same source, kind
 * and start identify a gap: sending it again updates it, e.g. to set `endedAt`.
 */
export interface GapRow {
  /** e.g. `resync`, `watchdog_reconnect`, `reconnect`, `catch_up`, `restart`. */
  kind: string;
  startedAt: number;
  /** Null while the gap is still open. */
  endedAt: number | null;
  rows: number;
  detail: string;
}

/** The batch's `gaps`. */
export const gapsLander = defineLander({
  field: 'gaps',
  merge: 'append',
  rows: (gaps: GapRow[]) => gaps.length,
  land: landGaps,
});

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
async function landGaps(context: LandingContext, gaps: readonly GapRow[]): Promise<void> {
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
