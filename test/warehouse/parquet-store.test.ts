/**
 * The parquet store's writer on real files and a real DuckDB: a file is replaced whole or left as
 * it was, nothing is left beside it, and a manifest is read strictly.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  copyToParquet,
  ManifestUnreadableError,
  readManifestFile,
  writeManifestFile,
} from '../../src/warehouse/parquet-store/index.js';
import { makeTempDir } from './fixtures.js';

let dir: string;
let cleanup: () => void;
let instance: DuckDBInstance;
let connection: DuckDBConnection;

/** Runs a COPY and returns the rows it wrote, as the lake's runner does. */
const run = async (statement: string) =>
  Number((await connection.runAndReadAll(statement)).getRows()[0]?.[0] ?? 0);

beforeAll(async () => {
  ({ dir, cleanup } = makeTempDir());
  instance = await DuckDBInstance.create(':memory:');
  connection = await instance.connect();
});
afterAll(() => {
  instance.closeSync();
  cleanup();
});

describe('copyToParquet', () => {
  it('writes the rows into the target and leaves no temp file beside it', async () => {
    const target = join(dir, 'copy', 'date=2026-11-01', 'part-0.parquet');
    const written = await copyToParquet(run, 'SELECT range AS n FROM range(5)', target);
    expect(written.rows).toBe(5);
    expect(written.bytes).toBeGreaterThan(0);
    expect(readdirSync(join(dir, 'copy', 'date=2026-11-01'))).toEqual(['part-0.parquet']);
    const back = await connection.runAndReadAll(`SELECT sum(n) FROM read_parquet('${target}')`);
    expect(Number(back.getRows()[0]?.[0])).toBe(10);
  });

  it('leaves the former file whole when the COPY fails, and removes its temp file', async () => {
    const target = join(dir, 'fail', 'part-0.parquet');
    await copyToParquet(run, 'SELECT 1 AS n', target);
    const before = readFileSync(target);
    await expect(copyToParquet(run, "SELECT CAST('x' AS INTEGER) AS n", target)).rejects.toThrow(
      /Conversion/,
    );
    expect(readFileSync(target)).toEqual(before);
    expect(readdirSync(join(dir, 'fail'))).toEqual(['part-0.parquet']);
  });
});

describe('readManifestFile', () => {
  const schema = z.object({ format: z.literal(1), files: z.array(z.string()) });

  it('reads none as null, and what it wrote as written', async () => {
    const file = join(dir, 'manifests', 'manifest.json');
    expect(await readManifestFile(file, schema)).toBeNull();
    await writeManifestFile(file, { format: 1, files: ['a/date=2026-11-01/part-0.parquet'] });
    expect(await readManifestFile(file, schema)).toEqual({
      format: 1,
      files: ['a/date=2026-11-01/part-0.parquet'],
    });
    expect(readdirSync(join(dir, 'manifests'))).toEqual(['manifest.json']);
  });

  it('throws naming the file and the fault for text that is not JSON or not the shape', async () => {
    mkdirSync(join(dir, 'bad'), { recursive: true });
    const file = join(dir, 'bad', 'manifest.json');
    writeFileSync(file, '{"format": 1, "fil');
    const notJson = readManifestFile(file, schema);
    await expect(notJson).rejects.toBeInstanceOf(ManifestUnreadableError);
    await expect(notJson).rejects.toThrow(`cannot read the manifest ${file}: not JSON`);
    writeFileSync(file, '{"format": 1, "files": [3]}');
    await expect(readManifestFile(file, schema)).rejects.toThrow(
      `cannot read the manifest ${file}: files.0: `,
    );
  });
});
