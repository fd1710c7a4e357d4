/**
 * The rows of `market sql` printed as they arrive, in bounded memory: an aligned table (its widths
 * taken from the first rows), CSV, or a JSON array of objects. Writes wait for the output to drain,
 * so a slow reader holds the query back instead of filling memory. An answer cut short (a deadline,
 * a stop, an error) ends with a line saying so, never with what a whole answer ends with.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { Json } from '@duckdb/node-api';
import type { QueryColumn } from '../collector/control/protocol.js';

/** The rows of a query: its columns, then its rows a batch at a time. */
export interface RowsToPrint {
  columns: readonly QueryColumn[];
  batches: AsyncIterable<Json[][]>;
}

/** The output formats of `market sql`. */
export type SqlFormat = 'table' | 'csv' | 'json';

/** Rows a table's column widths are taken from; later rows are cut to them. */
const TABLE_SAMPLE_ROWS = 1000;
/** The widest a table column gets. */
const MAX_WIDTH = 60;

/**
 * Prints `rows` to `out` in `format`, and returns how many there were. When the rows end early, the
 * output's last line says so (no `(n rows)` footer, no closing `]`), and the error is thrown on.
 */
export async function printRows(rows: RowsToPrint, format: SqlFormat, out: Writable): Promise<number> {
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  const names = rows.columns.map((c) => c.name);
  const batches = noteFailure(rows.batches);
  try {
    if (format === 'csv') return await printCsv(names, batches, write);
    if (format === 'json') return await printJson(names, batches, write);
    return await printTable(names, batches, write);
  } catch (error) {
    if (!batches.failed) throw error;
    const cut = `(cut short, the rows above are not the whole answer: ${(error as Error).message})\n`;
    await write(format === 'json' ? `\n${cut}` : cut).catch(() => undefined);
    throw error;
  }
}

/** `batches`, noting whether reading them failed (rather than writing them). */
function noteFailure(batches: AsyncIterable<Json[][]>): AsyncIterable<Json[][]> & { failed: boolean } {
  const noted = {
    failed: false,
    async *[Symbol.asyncIterator]() {
      const iterator = batches[Symbol.asyncIterator]();
      try {
        for (;;) {
          let next: IteratorResult<Json[][]>;
          try {
            next = await iterator.next();
          } catch (error) {
            noted.failed = true;
            throw error;
          }
          if (next.done) return;
          yield next.value;
        }
      } finally {
        await iterator.return?.();
      }
    },
  };
  return noted;
}

/** Rows already in memory, as objects of the same keys, to print with {@link printRows}. */
export function rowsOf(objects: readonly Record<string, Json>[]): RowsToPrint {
  const names = Object.keys(objects[0] ?? {});
  const batch = objects.map((o) => names.map((n) => o[n] ?? null));
  return {
    columns: names.map((name) => ({ name, type: 'JSON' })),
    batches: (async function* () {
      yield batch;
    })(),
  };
}

type Write = (text: string) => Promise<void>;

function cellText(value: Json | undefined): string {
  return value === null || value === undefined
    ? ''
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value);
}

async function printCsv(names: string[], batches: AsyncIterable<Json[][]>, write: Write): Promise<number> {
  const quote = (v: string) => (/[",\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
  await write(`${names.map(quote).join(',')}\n`);
  let count = 0;
  for await (const batch of batches) {
    count += batch.length;
    await write(batch.map((row) => `${row.map((v) => quote(cellText(v))).join(',')}\n`).join(''));
  }
  return count;
}

async function printJson(names: string[], batches: AsyncIterable<Json[][]>, write: Write): Promise<number> {
  let count = 0;
  for await (const batch of batches) {
    const objects = batch.map((row) => JSON.stringify(Object.fromEntries(names.map((n, i) => [n, row[i]]))));
    await write(`${count === 0 ? '[' : ',\n'}${objects.join(',\n')}`);
    count += batch.length;
  }
  await write(count === 0 ? '[]\n' : ']\n');
  return count;
}

async function printTable(names: string[], batches: AsyncIterable<Json[][]>, write: Write): Promise<number> {
  const iterator = batches[Symbol.asyncIterator]();
  const sample: Json[][] = [];
  let done = false;
  while (sample.length < TABLE_SAMPLE_ROWS) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    sample.push(...next.value);
  }
  const widths = names.map((name, i) =>
    Math.min(
      MAX_WIDTH,
      sample.reduce((w, row) => Math.max(w, cellText(row[i]).length), name.length),
    ),
  );
  const line = (cells: string[]) =>
    `${cells.map((cell, i) => cell.slice(0, widths[i]).padEnd(widths[i] ?? 0)).join(' | ')}\n`;
  const lines = (rows: Json[][]) => rows.map((row) => line(names.map((_, i) => cellText(row[i])))).join('');
  await write(`${line(names)}${widths.map((w) => '-'.repeat(w)).join('-+-')}\n${lines(sample)}`);
  let count = sample.length;
  while (!done) {
    const next = await iterator.next();
    if (next.done) break;
    count += next.value.length;
    await write(lines(next.value));
  }
  await write(`(${count} rows)\n`);
  return count;
}
