/** Small SQL models over `fx_rates` for export tests, and FX rows to land for them. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Warehouse } from '../../src/warehouse/index.js';

/** The test models: file name → text. */
export const EXPORT_TEST_MODELS: Record<string, string> = {
  'stg_fx__rates.sql': [
    '-- Every FX rate as landed.',
    '-- materialized: view',
    '-- export: CAST(updated_at AS DATE)',
    'SELECT currency, rate, updated_at, fetched_at FROM fx_rates',
  ].join('\n'),
  'fct_fx_daily.sql': [
    '-- Per currency and day: the mean rate and the number of updates.',
    '-- materialized: table',
    '-- depends_on: stg_fx__rates',
    '-- export: day',
    'SELECT currency, CAST(updated_at AS DATE) AS day, avg(rate) AS mean_rate, count(*) AS updates',
    'FROM stg_fx__rates GROUP BY ALL',
  ].join('\n'),
  'dim_currencies.sql': [
    '-- Every currency with its latest rate.',
    '-- materialized: table',
    '-- depends_on: stg_fx__rates',
    '-- export: snapshot',
    'SELECT currency, arg_max(rate, updated_at) AS rate, max(updated_at) AS updated_at',
    'FROM stg_fx__rates GROUP BY currency',
  ].join('\n'),
  'int_fx_loads.sql': [
    '-- How many FX rows each load landed (not exported).',
    '-- materialized: view',
    'SELECT load_id, count(*) AS n FROM fx_rates GROUP BY load_id',
  ].join('\n'),
};

/** The exported test models, sorted by name. */
export const EXPORTED_TEST_MODELS = ['dim_currencies', 'fct_fx_daily', 'stg_fx__rates'];

/** Writes `models` (default: the test models) into `dir/models` and returns that folder. */
export function writeModelsDir(dir: string, models: Record<string, string> = EXPORT_TEST_MODELS): string {
  const modelsDir = join(dir, 'models');
  mkdirSync(modelsDir, { recursive: true });
  for (const [file, text] of Object.entries(models)) writeFileSync(join(modelsDir, file), text);
  return modelsDir;
}

/** Lands one FX update at `iso` (UTC) with rates of EUR, GBP and JPY derived from `seed`. */
export async function landFx(warehouse: Warehouse, iso: string, seed = 1): Promise<void> {
  const at = Date.parse(iso);
  await warehouse.write([
    {
      source: 'fx',
      fx: {
        updatedAt: at,
        fetchedAt: at + 1000,
        rates: { EUR: 0.9 + seed / 1000, GBP: 0.78 + seed / 1000, JPY: 150 + seed },
      },
    },
  ]);
}

/** Lands two FX updates on each of 2026-11-01, 11-02 and 11-03. */
export async function landThreeDays(warehouse: Warehouse): Promise<void> {
  let seed = 0;
  for (const day of ['2026-11-01', '2026-11-02', '2026-11-03'])
    for (const hour of ['06', '18']) await landFx(warehouse, `${day}T${hour}:00:00.000Z`, ++seed);
}
