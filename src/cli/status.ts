/** `market status`: what each source of a running collector is doing, asked through its control endpoint. */
import { readFile } from 'node:fs/promises';
import { controlFileOf } from '../collector/control.js';
import type { SourceStatus } from '../collector/source-status.js';
import { CliError } from './cli-error.js';

/** Prints the status of the collector that holds the warehouse. */
export async function status(flags: { warehouse?: string; json?: boolean }): Promise<void> {
  const warehouse = flags.warehouse ?? process.env.MARKET_WAREHOUSE ?? 'data/warehouse.duckdb';
  const control = await findControl(warehouse);
  if (!control) throw new CliError(`no collector is running on ${warehouse}`);
  const response = await fetch(`http://127.0.0.1:${control.port}/status`);
  const body = (await response.json()) as { pid: number; sources: SourceStatus[] };
  process.stdout.write(
    flags.json
      ? `${JSON.stringify(body, null, 2)}\n`
      : `collector pid ${body.pid}\n${formatStatus(body.sources)}\n`,
  );
}

/** The control address of a live collector on this warehouse, or null. */
export async function findControl(warehouse: string): Promise<{ pid: number; port: number } | null> {
  try {
    const control = JSON.parse(await readFile(controlFileOf(warehouse), 'utf8')) as {
      pid: number;
      port: number;
    };
    process.kill(control.pid, 0);
    return control;
  } catch {
    return null;
  }
}

/** One line per source: connected, received, landed, lag, last error. */
export function formatStatus(sources: readonly SourceStatus[]): string {
  return sources
    .map((s) => {
      const state = s.stopped ? `STOPPED (${s.stopped})` : s.connected ? 'connected' : 'disconnected';
      const lag = s.lagSeconds === null ? '' : ` lag=${s.lagSeconds.toFixed(1)}s`;
      const error = s.lastError ? ` last_error="${s.lastError}" at ${s.lastErrorAt}` : '';
      return `${s.name.padEnd(14)} ${state} received=${s.received} landed=${s.landed}${lag}${error}`;
    })
    .join('\n');
}
