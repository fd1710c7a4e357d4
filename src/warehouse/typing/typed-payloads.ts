/**
 * The lenient typing of a landed payload that is one JSON object (a price row, a ledger row, an
 * account object), in SQL: a column per typed field (null, with a note, when missing or not cast),
 * the keys the contract does not name in `extra_fields`, and a rejection reason for a payload that
 * cannot be typed at all. The view files name these pieces (see `view-files.ts`).
 */
import type { ListingField } from './listing-shape.js';

/** How one kind of raw payload is typed. */
export interface PayloadTyping {
  /** The typed fields, in column order (see `fieldsOf`). */
  fields: readonly ListingField[];
  /** Every key the contract names: a key outside them is kept in `extra_fields`. */
  known: readonly string[];
  /** A SQL expression over the raw row `r` naming the payload, null when it names none. */
  id: string;
  /** What the payload fails to name when `id` is null, for the rejection reason. */
  idName: string;
}

/** A SQL expression of why the raw row `r`'s `data` cannot be typed at all, or null when it can. */
export function payloadRejection(typing: PayloadTyping, data = 'r.data'): string {
  return `CASE WHEN ${data} IS NULL THEN 'no data, or not UTF-8'
    WHEN NOT json_valid(${data}) THEN 'not valid JSON'
    WHEN json_type(${data}) <> 'OBJECT' THEN 'not a JSON object'
    WHEN (${typing.id}) IS NULL THEN 'no ${typing.idName}' END`;
}
