/** Lands the CS2 price snapshot: a downloaded file read by DuckDB, or the record of a 304. */

import { PRICE_ROW_COLUMNS } from './land-minask.js';
import { defineLander } from './lander.js';
import { type LandingContext, msToTimestamp, run } from './sql.js';

/** A CS2 price snapshot fetch: a downloaded file of PriceRow lines, or a 304. */
export type SnapshotFetch =
  | {
      status: 'downloaded';
      etag: string;
      generatedAt: number | null;
      fetchedAt: number;
      /** A local `.ndjson.gz` (or `.ndjson`) file of PriceRow lines; keep it until the write has committed. */
      file: string;
    }
  | { status: 'unchanged'; etag: string; fetchedAt: number };

const SNAPSHOT_COLUMNS = `{${Object.entries(PRICE_ROW_COLUMNS)
  .map(([name, type]) => `${name}: '${type}'`)
  .join(', ')}}`;

/** The batch's `snapshot`: one fetch per batch. */
export const snapshotLander = defineLander({
  field: 'snapshot',
  merge: 'once',
  rows: (_: SnapshotFetch) => 1,
  land: landSnapshot,
});

/**
 * Records a snapshot fetch in `snapshot_fetches` (once per ETag and fetch time). A downloaded file
 * is loaded into `price_snapshots` with DuckDB's `read_json` (gzip is read transparently), unless
 * rows of that ETag are already there: the same ETag means the same prices. Without an ETag (`''`)
 * only a replay of the same fetch is skipped.
 */
async function landSnapshot(context: LandingContext, snapshot: SnapshotFetch): Promise<void> {
  let landed = 0;
  if (snapshot.status === 'downloaded') {
    landed = await run(
      context,
      `INSERT INTO price_snapshots
       SELECT $etag, ${msToTimestamp('$generated')}, ${msToTimestamp('$fetched')}, market_hash_name, wear,
              doppler_phase, min_ask_usd, listed_count, $load, ${msToTimestamp('$now')}
       FROM read_json($file, format = 'newline_delimited', columns = ${SNAPSHOT_COLUMNS})
       WHERE NOT EXISTS (
         SELECT 1 FROM price_snapshots
         WHERE etag = $etag AND ($etag <> '' OR fetched_at = ${msToTimestamp('$fetched')})
       )`,
      {
        etag: snapshot.etag,
        generated: snapshot.generatedAt,
        fetched: snapshot.fetchedAt,
        file: snapshot.file,
        load: context.loadId,
        now: context.now,
      },
    );
    context.count('price_snapshots', landed);
  }
  const fetches = await run(
    context,
    `INSERT INTO snapshot_fetches
     SELECT ${msToTimestamp('$fetched')}, $etag, $status, $rows, $load, ${msToTimestamp('$now')}
     WHERE NOT EXISTS (
       SELECT 1 FROM snapshot_fetches WHERE etag = $etag AND fetched_at = ${msToTimestamp('$fetched')}
     )`,
    {
      fetched: snapshot.fetchedAt,
      etag: snapshot.etag,
      status: snapshot.status,
      rows: landed,
      load: context.loadId,
      now: context.now,
    },
  );
  context.count('snapshot_fetches', fetches);
}
