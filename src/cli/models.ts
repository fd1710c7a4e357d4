/**
 * `market models run|test`: builds the SQL models, or runs their tests. While a collector runs on
 * the warehouse the work goes through it (DuckDB lets one process open the file); otherwise the
 * file is opened here (read-write to build, read-only to test).
 */

import { z } from 'zod';
import type { ModelsRequest } from '../collector/control-models.js';
import type { ModelRunSummary, ModelTestResult, Warehouse } from '../warehouse/index.js';
import { CliError } from './cli-error.js';
import { list, parseConfig, warehouseFlags } from './config.js';
import { ControlClient } from './control-client.js';
import { printRows, rowsOf } from './sql-output.js';
import { withWarehouse } from './with-warehouse.js';

const modelsConfigSchema = z.object({
  ...warehouseFlags,
  select: list.optional(),
  fullRefresh: z.boolean().optional(),
});
type ModelsConfig = z.infer<typeof modelsConfigSchema>;

/** Builds the models (all, or the selected ones with what they depend on) and prints each build. */
export async function modelsRun(flags: Record<string, unknown>): Promise<void> {
  const config = parseConfig(modelsConfigSchema, flags);
  const request = requestOf(config);
  const answer = await through(config, 'run', request, (warehouse) =>
    warehouse.refreshModels({ select: request.select ?? [], fullRefresh: request.fullRefresh ?? false }),
  );
  const summary = answer as ModelRunSummary;
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
  const config = parseConfig(modelsConfigSchema, flags);
  const request = requestOf(config);
  const results = (await through(config, 'test', request, (warehouse) =>
    warehouse.testModels({ select: request.select ?? [] }),
  )) as ModelTestResult[];
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

function requestOf(config: ModelsConfig): ModelsRequest {
  const select = config.select ?? [];
  return { ...(select.length ? { select } : {}), ...(config.fullRefresh ? { fullRefresh: true } : {}) };
}

/** Runs the work through a running collector, or on the file opened here. */
async function through<T>(
  config: ModelsConfig,
  action: 'run' | 'test',
  request: ModelsRequest,
  local: (warehouse: Warehouse) => Promise<T>,
): Promise<ModelRunSummary | ModelTestResult[] | T> {
  const control = await ControlClient.find(config.warehouse);
  if (control) return action === 'run' ? control.runModels(request) : control.testModels(request);
  return withWarehouse(config, { readOnly: action === 'test' }, local);
}
