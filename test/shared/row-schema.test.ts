/** Row schemas over what DuckDB really hands back: BIGINTs as numbers, JSON columns parsed, a wrong shape named. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Database } from '../../src/shared/database.js';
import { bigintColumn, jsonColumn, parseRow, parseRows } from '../../src/shared/row-schema.js';

const rowSchema = z.object({
  id: z.string(),
  seq: bigintColumn,
  app_id: z.number(),
  at_ms: bigintColumn.nullable(),
  tags: jsonColumn<string[]>(),
  note: z.string().nullable(),
});

describe('row schemas', () => {
  let db: Database;
  beforeEach(async () => {
    db = await Database.open(':memory:');
    await db.run(
      `CREATE TABLE t (id VARCHAR, seq BIGINT, app_id INTEGER, seen_at TIMESTAMP, tags VARCHAR, note VARCHAR)`,
    );
    await db.run(`INSERT INTO t VALUES ('a', 9007199254740991, 730, TIMESTAMP '2026-01-02 03:04:05.678', '["x","y"]', NULL),
                                       ('b', 2, 570, NULL, '[]', 'hello')`);
  });
  afterEach(() => db.close());

  const read = () =>
    db.all('SELECT id, seq, app_id, epoch_ms(seen_at) AS at_ms, tags, note FROM t ORDER BY id');

  it('parses BIGINT and epoch_ms columns to numbers, INTEGERs as they are, and JSON columns once', async () => {
    expect(parseRows(rowSchema, await read(), 't')).toEqual([
      {
        id: 'a',
        seq: 9007199254740991,
        app_id: 730,
        at_ms: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
        tags: ['x', 'y'],
        note: null,
      },
      { id: 'b', seq: 2, app_id: 570, at_ms: null, tags: [], note: 'hello' },
    ]);
  });

  it('refuses a row whose column comes back in another shape, naming the table and the column', async () => {
    const [row] = await db.all(
      "SELECT id, CAST(seq AS INTEGER) AS seq, app_id, NULL AS at_ms, tags, note FROM t WHERE id = 'b'",
    );
    expect(() => parseRow(rowSchema, row, 't')).toThrow(
      /a row of t does not have the stored shape[\s\S]*seq/,
    );
  });
});
