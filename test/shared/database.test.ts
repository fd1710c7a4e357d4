import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/shared/database.js';
import { readAppliedMigrations } from '../../src/shared/migrations.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'shared-db-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A migrations folder holding `files` (name → SQL). */
function migrations(files: Record<string, string>): string {
  const folder = join(dir, 'sql');
  mkdirSync(folder, { recursive: true });
  for (const [name, sql] of Object.entries(files)) writeFileSync(join(folder, name), sql);
  return folder;
}

describe('Database.open', () => {
  it('applies the NNN_name.sql migrations in order, once, and records them', async () => {
    const folder = migrations({
      '002_more.sql': 'INSERT INTO t VALUES (2)',
      '001_table.sql': 'CREATE TABLE t (n INTEGER)',
      'notes.sql': 'SELECT nonsense',
    });
    const path = join(dir, 'nested', 'a.duckdb');
    const first = await Database.open(path, folder);
    expect(await readAppliedMigrations(first.connection)).toEqual(['001_table.sql', '002_more.sql']);
    await first.close();
    const again = await Database.open(path, { migrationsDir: folder });
    expect(await again.read('SELECT n FROM t')).toEqual([{ n: 2 }]);
    await again.close();
  });

  it('rolls a failed migration back and names its file', async () => {
    const folder = migrations({
      '001_table.sql': 'CREATE TABLE t (n INTEGER)',
      '002_bad.sql': 'INSERT INTO t VALUES (1); INSERT INTO nowhere VALUES (1)',
    });
    const path = join(dir, 'a.duckdb');
    await expect(Database.open(path, folder)).rejects.toThrow(/migration 002_bad\.sql failed/);
    const db = await Database.open(path);
    expect(await db.read('SELECT count(*)::INTEGER AS n FROM t')).toEqual([{ n: 0 }]);
    expect(await readAppliedMigrations(db.connection)).toEqual(['001_table.sql']);
    await db.close();
  });

  it('refuses a read-only open of a file that lacks migrations', async () => {
    const path = join(dir, 'a.duckdb');
    await (await Database.open(path, migrations({ '001_table.sql': 'CREATE TABLE t (n INTEGER)' }))).close();
    writeFileSync(join(dir, 'sql', '002_more.sql'), 'CREATE TABLE u (n INTEGER)');
    await expect(Database.open(path, { migrationsDir: join(dir, 'sql'), readOnly: true })).rejects.toThrow(
      /lacks migrations 002_more\.sql/,
    );
  });

  it('passes the memory limit, threads, other settings and session statements to DuckDB', async () => {
    const db = await Database.open(':memory:', {
      memoryLimit: '300MB',
      threads: 1,
      config: { preserve_insertion_order: 'false' },
      sessionSql: ["SET TimeZone = 'UTC'"],
    });
    const [row] = await db.read(
      `SELECT current_setting('memory_limit') AS memory, current_setting('threads')::INTEGER AS threads,
              current_setting('preserve_insertion_order') AS ordered, current_setting('TimeZone') AS zone`,
    );
    expect(row).toEqual({ memory: '286.1 MiB', threads: 1, ordered: false, zone: 'UTC' });
    await db.close();
  });
});

describe('Database.transaction', () => {
  it('runs writes one at a time and rolls a failed one back', async () => {
    const db = await Database.open(':memory:');
    await db.run('CREATE TABLE t (n INTEGER)');
    const order: string[] = [];
    let askedSecond = () => {};
    const secondAsked = new Promise<void>((resolve) => (askedSecond = resolve));
    // The first holds its transaction open until the second has been asked for.
    const slow = db.transaction(async (tx) => {
      await secondAsked;
      await tx.run('INSERT INTO t VALUES (1)');
      order.push('slow');
    });
    const failing = db.transaction(async (tx) => {
      order.push('failing');
      await tx.run('INSERT INTO t VALUES (2)');
      throw new Error('boom');
    });
    askedSecond();
    await slow;
    await expect(failing).rejects.toThrow('boom');
    expect(order).toEqual(['slow', 'failing']);
    expect(await db.read('SELECT n FROM t')).toEqual([{ n: 1 }]);
    await db.close();
  });

  it('throws the original error when ROLLBACK fails too, with the rollback failure as its cause', async () => {
    const reported: unknown[] = [];
    const db = await Database.open(':memory:', { onRollbackError: (rollback) => reported.push(rollback) });
    await db.run('CREATE TABLE t (n INTEGER)');
    const error = await db
      .transaction(async (tx) => {
        // Ends the transaction early, so the ROLLBACK after the error finds none to roll back.
        await tx.run('ROLLBACK');
        throw new Error('original');
      })
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe('original');
    expect(((error as Error).cause as Error).message).toMatch(/no transaction is active/i);
    expect(reported).toEqual([(error as Error).cause]);
    await db.transaction((tx) => tx.run('INSERT INTO t VALUES (1)'));
    expect(await db.read('SELECT n FROM t')).toEqual([{ n: 1 }]);
    await db.close();
  });

  it('waits for the writes and borrowed connections in progress before closing', async () => {
    const db = await Database.open(':memory:');
    let done = false;
    let closeCalled = () => {};
    const closing = new Promise<void>((resolve) => (closeCalled = resolve));
    // The borrowed connection is still in use when close is called.
    const borrowed = db.withConnection(async (connection) => {
      await closing;
      await connection.run('SELECT 1');
      done = true;
    });
    const closed = db.close();
    closeCalled();
    await closed;
    await borrowed;
    expect(done).toBe(true);
  });
});
