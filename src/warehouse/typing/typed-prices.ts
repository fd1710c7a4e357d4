/**
 * The typing of landed prices, in SQL: snapshot lines and minAsk rows (each a PriceRow's JSON) and
 * FX answers (one JSON object per fetch, a row per currency), as the columns of the former typed
 * tables `price_snapshots`, `minask_prices` and `fx_rates`, with typing notes and extra keys.
 */
import { priceRowSchema } from '../../contract/market.js';
import { extraKeys, fieldsOf, jsonValues, type ListingField, typedColumns } from './listing-shape.js';
import { type PayloadTyping, rejectedPayloadsSql, typedPayloadsSql } from './typed-payloads.js';

/** Every key of a PriceRow: a key outside these is a new field. */
export const PRICE_ROW_KEYS: readonly string[] = Object.keys(priceRowSchema.shape);

/** A price row is typed field by field; without a market_hash_name it names no group and is rejected. */
const PRICE_ROW: PayloadTyping = {
  fields: fieldsOf(priceRowSchema),
  known: PRICE_ROW_KEYS,
  id: "CASE WHEN json_type(r.data, '$.market_hash_name') = 'VARCHAR' THEN r.data ->> '$.market_hash_name' END",
  idName: 'market_hash_name',
};

const PRICE_COLUMNS = PRICE_ROW.fields.map((f) => f.name).join(', ');

/** Columns of price_snapshots, in table order. */
const SNAPSHOT_COLUMNS = `etag, generated_at, fetched_at, ${PRICE_COLUMNS}, load_id, ingested_at`;

/** Columns of minask_prices, in table order. */
const MINASK_COLUMNS = `app_id, fetched_at, generated_at, ${PRICE_COLUMNS}, load_id, ingested_at`;

/** Every snapshot row typed: the landed lines typed leniently. */
export const PRICE_SNAPSHOTS_TYPED = `
  ${typedPayloadsSql(PRICE_ROW, 'raw_price_snapshots', 'r.etag, r.generated_at, r.fetched_at, r.load_id, r.ingested_at')}`;

export const PRICE_SNAPSHOTS = `SELECT ${SNAPSHOT_COLUMNS} FROM price_snapshots_typed`;

/** Every minAsk row typed: the landed rows typed leniently. */
export const MINASK_PRICES_TYPED = `
  ${typedPayloadsSql(PRICE_ROW, 'raw_minask_prices', 'r.app_id, r.fetched_at, r.generated_at, r.load_id, r.ingested_at')}`;

export const MINASK_PRICES = `SELECT ${MINASK_COLUMNS} FROM minask_prices_typed`;

/** Every key of GET /currency's answer: a key outside these is a new field. */
export const FX_KEYS: readonly string[] = ['base', 'rates', 'updated_at'];

/** The typed fields of an FX row: a rate of `rates` (a number), and the answer's `base` and `updated_at`. */
const FX_FIELDS: readonly ListingField[] = [
  { name: 'rate', sqlType: 'DOUBLE', kind: 'number', nullable: false },
  { name: 'base', sqlType: 'VARCHAR', kind: 'string', nullable: false },
  { name: 'updated_at', sqlType: 'TIMESTAMP', kind: 'timestamp', nullable: false },
];

/** Why an FX answer cannot be typed at all, or null: it must be a JSON object whose `rates` is one. */
function fxRejection(data = 'r.data'): string {
  return `CASE WHEN NOT json_valid(${data}) THEN 'not valid JSON'
    WHEN json_type(${data}) <> 'OBJECT' THEN 'not a JSON object'
    WHEN json_type(${data}, '$.rates') IS DISTINCT FROM 'OBJECT' THEN 'no rates object' END`;
}

/** Every FX rate typed: one row per currency of each landed answer. */
export const FX_RATES_TYPED = `
  SELECT r.currency, ${typedColumns(FX_FIELDS, 'r.j', 'r.keys')}, r.fetched_at, r.load_id, r.ingested_at,
         ${extraKeys(FX_KEYS, 'r.data', 'json_keys(r.data)')} AS extra_fields, r.data AS raw
  FROM (
    SELECT r.*, struct_insert(${jsonValues(['base', 'updated_at'], 'r.data')},
             rate := nullif(json_extract(r.data, '$.rates."' || r.currency || '"'), 'null')) AS j,
           list_concat(['rate'], json_keys(r.data)) AS keys
    FROM (SELECT r.*, unnest(json_keys(r.data, '$.rates')) AS currency FROM raw_fx_rates r WHERE (${fxRejection()}) IS NULL) r
  ) r`;

export const FX_RATES =
  'SELECT currency, rate, base, updated_at, fetched_at, load_id, ingested_at FROM fx_rates_typed';

/** The landed prices that cannot be typed at all, with rejected_payloads' columns. */
export const REJECTED_PRICES = `
  ${rejectedPayloadsSql(PRICE_ROW, 'raw_price_snapshots', "'snapshot' AS source, r.etag || ':' || r.line AS event_id, 'price_row' AS kind, r.data AS raw, r.fetched_at AS received_at, r.load_id, r.ingested_at")}
  UNION ALL BY NAME
  ${rejectedPayloadsSql(PRICE_ROW, 'raw_minask_prices', "'prices:' || r.app_id AS source, strftime(r.generated_at, '%Y-%m-%dT%H:%M:%S.%g') || ':' || r.position AS event_id, 'price_row' AS kind, r.data AS raw, r.fetched_at AS received_at, r.load_id, r.ingested_at")}
  UNION ALL BY NAME
  SELECT 'fx' AS source, strftime(r.updated_at, '%Y-%m-%dT%H:%M:%S.%g') AS event_id, 'fx_rates' AS kind, r.data AS raw,
         r.fetched_at AS received_at, r.load_id, r.ingested_at, reason
  FROM (SELECT r.*, ${fxRejection()} AS reason FROM raw_fx_rates r) r
  WHERE reason IS NOT NULL`;
