/**
 * The listing's shape in the warehouse, derived from the contract's zod schema (`listingSchema`):
 * its typed columns, their DuckDB types, and the lenient typing of a listing's JSON text. Nothing
 * else spells the listing's fields: a field added to the schema becomes a column everywhere.
 */
import type { z } from 'zod';
import { listingSchema } from '../../contract/listing.js';

/** How a JSON value is read into its column. */
type JsonKind = 'string' | 'number' | 'integer' | 'money' | 'boolean' | 'timestamp' | 'stickers';

/** One typed field of a listing (or of another payload typed the same way, see {@link fieldsOf}). */
export interface ListingField {
  name: string;
  /** The column's DuckDB type. */
  sqlType: string;
  kind: JsonKind;
  /** Null is a value the contract allows. */
  nullable: boolean;
}

/** A zod schema's internals, as far as this file reads them. */
interface ZodInternals {
  _zod: { def: { type: string; innerType?: unknown; format?: string; element?: unknown; shape?: unknown } };
  format?: string | null;
}

function unwrap(schema: unknown): { inner: ZodInternals; nullable: boolean; optional: boolean } {
  let inner = schema as ZodInternals;
  let nullable = false;
  let optional = false;
  for (;;) {
    const { type, innerType } = inner._zod.def;
    if (type === 'nullable') nullable = true;
    else if (type === 'optional') optional = true;
    else return { inner, nullable, optional };
    inner = innerType as ZodInternals;
  }
}

/** The DuckDB type of a scalar schema; money is a number whose name ends in `_usd` (DECIMAL cents). */
function scalarOf(name: string, schema: ZodInternals): { kind: JsonKind; sqlType: string } {
  const { type, format } = schema._zod.def;
  if (type === 'boolean') return { kind: 'boolean', sqlType: 'BOOLEAN' };
  if (type === 'number') {
    if (name.endsWith('_usd')) return { kind: 'money', sqlType: 'DECIMAL(18,2)' };
    return schema.format === 'safeint'
      ? { kind: 'integer', sqlType: 'INTEGER' }
      : { kind: 'number', sqlType: 'DOUBLE' };
  }
  if (type === 'string' && format === 'datetime') return { kind: 'timestamp', sqlType: 'TIMESTAMP' };
  if (type === 'string' || type === 'enum') return { kind: 'string', sqlType: 'VARCHAR' };
  throw new Error(`the listing field ${name} has a zod type (${type}) the warehouse cannot type`);
}

/** The DuckDB type of an object schema's fields, as a STRUCT. */
function structOf(schema: ZodInternals): string {
  const shape = schema._zod.def.shape as Record<string, unknown>;
  const fields = Object.entries(shape).map(
    ([name, field]) => `${name} ${scalarOf(name, unwrap(field).inner).sqlType}`,
  );
  return `STRUCT(${fields.join(', ')})`;
}

function fieldOf(name: string, schema: unknown): ListingField {
  const { inner, nullable } = unwrap(schema);
  if (inner._zod.def.type === 'array') {
    const element = unwrap(inner._zod.def.element).inner;
    return { name, kind: 'stickers', sqlType: `${structOf(element)}[]`, nullable };
  }
  return { name, ...scalarOf(name, inner), nullable };
}

/**
 * The typed fields of a contract object schema, in schema order: every key it requires but those
 * in `except` (keys the envelope carries). Optional keys stay in `extra_fields`.
 */
export function fieldsOf(schema: z.ZodObject, except: readonly string[] = []): ListingField[] {
  return Object.entries(schema.shape as Record<string, z.ZodType>)
    .filter(([name, field]) => !except.includes(name) && !unwrap(field).optional)
    .map(([name, field]) => fieldOf(name, field));
}

const shape = listingSchema.shape as Record<string, z.ZodType>;

/**
 * The listing's typed columns after `listing_id`, in schema order: every key the contract
 * requires but `id`. Optional (additive) keys stay in `extra_fields`, as do keys the contract does
 * not know yet.
 */
export const LISTING_FIELDS: readonly ListingField[] = fieldsOf(listingSchema, ['id']);

/** Every key the contract names, typed or not: a key outside these is a new field. */
export const LISTING_KEYS: readonly string[] = Object.keys(shape);

/** The listing's column names (after `listing_id`), in table order. */
export const LISTING_COLUMNS: readonly string[] = LISTING_FIELDS.map((f) => f.name);

/** The SQL type of a Listing as a STRUCT, timestamps kept as ISO text (for staged observations). */
export const LISTING_TYPE = `STRUCT(id VARCHAR, ${LISTING_FIELDS.map(
  (f) => `${f.name} ${f.kind === 'timestamp' ? 'VARCHAR' : f.sqlType}`,
).join(', ')})`;

/** JSON paths of the listing's fields, in {@link LISTING_FIELDS} order, as a SQL list for `json_type`. */
export const LISTING_PATHS = `[${LISTING_FIELDS.map((f) => `'$.${f.name}'`).join(', ')}]`;

/**
 * A SQL condition that a listing types cleanly, given `types`: the JSON type of each of its fields
 * (`json_type` of {@link LISTING_PATHS}, null when missing) from position `from` of that list on:
 * every field is there with a JSON type its column takes (null only where the contract allows).
 * It judges by JSON types alone: a string that is not a timestamp passes here and is noted by
 * {@link typedListingColumns}.
 */
