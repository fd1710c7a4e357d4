/**
 * The typed views' SQL files (`sql/warehouse/views/<view>.sql`), rendered with what the contract's
 * zod schemas give: a file writes the view's query and names each derived piece (a payload's typed
 * columns, its JSON values, its extra keys, why it is rejected) as `{{piece(typing, args…)}}`.
 * A view reads the views listed before it in `views.txt`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findSqlDir } from '../../shared/project-root.js';
import {
  extraFields,
  extraKeys,
  jsonValues,
  LISTING_FIELDS,
  type ListingField,
  listingValues,
  typedColumns,
} from './listing-shape.js';
import { ACCOUNT_TYPINGS } from './typed-account.js';
import { rejectionReason } from './typed-events.js';
import { type PayloadTyping, payloadRejection } from './typed-payloads.js';
import { FX_FIELDS, FX_KEYS, fxRejection, PRICE_ROW } from './typed-prices.js';

/** The typings a view file names, by the name it uses. */
const TYPINGS: Record<string, PayloadTyping> = {
  price_row: PRICE_ROW,
  ...ACCOUNT_TYPINGS,
};

function typingOf(name: string): PayloadTyping {
  const typing = TYPINGS[name];
  if (typing === undefined) throw new Error(`a view file names an unknown typing: ${name}`);
  return typing;
}

/** The typed fields of a typing named in a view file (`listing` and `fx` besides {@link TYPINGS}). */
function fieldsNamed(name: string): readonly ListingField[] {
  if (name === 'listing') return LISTING_FIELDS;
  if (name === 'fx') return FX_FIELDS;
  return typingOf(name).fields;
}

/** The pieces a view file may name: each takes the typing's name, then SQL expressions. */
const PIECES: Record<string, (typing: string, ...args: string[]) => string> = {
  /** The typed fields' names, comma-separated. */
  columns: (t) =>
    fieldsNamed(t)
      .map((f) => f.name)
      .join(', '),
  /** A typed null per field (`CAST(NULL AS type) AS name`), for a payload that carries none. */
  null_columns: (t) =>
    fieldsNamed(t)
      .map((f) => `CAST(NULL AS ${f.sqlType}) AS ${f.name}`)
      .join(', '),
  /** The typed columns read from `j` (see json_values) with `keys`, then `typing_notes`. */
  typed_columns: (t, j = 'r.j', keys = 'r.keys') => typedColumns(fieldsNamed(t), j, keys),
  /** A STRUCT of the typed fields' values as JSON, from the text `data`. */
  json_values: (t, data = 'r.data') =>
    t === 'listing'
      ? listingValues(data)
      : jsonValues(
          fieldsNamed(t).map((f) => f.name),
          data,
        ),
  /** A JSON object of the keys of `data` the contract does not type (listing) or name (others), or null. */
  extra_keys: (t, data = 'r.data', keys = 'r.keys') => {
    if (t === 'listing') return extraFields(data, keys);
    return extraKeys(t === 'fx' ? FX_KEYS : typingOf(t).known, data, keys);
  },
  /** Why `data` cannot be typed at all, or null (a listing: also `listing_id` and the event `kind`, `null` for none). */
  rejection: (t, data = 'r.data', listingId = 'r.listing_id', kind = 'r.kind') => {
    if (t === 'listing') return rejectionReason(data, listingId, kind === 'null' ? null : kind);
    if (t === 'fx') return fxRejection(data);
    return payloadRejection(typingOf(t), data);
  },
};

const PIECE = /\{\{\s*(\w+)\((.*?)\)\s*\}\}/g;

/** `template` with every `{{piece(typing, args…)}}` replaced by its SQL. */
export function renderViewSql(template: string): string {
  const sql = template.replace(PIECE, (_, piece: string, args: string) => {
    const render = PIECES[piece];
    if (render === undefined) throw new Error(`a view file names an unknown piece: ${piece}`);
    const [typing = '', ...rest] = args.split(',').map((a) => a.trim());
    return render(typing, ...rest);
  });
  if (sql.includes('{{'))
    throw new Error(
      `a view file holds a piece it does not close: ${sql.slice(sql.indexOf('{{'), sql.indexOf('{{') + 80)}`,
    );
  return sql;
}

/** The folder of the view files. */
export function findViewsDir(): string {
  return findSqlDir(join('warehouse', 'views'));
}

/** The typed views in creation order, each with its rendered query (comment lines kept). */
export function readViewFiles(dir = findViewsDir()): [string, string][] {
  const order = readFileSync(join(dir, 'views.txt'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  return order.map((name) => [name, renderViewSql(readFileSync(join(dir, `${name}.sql`), 'utf8'))]);
}

/** The query of view `name` rendered over `relations` in place of the tables it reads (same columns). */
export function viewSqlOver(name: string, relations: Record<string, string>): string {
  const sql = renderViewSql(readFileSync(join(findViewsDir(), `${name}.sql`), 'utf8'));
  // One pass, so a relation given may itself read the table it stands in for.
  const tables = new RegExp(`\\b(${Object.keys(relations).join('|')})\\b`, 'g');
  return sql.replace(tables, (table: string) => relations[table] ?? table);
}
