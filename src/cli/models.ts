/**
 * `market models run|test`: builds the SQL models, or runs their tests. While a collector runs on
 * the warehouse the work goes through it (DuckDB lets one process open the file); otherwise the
 * file is opened here (read-write to build, read-only to test).
 */
import type { ModelsRequest } from '../collector/control/protocol.js';
import { CliError } from './cli-error.js';
import { parseFlags } from './flags.js';
import { openWarehouse } from './open-warehouse.js';
import { modelsRunFlags, modelsTestFlags } from './options.js';
import { printRows, rowsOf } from './sql-output.js';

/** Builds the models (all, or the selected ones with what they depend on) and prints each build. */
export async function modelsRun(flags: Record<string, unknown>): Promise<void> {
  const config = parseFlags(modelsRunFlags, flags);
  const summary = await (await openWarehouse(config, config.modelsDir)).runModels(requestOf(config));
  const rows = summary.models.map((m) => ({
    model: m.model,
    materialized: m.materialized,
    built: m.mode,
    rows: m.rows,
    ms: Math.round(m.durationMs),
  }));
  await printRows(rowsOf(rows), 'table', process.stdout);
  process.stdout.write(`built ${summary.models.length} models in ${Math.round(summary.durationMs)} ms\n`);
}

/** Runs the model tests and prints each outcome; exits 1 when any fails. */
export async function modelsTest(flags: Record<string, unknown>): Promise<void> {
  const config = parseFlags(modelsTestFlags, flags);
  const results = await (await openWarehouse(config)).testModels(requestOf(config));
  for (const r of results) {
    const verdict = r.failures === 0 ? 'PASS' : `${r.warn ? 'WARN' : 'FAIL'} ${r.failures}`;
    // A test that runs with each build compares the model with the data of that build.
    const when = r.builtFrom ? ` (with the build of the data landed up to ${r.builtFrom})` : '';
    process.stdout.write(`${verdict.padEnd(10)} ${r.model}: ${r.name}${when}\n`);
    if (r.error) process.stdout.write(`           ${r.error}\n`);
    for (const row of r.sample) process.stdout.write(`           ${JSON.stringify(row)}\n`);
  }
  const failed = results.filter((r) => r.failures > 0 && !r.warn).length;
  const warned = results.filter((r) => r.failures > 0 && r.warn).length;
  process.stdout.write(
    `${results.length - failed - warned} passed, ${failed} failed${warned ? `, ${warned} warned` : ''}\n`,
  );
  if (failed > 0) throw new CliError(`${failed} model test(s) failed`, 1);
}

/** The request of the selected models (all with none). */
function requestOf(config: {
  select?: string[] | undefined;
  fullRefresh?: boolean | undefined;
}): ModelsRequest {
  const select = config.select ?? [];
  return { ...(select.length ? { select } : {}), ...(config.fullRefresh ? { fullRefresh: true } : {}) };
}
