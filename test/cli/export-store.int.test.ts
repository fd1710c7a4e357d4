/**
 * The exports and the lake as one parquet store, through the real `market` command: an export of
 * days already in the lake copies them into its own folder (readable with the lake gone), and a
 * manifest that does not parse, the export's or the lake's, stops the command with its name
 * instead of being taken as empty.
 */
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifestSchema } from '../../src/warehouse/export/index.js';
import { Warehouse } from '../../src/warehouse/index.js';
import { runMarket } from '../helpers/cli.js';
import { landFx, writeModelsDir } from '../helpers/export-models.js';
import { makeTempDir } from '../warehouse/fixtures.js';

const DAYS = ['2026-11-01', '2026-11-02', '2026-11-03'];

let dir: string;
let cleanup: () => void;
let path: string;
let modelsDir: string;
/** Rows of `stg_fx__rates` per day, read from the warehouse before any day moved. */
let perDay: Record<string, number>;

/** Rows per day of a model's export folder, read by a DuckDB of its own (an outside reader). */
async function readExport(to: string, model: string): Promise<Record<string, number>> {
  const instance = await DuckDBInstance.create(':memory:');
  try {
    const connection = await instance.connect();
    const reader = await connection.runAndReadAll(
      `SELECT CAST(date AS VARCHAR) AS day, count(*) AS n
       FROM read_parquet('${to}/${model}/*/*.parquet', hive_partitioning = true) GROUP BY ALL ORDER BY day`,
    );
    return Object.fromEntries(reader.getRowsJS().map(([day, n]) => [String(day), Number(n)]));
  } finally {
    instance.closeSync();
  }
}

/** Every file under `folder`, relative, sorted. */
function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' }).sort();
}

beforeAll(async () => {
  ({ dir, cleanup } = makeTempDir());
  modelsDir = writeModelsDir(dir);
  path = join(dir, 'w.duckdb');
  // Each update lands on its own day (the landing time is the warehouse clock's), so days move.
  const clock = { now: Date.parse(`${DAYS[0]}T00:00:00Z`) };
  const warehouse = await Warehouse.open(path, { modelsDir, clock: () => clock.now });
  try {
    let seed = 0;
    for (const day of DAYS)
      for (const hour of ['06', '18']) {
        clock.now = Date.parse(`${day}T${hour}:00:01Z`);
        await landFx(warehouse, `${day}T${hour}:00:00.000Z`, ++seed);
      }
    await warehouse.refreshModels();
    const rows = await warehouse.query(
      'SELECT CAST(CAST(updated_at AS DATE) AS VARCHAR) AS day, count(*) AS n FROM stg_fx__rates GROUP BY ALL',
    );
    perDay = Object.fromEntries(rows.map((r) => [String(r.day), Number(r.n)]));
    const moved = await warehouse.moveToLake(Date.parse(`${DAYS[2]}T00:00:00Z`));
    expect(moved.relations.raw_fx_rates?.files).toBe(2);
  } finally {
    await warehouse.close();
  }
}, 120_000);
afterAll(() => cleanup());

describe('market export of days already in the lake', () => {
  it('copies them into the export folder, which outside readers read without the lake', async () => {
    const to = join(dir, 'exports');
    const result = await runMarket(['export', '--warehouse', path, '--to', to, '--models-dir', modelsDir]);
    expect(result.code, result.stderr).toBe(0);
    const manifest = manifestSchema.parse(JSON.parse(readFileSync(join(to, 'manifest.json'), 'utf8')));
    const files = manifest.models.stg_fx__rates?.files ?? [];
    expect(files.map((f) => f.date)).toEqual(DAYS);
    // Every file the manifest lists is inside the export folder: none is a reference into the lake.
    for (const file of files) {
      expect(resolve(to, file.path).startsWith(`${resolve(to)}${sep}`)).toBe(true);
      expect(existsSync(join(to, file.path))).toBe(true);
    }
    // No temp file is left beside what the writer moved into place.
    expect(filesUnder(to).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    renameSync(join(dir, 'lake'), join(dir, 'lake-away'));
    try {
      expect(await readExport(to, 'stg_fx__rates')).toEqual(perDay);
    } finally {
      renameSync(join(dir, 'lake-away'), join(dir, 'lake'));
    }
  });
});

describe('a manifest that does not parse', () => {
  it('stops an export with its name, and the export folder is left as it was', async () => {
    const to = join(dir, 'broken-exports');
    const first = await runMarket(['export', '--warehouse', path, '--to', to, '--models-dir', modelsDir]);
    expect(first.code, first.stderr).toBe(0);
    const before = filesUnder(to);
    for (const text of ['{"format": 1, "models": ', '{"format": 2, "updated_at": "x", "models": {}}']) {
      writeFileSync(join(to, 'manifest.json'), text);
      const again = await runMarket(['export', '--warehouse', path, '--to', to, '--models-dir', modelsDir]);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain(`cannot read the manifest ${join(to, 'manifest.json')}: `);
      expect(again.stderr).toMatch(text.startsWith('{"format": 2') ? /: format: / : /: not JSON/);
      expect(readFileSync(join(to, 'manifest.json'), 'utf8')).toBe(text);
      expect(filesUnder(to)).toEqual(before);
    }
  });

  it("stops a lake move with the lake manifest's name, and moves nothing", async () => {
    const manifest = join(dir, 'lake', 'manifest.json');
    const kept = readFileSync(manifest, 'utf8');
    writeFileSync(manifest, kept.slice(0, 40));
    try {
      const result = await runMarket([
        'lake',
        'move',
        '--warehouse',
        path,
        '--before',
        `${DAYS[2]}T12:00:00Z`,
      ]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`cannot read the manifest ${manifest}: not JSON`);
      expect(readFileSync(manifest, 'utf8')).toBe(kept.slice(0, 40));
      expect(readdirSync(join(dir, 'lake', 'raw_fx_rates'))).toEqual([`date=${DAYS[0]}`, `date=${DAYS[1]}`]);
    } finally {
      writeFileSync(manifest, kept);
    }
  });
});
