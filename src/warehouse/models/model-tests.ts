/**
 * Model tests in dbt's sense: each `-- test:` line of a model compiles to a query that returns the
 * offending rows, and passes when it returns none.
 *
 * - `unique(a, b)`: no two rows share (a, b)
 * - `not_null(a, b)`: no null in a nor in b
 * - `accepted_values(col: 'x', 'y')`: col is null or one of the values
 * - `relationships(a, b -> other)`: every (a, b) without a null has a row of `other` with the same values
 * - `expression(<condition>)`: every row satisfies the SQL condition
 * - `row_count(<op> <SQL scalar>)`: the row count compares so, e.g. `row_count(= SELECT count(*) FROM x)`
 * - `typing_errors(<= 1%)`: of the rows typed from what landed (a model with `typing_notes`) and the
 *   payloads rejected (`rejected_payloads`), at most that share was typed with a note or rejected;
 *   `typing_errors(warn)` reports any as a warning, which does not fail the run; `, source: 'a',
 *   'b'` after either counts only the rejected payloads of those sources (the model's own)
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { jsonSafeConverter } from '../json-values.js';
import type { Model } from './model.js';

/** One compiled test. */
export interface ModelTest {
  model: string;
  /** The test as written in the model, e.g. `unique(listing_id)`. */
  name: string;
  /** Returns the failing rows. */
  sql: string;
  /** Failing rows are a warning: reported, but the tests still pass. */
  warn?: boolean;
  /**
   * Runs only when tests are asked for, never with a build, though it reads landing data: it
   * reports a share of what landed, not a comparison with the data the model was built from.
   */
  onDemand?: boolean;
}

/** Outcome of one test. */
export interface ModelTestResult {
  model: string;
  name: string;
  /** How many rows failed. */
  failures: number;
  /** Up to 5 failing rows, to say what is wrong. */
  sample: Record<string, unknown>[];
  /** Set when the test's query could not run (also a failure). */
  error?: string;
  /** The test reports a warning rather than a failure (see `typing_errors(warn)`). */
  warn?: boolean;
  /**
   * Set when the test ran with the model's last build, inside its transaction (it reads data that
   * moves on after a build): the newest load that build read, e.g. `2026-11-07 13:00:01.112`.
   */
  builtFrom?: string;
}

/** Compiles the tests of `model`; throws naming the line when one cannot be read. */
export function compileTests(model: Model): ModelTest[] {
  return model.tests.flatMap((line) => {
    const match = /^([a-z_]+)\(([\s\S]*)\)$/.exec(line.trim());
    if (!match) throw new Error(`model ${model.name}: cannot read test "${line}"`);
    const [, kind, args = ''] = match;
    const m = model.name;
    const columns = () =>
      args
        .split(',')
        .map((c) => c.trim())
        .filter(Boolean);
    switch (kind) {
      case 'unique': {
        const list = columns().join(', ');
        return [
          {
            model: m,
            name: line,
            sql: `SELECT ${list}, count(*) AS duplicates FROM ${m} GROUP BY ${list} HAVING count(*) > 1`,
          },
        ];
      }
      case 'not_null':
        return columns().map((c) => ({
          model: m,
          name: `not_null(${c})`,
          sql: `SELECT * FROM ${m} WHERE ${c} IS NULL`,
        }));
      case 'accepted_values': {
        const [column, values] = splitOnce(args, ':', model, line);
        return [
          {
            model: m,
            name: line,
            sql: `SELECT ${column}, count(*) AS n FROM ${m} WHERE ${column} IS NOT NULL AND ${column} NOT IN (${values}) GROUP BY ${column}`,
          },
        ];
      }
      case 'relationships': {
        const [list, other] = splitOnce(args, '->', model, line);
        const cols = list.split(',').map((c) => c.trim());
        const same = cols.map((c) => `p.${c} = c.${c}`).join(' AND ');
        const present = cols.map((c) => `c.${c} IS NOT NULL`).join(' AND ');
        return [
          {
            model: m,
            name: line,
            sql: `SELECT DISTINCT ${cols.map((c) => `c.${c}`).join(', ')} FROM ${m} AS c WHERE ${present} AND NOT EXISTS (SELECT 1 FROM ${other} AS p WHERE ${same})`,
          },
        ];
      }
      case 'expression':
        return [{ model: m, name: line, sql: `SELECT * FROM ${m} WHERE NOT coalesce((${args}), false)` }];
      case 'row_count': {
        const op = /^\s*(=|<>|!=|>=|<=|>|<)\s*([\s\S]+)$/.exec(args);
        if (!op) throw new Error(`model ${m}: row_count needs an operator and a value in "${line}"`);
        const value = /^\s*select\b/i.test(op[2] ?? '') ? `(${op[2]})` : op[2];
        return [
          {
            model: m,
            name: line,
            sql: `SELECT rows, expected FROM (SELECT (SELECT count(*) FROM ${m}) AS rows, ${value} AS expected) WHERE NOT (rows ${op[1]} expected)`,
          },
        ];
      }
      case 'typing_errors':
        return [typingErrors(m, line, args)];
      default:
        throw new Error(`model ${m}: unknown test ${kind} in "${line}"`);
    }
  });
}

