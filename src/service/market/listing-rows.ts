/**
 * Listings in the service database: bulk load from NDJSON, small batches from a JSON parameter,
 * and read-back as Listing JSON. One column list serves all three so they cannot drift apart.
 */
import type { Listing } from '../../contract/listing.js';
import type { Database, Tx } from '../../shared/database.js';

/** A listing with its game, as one row of the `listings` table. */
export interface ListingRow {
  appId: number;
  listing: Listing;
}

const COLUMNS: [string, string][] = [
  ['id', 'VARCHAR'],
  ['app_id', 'INTEGER'],
  ['market_hash_name', 'VARCHAR'],
  ['wear', 'VARCHAR'],
  ['doppler_phase', 'VARCHAR'],
  ['float_value', 'DOUBLE'],
  ['paint_seed', 'INTEGER'],
  ['stickers', 'STRUCT(name VARCHAR, image VARCHAR, slot INTEGER, wear DOUBLE)[]'],
  ['price_usd', 'DECIMAL(18,2)'],
  ['category', 'VARCHAR'],
  ['rarity', 'VARCHAR'],
  ['image', 'VARCHAR'],
  ['inspect_link', 'VARCHAR'],
  ['tradable', 'BOOLEAN'],
  ['tradable_at', 'TIMESTAMP'],
  ['delivery', 'VARCHAR'],
  ['refund_percent', 'DOUBLE'],
  ['listed_at', 'TIMESTAMP'],
  ['source', 'VARCHAR'],
  ['api_purchasable', 'BOOLEAN'],
];

const COLUMN_NAMES = COLUMNS.map(([name]) => name).join(', ');

/** The JSON line of one row (what the loaders read). */
export function rowJson(row: ListingRow): string {
  return JSON.stringify({ app_id: row.appId, ...row.listing });
}

/** Loads a file of row JSON lines (gzip or plain) into `listings`, inside the caller's transaction. */
export async function loadListingFile(db: Tx, path: string): Promise<void> {
  const columns = `{${COLUMNS.map(([n, t]) => `'${n}': '${t}'`).join(', ')}}`;
  await db.run(
    `INSERT INTO listings (${COLUMN_NAMES})
     SELECT ${COLUMN_NAMES} FROM read_json($path, format = 'newline_delimited', columns = ${columns})`,
    { path },
  );
}

/** Inserts a small batch of rows, inside the caller's transaction. */
export async function insertListings(db: Tx, rows: readonly ListingRow[]): Promise<void> {
  if (rows.length === 0) return;
  const structure = JSON.stringify(
    Object.fromEntries(
      COLUMNS.map(([n, t]) => [
        n,
        n === 'stickers' ? [{ name: 'VARCHAR', image: 'VARCHAR', slot: 'INTEGER', wear: 'DOUBLE' }] : t,
      ]),
    ),
  );
  await db.runPrepared(
    `INSERT INTO listings (${COLUMN_NAMES})
     SELECT ${COLUMNS.map(([n]) => `r.${n}`).join(', ')}
     FROM (SELECT unnest(from_json($rows::JSON, '[${structure}]')) AS r)`,
    { rows: `[${rows.map(rowJson).join(',')}]` },
  );
}

/** Deletes listings by id, inside the caller's transaction. */
export async function deleteListings(db: Tx, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  // One id (a sale, a churn step) is a point delete on the key, far cheaper than unnesting a list.
  if (ids.length === 1) {
    await db.runPrepared('DELETE FROM listings WHERE id = $id', { id: ids[0] as string });
    return;
  }
  await db.runPrepared(
    `DELETE FROM listings WHERE id IN (SELECT unnest(from_json($ids::JSON, '["VARCHAR"]')))`,
    {
      ids: JSON.stringify(ids),
    },
  );
}

/**
 * Reads every live listing back in one streamed scan, a vector of rows at a time, so that start-up
 * never holds more than one chunk of rows and strings besides what the caller keeps.
 */
export async function* readListings(db: Database): AsyncGenerator<ListingRow> {
  const iso = (column: string) => `strftime(${column}, '%Y-%m-%dT%H:%M:%S.%gZ')`;
  const result = await db.connection.stream(
    `SELECT app_id, json_object(
       'id', id, 'market_hash_name', market_hash_name, 'wear', wear, 'doppler_phase', doppler_phase,
       'float_value', float_value, 'paint_seed', paint_seed, 'stickers', stickers,
       'price_usd', CAST(price_usd AS DOUBLE), 'category', category, 'rarity', rarity, 'image', image,
       'inspect_link', inspect_link, 'tradable', tradable, 'tradable_at', ${iso('tradable_at')},
       'delivery', delivery, 'refund_percent', refund_percent, 'listed_at', ${iso('listed_at')},
       'source', source, 'api_purchasable', api_purchasable
     )::VARCHAR AS j
     FROM listings`,
  );
  for await (const rows of result.yieldRowsJs()) {
    for (const [appId, json] of rows)
      yield { appId: Number(appId), listing: JSON.parse(String(json)) as Listing };
  }
}
