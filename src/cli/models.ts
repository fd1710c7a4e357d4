/**
 * `market models run|test`: builds the SQL models, or runs their tests. While a collector runs on
 * the warehouse the work goes through it (DuckDB lets one process open the file); otherwise the
 * file is opened here (read-write to build, read-only to test).
 */
import type { ModelsRequest } from '../collector/control-models.js';
import type { ModelRunSummary, ModelTestResult } from '../warehouse/index.js';
import { Warehouse } from '../warehouse/index.js';
import { CliError } from './cli-error.js';
import { ControlClient } from './control-client.js';
import { render } from './sql.js';

interface ModelsFlags {
  warehouse?: string;
  select?: string;
  fullRefresh?: boolean;
}

/** Builds the models (all, or the selected ones with what they depend on) and prints each build. */
export async function modelsRun(flags: ModelsFlags): Promise<void> {
  const request = requestOf(flags);
  const answer = await through(flags, 'run', request, (warehouse) =>
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
  process.stdout.write(render(rows, 'table'));
  process.stdout.write(`built ${summary.models.length} models in ${Math.round(summary.durationMs)} ms\n`);
}

/** Runs the model tests and prints each outcome; exits 1 when any fails. */
export async function modelsTest(flags: ModelsFlags): Promise<void> {
  const request = requestOf(flags);
  const results = (await through(flags, 'test', request, (warehouse) =>
    warehouse.testModels({ select: request.select ?? [] }),
  )) as ModelTestResult[];
  for (const r of results) {
    const verdict = r.failures === 0 ? 'PASS' : `FAIL ${r.failures}`;
    process.stdout.write(`${verdict.padEnd(10)} ${r.model}: ${r.name}\n`);
    if (r.error) process.stdout.write(`           ${r.error}\n`);
    for (const row of r.sample) process.stdout.write(`           ${JSON.stringify(row)}\n`);
  }
  const failed = results.filter((r) => r.failures > 0).length;
  process.stdout.write(`${results.length - failed} passed, ${failed} failed\n`);
  if (failed > 0) throw new CliError(`${failed} model test(s) failed`, 1);
}

function requestOf(flags: ModelsFlags): ModelsRequest {
  const select = (flags.select ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return { ...(select.length ? { select } : {}), ...(flags.fullRefresh ? { fullRefresh: true } : {}) };
}

/** Runs the work through a running collector, or on the file opened here. */
async function through<T>(
  flags: ModelsFlags,
  action: 'run' | 'test',
  request: ModelsRequest,
  local: (warehouse: Warehouse) => Promise<T>,
): Promise<ModelRunSummary | ModelTestResult[] | T> {
  const path = flags.warehouse ?? process.env.MARKET_WAREHOUSE ?? 'data/warehouse.duckdb';
  const control = await ControlClient.find(path);
  if (control) return action === 'run' ? control.runModels(request) : control.testModels(request);
  let warehouse: Warehouse;
  try {
    warehouse = await Warehouse.open(path, { readOnly: action === 'test' });
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  try {
    return await local(warehouse);
  } catch (error) {
    throw new CliError((error as Error).message);
  } finally {
    await warehouse.close();
  }
}