export function typesCleanly(types: string, from = 1): string {
  return LISTING_FIELDS.map((f, i) => {
    const accepted = [...ACCEPTED[f.kind], ...(f.nullable ? ['NULL'] : [])].map((t) => `'${t}'`).join(', ');
    return `coalesce(${types}[${from + i}] IN (${accepted}), false)`;
  }).join(' AND ');
}

/** The listing's column names, comma-separated, optionally prefixed (`prefix.column`). */
export function listingColumnList(prefix?: string): string {
  return LISTING_COLUMNS.map((c) => (prefix ? `${prefix}.${c}` : c)).join(', ');
}

/** The JSON types (`json_type`) a field's value may have. */
export const ACCEPTED: Record<JsonKind, string[]> = {
  string: ['VARCHAR'],
  number: ['DOUBLE', 'UBIGINT', 'BIGINT'],
  integer: ['UBIGINT', 'BIGINT'],
  money: ['DOUBLE', 'UBIGINT', 'BIGINT'],
  boolean: ['BOOLEAN'],
  timestamp: ['VARCHAR'],
  stickers: ['ARRAY'],
};

/** What a field's JSON value should be, for the typing notes. */
const EXPECTED: Record<JsonKind, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  money: 'a number',
  boolean: 'a boolean',
  timestamp: 'an ISO 8601 timestamp',
  stickers: 'an array of stickers',
};

/** The typed value of `field` read from `v` (its JSON value, or null), null when it does not cast. */
export function typedValue(field: ListingField, v: string): string {
  const accepted = ACCEPTED[field.kind].map((t) => `'${t}'`).join(', ');
  const when = `json_type(${v}) IN (${accepted})`;
  switch (field.kind) {
    case 'string':
      return `CASE WHEN ${when} THEN ${v} ->> '$' END`;
    case 'timestamp':
      return `CASE WHEN ${when} THEN try_cast(${v} ->> '$' AS TIMESTAMPTZ) AT TIME ZONE 'UTC' END`;
    case 'stickers':
      return `CASE WHEN ${when} THEN try(from_json(${v}, '${stickerStructure(field)}')) END`;
    default:
      return `CASE WHEN ${when} THEN try_cast(${v} ->> '$' AS ${field.sqlType}) END`;
  }
}

/** The JSON structure of the stickers' STRUCT list, for `from_json`. */
function stickerStructure(field: ListingField): string {
  const inner = /^STRUCT\((.*)\)\[\]$/.exec(field.sqlType)?.[1] ?? '';
  const members = Object.fromEntries(inner.split(', ').map((m) => m.split(' ') as [string, string]));
  return JSON.stringify([members]);
}

/**
 * SELECT items typing a listing leniently from `j`, a STRUCT of its values as JSON (see
 * {@link listingValues}), and `keys`, the list of its keys: one column per field (null when the
 * key is missing or its value does not cast) and `typing_notes`, a list of {field, reason} for
 * every field that is missing, or present with a value the contract does not allow.
 */
export function typedListingColumns(j: string, keys: string): string {
  return typedColumns(LISTING_FIELDS, j, keys);
}

/** {@link typedListingColumns} for any fields (see {@link fieldsOf}), `j` from {@link jsonValues}. */
export function typedColumns(fields: readonly ListingField[], j: string, keys: string): string {
  const columns = fields.map((f) => `${typedValue(f, `${j}.${f.name}`)} AS ${f.name}`);
  const notes = fields.map((f) => {
    const v = `${j}.${f.name}`;
    const required = f.nullable
      ? ''
      : `WHEN ${v} IS NULL THEN {'field': '${f.name}', 'reason': 'null where the contract requires a value'}`;
    return `CASE WHEN NOT list_contains(${keys}, '${f.name}') THEN {'field': '${f.name}', 'reason': 'missing'}
      WHEN ${v} IS NOT NULL AND (${typedValue(f, v)}) IS NULL
        THEN {'field': '${f.name}', 'reason': 'expected ${EXPECTED[f.kind]}, got ' || json_type(${v})}
      ${required} END`;
  });
  return `${columns.join(',\n')},\nlist_filter([${notes.join(',\n')}], n -> n IS NOT NULL) AS typing_notes`;
}

/** A STRUCT of every contract key's value as JSON (null when missing or JSON null), from the text `data`. */
export function listingValues(data: string): string {
  return jsonValues(['id', ...LISTING_COLUMNS], data);
}

/** A STRUCT of the values of `names` as JSON (null when missing or JSON null), from the JSON text `data`. */
export function jsonValues(names: readonly string[], data: string): string {
  const structure = JSON.stringify(Object.fromEntries(names.map((k) => [k, 'JSON'])));
  return `from_json(${data}, '${structure}')`;
}

/** A JSON object of the keys of `data` (its JSON text, with key list `keys`) that no column types, or null. */
export function extraFields(data: string, keys: string): string {
  return extraKeys(['id', ...LISTING_COLUMNS], data, keys);
}

/** A JSON object of the keys of `data` (its JSON text, with key list `keys`) outside `known`, or null. */
export function extraKeys(known: readonly string[], data: string, keys: string): string {
  const typed = known.map((k) => `'${k}'`).join(', ');
  const extra = `list_filter(${keys}, k -> k NOT IN (${typed}))`;
  return `CASE WHEN len(${extra}) > 0 THEN to_json(map_from_entries(list_transform(${extra}, k -> (k, json_extract(${data}, '$."' || k || '"'))))) END`;
}
