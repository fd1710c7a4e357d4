/**
 * How landed prices are typed: snapshot lines and minAsk rows are each a PriceRow's JSON, an FX
 * answer is one JSON object per fetch typed as a row per currency. The views that apply these
 * are `sql/warehouse/views/{price_snapshots,minask_prices,fx_rates}_typed.sql`.
 */
import { priceRowSchema } from '../../contract/market.js';
import { fieldsOf, type ListingField } from './listing-shape.js';
import type { PayloadTyping } from './typed-payloads.js';

/** Every key of a PriceRow: a key outside these is a new field. */
export const PRICE_ROW_KEYS: readonly string[] = Object.keys(priceRowSchema.shape);

/** A price row is typed field by field; without a market_hash_name it names no group and is rejected. */
export const PRICE_ROW: PayloadTyping = {
  fields: fieldsOf(priceRowSchema),
  known: PRICE_ROW_KEYS,
  id: "CASE WHEN json_type(r.data, '$.market_hash_name') = 'VARCHAR' THEN r.data ->> '$.market_hash_name' END",
  idName: 'market_hash_name',
};

/** Every key of GET /currency's answer: a key outside these is a new field. */
export const FX_KEYS: readonly string[] = ['base', 'rates', 'updated_at'];

/** The typed fields of an FX row: a rate of `rates` (a number), and the answer's `base` and `updated_at`. */
export const FX_FIELDS: readonly ListingField[] = [
  { name: 'rate', sqlType: 'DOUBLE', kind: 'number', nullable: false },
  { name: 'base', sqlType: 'VARCHAR', kind: 'string', nullable: false },
  { name: 'updated_at', sqlType: 'TIMESTAMP', kind: 'timestamp', nullable: false },
];

/** Why an FX answer `data` cannot be typed at all, or null: it must be a JSON object whose `rates` is one. */
export function fxRejection(data = 'r.data'): string {
  return `CASE WHEN NOT json_valid(${data}) THEN 'not valid JSON'
    WHEN json_type(${data}) <> 'OBJECT' THEN 'not a JSON object'
    WHEN json_type(${data}, '$.rates') IS DISTINCT FROM 'OBJECT' THEN 'no rates object' END`;
}
