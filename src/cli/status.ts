/** `market status`: what each source of a running collector is doing, asked through its control endpoint. */
import type { SourceStatus } from '../collector/source-status.js';
import { CliError } from './cli-error.js';
import { ControlClient } from './control-client.js';
import { parseFlags } from './flags.js';
import { statusFlags } from './options.js';

/** The boards of warehouse work, with what their `landed` counts. */
const WORK: Record<string, string> = {
  models: 'built=%d rows',
  export: 'exported=%d rows',
  report: 'drawn=%d charts',
};

/** Prints the status of the collector that holds the warehouse. */
export async function status(read: Record<string, unknown>): Promise<void> {
  const flags = parseFlags(statusFlags, read);
  const { warehouse } = flags;
  const control = await ControlClient.find(warehouse);
  if (!control) throw new CliError(`no collector is running on ${warehouse}`);
  const body = await control.status();
  process.stdout.write(
    flags.json
      ? `${JSON.stringify(body, null, 2)}\n`
      : `collector pid ${body.pid} (market status --help explains each figure)\n${formatStatus(body.sources)}\n`,
  );
}

/** What a source's payloads carried: rejected and partly typed ones, fields the contract does not name. */
function payloads(s: SourceStatus): string {
  if (s.rejected === undefined) return '';
  const fields = (s.newFields ?? []).map((f) => ` new_field=${f.field}(${f.count}, since ${f.firstSeenAt})`);
  return ` rejected=${s.rejected} partly_typed=${s.partlyTyped ?? 0}${fields.join('')}`;
}

/** One line per source: its state and figures, and its last error. */
export function formatStatus(sources: readonly SourceStatus[]): string {
  return sources
    .map((s) => {
      const error = s.lastError ? ` last_error="${s.lastError}" at ${s.lastErrorAt}` : '';
      const work = WORK[s.name];
      if (work) return `${s.name.padEnd(14)} ${work.replace('%d', String(s.landed))}${error}`;
      const state = s.stopped ? `STOPPED (${s.stopped})` : s.connected ? 'connected' : 'disconnected';
      const lag = s.lagSeconds === null ? '' : ` lag=${s.lagSeconds.toFixed(1)}s`;
      return `${s.name.padEnd(14)} ${state} received=${s.received} landed=${s.landed}${lag}${payloads(s)}${error}`;
    })
    .join('\n');
}