/** `typing_errors(warn)` or `typing_errors(<= N%)`, then maybe `, source: 'a', …`: see the file's comment. */
function typingErrors(m: string, line: string, args: string): ModelTest {
  const parsed = /^\s*(warn|<=\s*(\d+(?:\.\d+)?)\s*%)\s*(?:,\s*source:\s*(\S[\s\S]*?))?\s*$/.exec(args);
  if (!parsed)
    throw new Error(
      `model ${m}: typing_errors takes "warn" or a share such as "<= 1%", then maybe ", source: 'stream'", not "${line}"`,
    );
  const [, bound, share, sources] = parsed;
  const warn = bound === 'warn';
  const over = warn ? '' : ` AND (partly_typed + rejected) * 100.0 > ${share} * (rows + rejected)`;
  // Filtered by source, DuckDB reads only the branches of rejected_payloads that can match.
  const ofSources = sources === undefined ? '' : ` WHERE source IN (${sources})`;
  return {
    model: m,
    name: line,
    sql: `SELECT partly_typed, rejected, rows FROM (
            SELECT count(*) FILTER (WHERE len(typing_notes) > 0) AS partly_typed,
                   (SELECT count(*) FROM rejected_payloads${ofSources}) AS rejected, count(*) AS rows
            FROM ${m})
          WHERE partly_typed + rejected > 0${over}`,
    onDemand: true,
    ...(warn ? { warn } : {}),
  };
}

/** Runs one compiled test on `connection`: its failing rows counted, and up to 5 of them kept. */
export async function runTest(connection: DuckDBConnection, test: ModelTest): Promise<ModelTestResult> {
  try {
    const count = await connection.runAndReadAll(`SELECT count(*) AS n FROM (${test.sql})`);
    const failures = Number(count.getRows()[0]?.[0] ?? 0);
    const sample =
      failures > 0
        ? (await connection.runAndReadAll(`${test.sql} LIMIT 5`)).convertRowObjects(jsonSafeConverter)
        : [];
    return {
      model: test.model,
      name: test.name,
      failures,
      sample: sample as Record<string, unknown>[],
      ...(test.warn ? { warn: true } : {}),
    };
  } catch (error) {
    return { model: test.model, name: test.name, failures: 1, sample: [], error: (error as Error).message };
  }
}

function splitOnce(args: string, separator: string, model: Model, line: string): [string, string] {
  const at = args.indexOf(separator);
  if (at < 0) throw new Error(`model ${model.name}: "${line}" needs "${separator}"`);
  return [args.slice(0, at).trim(), args.slice(at + separator.length).trim()];
}
