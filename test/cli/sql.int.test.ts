/**
 * `market sql` as a real process on ordinary analyst use: answers of any size stream to the
 * output (table, CSV, JSON) in bounded memory, through a running collector and on the file
 * itself; a reader that stops early (`| head`) ends the command quietly; `--out` writes parquet
 * from the rows received; `--query-timeout` interrupts a query that gives no row, never one whose
 * reader is slow; an answer cut short ends with a line saying so.
 */
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningCollector } from '../../src/collector/daemon.js';
import { openService } from '../../src/service/service.js';
import { Warehouse } from '../../src/warehouse/index.js';
import { runMarket, spawnMarket } from '../helpers/cli.js';
import { startTestCollector } from '../helpers/collector.js';
import { startTestService, type TestService } from '../helpers/service.js';

let dir: string;
let t: TestService;
let collector: RunningCollector;
/** A warehouse a collector holds, and one no process holds. */
const where = { collector: '', direct: '' };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'market-cli-sql-'));
  t = await startTestService({ listings: 100, rateLimits: { read: 1_000_000 } });
  const { key } = await t.account({ balance_usd: 10 });
  collector = await startTestCollector(t, key, { sources: { games: [570], account: false } });
  where.collector = collector.warehouse.path;
  where.direct = join(dir, 'direct.duckdb');
  await (await Warehouse.open(where.direct)).close();
});
afterAll(async () => {
  await collector?.stop();
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

const RANGE = 'SELECT range AS n FROM range(200000)';

describe.each(['collector', 'direct'] as const)('market sql (%s)', (mode) => {
  it.each([
    ['table', (out: string) => out.split('\n').at(-2), '(200000 rows)'],
    ['csv', (out: string) => out.split('\n').length, 200_002],
    ['json', (out: string) => (JSON.parse(out) as { n: number }[]).at(-1), { n: 199_999 }],
  ])('prints 200,000 rows as %s', async (format, read, expected) => {
    const result = await runMarket(['sql', RANGE, '--format', format, '--warehouse', where[mode]]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(read(result.stdout)).toEqual(expected);
  });

  it('ends quietly with exit code 0 when its reader closes the pipe early (| head)', async () => {
    const child = spawnMarket(['sql', RANGE, '--format', 'csv', '--warehouse', where[mode]]);
    let stderr = '';
    child.stderr?.on('data', (d) => {
      stderr += d;
    });
    // Like head: read the first lines, then close the pipe.
    await once(child.stdout as NodeJS.ReadableStream, 'data');
    child.stdout?.destroy();
    const [code] = await once(child, 'exit');
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('interrupts a runaway query after --query-timeout with a clear message', async () => {
    const result = await runMarket([
      'sql',
      'SELECT count(*) FROM range(1000000000000)',
      '--query-timeout',
      '0.5',
      '--warehouse',
      where[mode],
    ]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/^market: the query gave no row for 0.5 s and was interrupted/);
  });

  it('streams for longer than --query-timeout while rows keep coming (a reader pausing)', async () => {
    const query = "SELECT range AS n, repeat('x', 200) AS s FROM range(100000)";
    const child = spawnMarket([
      'sql',
      query,
      '--format',
      'csv',
      '--query-timeout',
      '1',
      '--warehouse',
      where[mode],
    ]);
    const stdout = child.stdout as NodeJS.ReadableStream;
    let lines = 0;
    let stderr = '';
    child.stderr?.on('data', (d) => {
      stderr += d;
    });
    // A reader that stops for three deadlines: the query waits on it, and is not DuckDB's silence.
    await once(stdout, 'readable');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    stdout.on('data', (d: Buffer) => {
      for (const byte of d) if (byte === 10) lines += 1;
    });
    const [code] = await once(child, 'exit');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(lines).toBe(100_001);
  });
});

describe('market sql cut short', () => {
  it.each(['csv', 'json', 'table'])(
    'ends %s with a line saying so when the collector stops mid-answer',
    async (format) => {
      const { key } = await t.account({ balance_usd: 10 });
      const stopping = await startTestCollector(t, key, {
        warehouse: { path: join(dir, `stopping-${format}.duckdb`) },
        sources: { games: [], account: false },
      });
      const query = "SELECT range AS n, repeat('x', 200) AS s FROM range(1000000)";
      const child = spawnMarket(['sql', query, '--format', format, '--warehouse', stopping.warehouse.path]);
      const stdout = child.stdout as NodeJS.ReadableStream;
      let stderr = '';
      child.stderr?.on('data', (d) => {
        stderr += d;
      });
      // The answer has begun, and waits on this reader while the collector stops.
      await once(stdout, 'readable');
      const stopped = stopping.stop();
      let tail = '';
      stdout.on('data', (d: Buffer) => {
        tail = (tail + d.toString()).slice(-1000);
      });
      const [[code]] = await Promise.all([once(child, 'exit'), stopped]);
      expect(code).toBe(1);
      expect(stderr).toMatch(/^market: .*(stopping|closed the connection)/);
      expect(tail).toMatch(
        /\n\(cut short, the rows above are not the whole answer: .*(stopping|closed the connection)[^\n]*\n$/,
      );
    },
  );
});

describe('market sql through a collector, in bounded memory', () => {
  it('streams a million rows of 200 bytes with a 96 MB heap', async () => {
    const query = "SELECT range AS n, repeat('x', 200) AS s FROM range(1000000)";
    const child = spawnMarket(['sql', query, '--format', 'csv', '--warehouse', where.collector], {
      NODE_OPTIONS: '--max-old-space-size=96',
    });
    let bytes = 0;
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => {
      bytes += d.length;
    });
    child.stderr?.on('data', (d) => {
      stderr += d;
    });
    const [code] = await once(child, 'exit');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(bytes).toBeGreaterThan(200_000_000);
  }, 120_000);
});

describe('market sql --out through a collector', () => {
  it('writes the rows it receives to parquet, keeping their types', async () => {
    const out = join(dir, 'typed.parquet');
    const query = `SELECT n, (n * 1.25)::DECIMAL(18,2) AS usd, 'item ' || n AS name,
      TIMESTAMP '2026-11-01 12:00:00.123' + INTERVAL (n) HOUR AS seen_at, [n, n + 1] AS pair,
      {'a': n} AS box, MAP {'k': n} AS map, n % 2 = 0 AS even
      FROM range(3) t(n)`;
    const result = await runMarket(['sql', query, '--out', out, '--warehouse', where.collector]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(`wrote 3 rows to ${out}\n`);
    const instance = await DuckDBInstance.create(':memory:');
    try {
      const connection = await instance.connect();
      const types = await connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${out}')`);
      expect(types.getRowObjectsJS().map((r) => `${r.column_name} ${r.column_type}`)).toEqual([
        'n BIGINT',
        'usd DECIMAL(18,2)',
        'name VARCHAR',
        'seen_at TIMESTAMP',
        'pair BIGINT[]',
        'box STRUCT(a BIGINT)',
        'map JSON',
        'even BOOLEAN',
      ]);
      const rows = await connection.runAndReadAll(
        `SELECT n, usd::VARCHAR, seen_at::VARCHAR, pair[2], box.a FROM read_parquet('${out}') ORDER BY n`,
      );
      expect(rows.getRowsJS()).toEqual([
        [0n, '0.00', '2026-11-01 12:00:00.123', 1n, 0n],
        [1n, '1.25', '2026-11-01 13:00:00.123', 2n, 1n],
        [2n, '2.50', '2026-11-01 14:00:00.123', 3n, 2n],
      ]);
    } finally {
      instance.closeSync();
    }
  });
});

describe('market keys list', () => {
  it('ends quietly with exit code 0 when its reader closes the pipe before it writes', async () => {
    const db = join(dir, 'market.duckdb');
    await (await openService({ dbPath: db, listings: 10 })).close();
    expect((await runMarket(['keys', 'create', '--db', db])).code).toBe(0);
    const child = spawnMarket(['keys', 'list', '--db', db]);
    child.stdout?.destroy();
    let stderr = '';
    child.stderr?.on('data', (d) => {
      stderr += d;
    });
    const [code] = await once(child, 'exit');
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
