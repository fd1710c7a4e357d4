/**
 * The README's lake example, as written, with Python's duckdb and polars: on a young lake (a first
 * move that reached no whole day, so `stg_listing_events` has no file) each line runs and prints
 * nothing; on a lake holding days it answers what the warehouse answers. An engine that is not
 * installed skips and says so (`pip install duckdb polars`).
 */
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectPath } from '../../../src/shared/project-root.js';
import { Warehouse } from '../../../src/warehouse/index.js';
import { makeTempDir, T0 } from '../fixtures.js';
import { DAY, landDays } from './lake-fixture.js';

const run = promisify(execFile);

/** The README's Python block that reads the lake, line by line. */
function readmeLakeLines(): string[] {
  const readme = readFileSync(projectPath('README.md'), 'utf8');
  const start = readme.indexOf('```python\nimport json; m = json.load(open("lake/manifest.json"))');
  if (start < 0) throw new Error('the README has no Python block reading lake/manifest.json');
  const body = readme.slice(start + '```python\n'.length);
  return body.slice(0, body.indexOf('```')).trimEnd().split('\n');
}

/** Why `module` cannot be imported by python3, or null when it can. */
function missing(module: string): string | null {
  try {
    execFileSync('python3', ['-c', `import ${module}`], { stdio: 'ignore' });
    return null;
  } catch {
    return `python3 cannot import ${module} (pip install ${module}): its line of the README is not run`;
  }
}

const LINES = readmeLakeLines();
const ENGINES = [
  // DuckDB prints the day's lowest price; polars the day's rows, counted in its `shape: (rows, columns)`.
  {
    module: 'duckdb',
    line: LINES.find((l) => l.includes('import duckdb')),
    shows: () => [WANT.day, WANT.minPrice],
  },
  {
    module: 'polars',
    line: LINES.find((l) => l.includes('import polars')),
    shows: () => [WANT.day, `shape: (${WANT.rows}, `],
  },
].map((engine) => ({ ...engine, skipped: missing(engine.module) }));
for (const { skipped } of ENGINES) if (skipped) console.warn(`readme-lake: ${skipped}`);

let dir: string;
let cleanup: () => void;
/** Folders holding a `lake/`: after a first move of hours only, and after one of two whole days. */
const where = { young: '', grown: '' };
/** The warehouse's own answer for 2026-11-02 (the days the examples filter on). */
const WANT = { day: '2026-11-02', rows: 0, minPrice: '' };

beforeAll(async () => {
  ({ dir, cleanup } = makeTempDir());
  const clock = { now: T0 };
  const warehouse = await Warehouse.open(join(dir, 'w.duckdb'), { clock: () => clock.now });
  try {
    await landDays(warehouse, clock, dir, 3);
    // Models move whole days only: a bound within the first day moves none of stg_listing_events.
    await warehouse.moveToLake(T0 + 6 * 3_600_000);
    where.young = join(dir, 'young');
    cpSync(join(dir, 'lake'), join(where.young, 'lake'), { recursive: true });
    await warehouse.moveToLake(T0 + 2 * DAY + 3_600_000);
    where.grown = dir;
    const [row] = await warehouse.query(
      `SELECT count(*) AS n, min(price_usd)::VARCHAR AS min_price FROM stg_listing_events
       WHERE received_at >= TIMESTAMP '2026-11-02' AND received_at < TIMESTAMP '2026-11-03'`,
    );
    WANT.rows = Number(row?.n);
    WANT.minPrice = String(row?.min_price);
  } finally {
    await warehouse.close();
  }
}, 120_000);
afterAll(() => cleanup?.());

/** Runs the README's first line and `line` in `cwd`, as one Python script; its stdout. */
async function runExample(line: string, cwd: string): Promise<string> {
  const script = `${LINES[0]}\n${line}\n`;
  const { stdout } = await run('python3', ['-c', script], { cwd, timeout: 60_000 });
  return stdout;
}

describe.each(ENGINES)('the README lake example with $module', ({ line, shows, skipped }) => {
  it.skipIf(skipped !== null)('runs on a young lake, where the relation has no file yet', async () => {
    expect(line).toBeDefined();
    expect(await runExample(line ?? '', where.young)).toBe('');
  });

  it.skipIf(skipped !== null)('answers as the warehouse on a lake holding days', async () => {
    expect(WANT.rows).toBeGreaterThan(0);
    const stdout = await runExample(line ?? '', where.grown);
    for (const text of shows()) expect(stdout).toContain(text);
  });
});
