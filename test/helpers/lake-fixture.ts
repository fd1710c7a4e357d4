/**
 * A lake written from a warehouse file in the lake's fixed layout, for tests that read a lake: the
 * same folders, files and manifest the lake's move writes, made with DuckDB `COPY`. It copies and
 * leaves the file as it was; tests read only what a lake reader reads (the manifest and its files).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { sqlString } from '../../src/warehouse/export/copy-days.js';

/** One parquet file of a relation, as the manifest lists it. */
export interface LakeFile {
  /** Relative to the lake, with `/`: `<relation>/date=YYYY-MM-DD/part-<n>.parquet`. */
  path: string;
  date: string;
  rows: number;
  bytes: number;
}

/** `<lake>/manifest.json`. */
export interface LakeManifest {
  format: 1;
  relations: Record<string, LakeFile[]>;
  moves: { id: string; before: string; at: string }[];
}

/** The model tables a lake holds, each with the column of its rows' event time. */
const MODEL_TIMES: Record<string, string> = {
  stg_listing_events: 'received_at',
  fct_minask_history: 'minute',
};

/** The column of a raw landing table's landing time. */
const LANDED_AT = 'ingested_at';

/**
 * Writes every row of `warehouseFile` landed before `before` into `lakeDir`: per raw landing table
 * (by `ingested_at`) and per model table of {@link MODEL_TIMES} (by its event time), one zstd
 * parquet file per UTC day under `<relation>/date=YYYY-MM-DD/part-0.parquet`, the day only in the
 * path; then `manifest.json`, last, renamed into place. Returns the manifest.
 */
export async function makeLake(
  warehouseFile: string,
  lakeDir: string,
  before: string,
): Promise<LakeManifest> {
  const beforeMs = Date.parse(before);
  if (Number.isNaN(beforeMs)) throw new Error(`before must be an ISO 8601 time, not "${before}"`);
  const instance = await DuckDBInstance.create(warehouseFile, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    const raw = await connection.runAndReadAll(
      "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_name LIKE 'raw\\_%' ESCAPE '\\' ORDER BY 1",
    );
    const relations: [string, string][] = [
      ...raw.getRows().map(([name]): [string, string] => [String(name), LANDED_AT]),
      ...Object.entries(MODEL_TIMES),
    ];
    const manifest: LakeManifest = {
      format: 1,
      relations: {},
      moves: [{ id: randomUUID(), before, at: new Date().toISOString() }],
    };
    for (const [relation, time] of relations) {
      const within = `"${time}" < make_timestamp(${beforeMs * 1000})`;
      const days = await connection.runAndReadAll(
        `SELECT CAST(CAST("${time}" AS DATE) AS VARCHAR) AS day, count(*) AS n FROM "${relation}"
         WHERE ${within} GROUP BY day ORDER BY day`,
      );
      const files: LakeFile[] = [];
      for (const [day, rows] of days.getRows()) {
        const path = `${relation}/date=${day}/part-0.parquet`;
        await mkdir(join(lakeDir, relation, `date=${day}`), { recursive: true });
        await connection.run(
          `COPY (SELECT * FROM "${relation}" WHERE ${within} AND CAST("${time}" AS DATE) = DATE '${day}')
           TO ${sqlString(join(lakeDir, path))} (FORMAT parquet, COMPRESSION zstd)`,
        );
        files.push({
          path,
          date: String(day),
          rows: Number(rows),
          bytes: (await stat(join(lakeDir, path))).size,
        });
      }
      manifest.relations[relation] = files;
    }
    await writeManifest(lakeDir, manifest);
    return manifest;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** Writes the manifest beside its final name, then renames it over `<lake>/manifest.json`. */
async function writeManifest(lakeDir: string, manifest: LakeManifest): Promise<void> {
  const aside = join(lakeDir, `.manifest-${process.pid}.json`);
  await writeFile(aside, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(aside, join(lakeDir, 'manifest.json')).catch(async (error: unknown) => {
    await rm(aside, { force: true });
    throw error;
  });
}
