/** `market status`: what each source of a running collector is doing, asked through its control endpoint. */
import type { FreshnessState, SourceStatus } from '../collector/index.js';
import type { LakeStatus } from '../warehouse/index.js';
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

/** Exit codes of `--check`, by the worst state (Nagios' OK, WARNING, CRITICAL). */
const CHECK_EXIT: Record<FreshnessState, number> = { ok: 0, warn: 1, error: 2 };

/** Prints the status of the collector that holds the warehouse. */
export async function status(read: Record<string, unknown>): Promise<void> {
  const flags = parseFlags(statusFlags, read);
  const { warehouse } = flags;
  const control = await ControlClient.find(warehouse);
  if (!control && flags.check) {
    process.stdout.write(`collector error: no collector is running on ${warehouse}\n`);
    process.exitCode = CHECK_EXIT.error;
    return;
  }
  if (!control) throw new CliError(`no collector is running on ${warehouse}`);
  const body = await control.status(flags.timeoutMs).catch((error: unknown) => {
    if (!(flags.check && error instanceof CliError)) throw error;
    process.stdout.write(`collector error: ${error.message}\n`);
    return null;
  });
  if (body === null) {
    process.exitCode = CHECK_EXIT.error;
    return;
  }
  if (flags.check) {
    process.exitCode = check(body.sources);
    return;
  }
  process.stdout.write(
    flags.json
      ? `${JSON.stringify(body, null, 2)}\n`
      : `collector pid ${body.pid}${offset(body.upstreamOffsetSeconds)} (market status --help explains each figure)\n${formatStatus(body.sources)}\n${lakeLine(body.lake)}`,
  );
}

/** The lake's line: its days, files and bytes, and the instant before which every row is in it. */
function lakeLine(lake: LakeStatus | undefined): string {
  if (lake === undefined) return '';
  const before = lake.before === null ? ' (nothing moved yet)' : ` before=${lake.before}`;
  return `lake days=${lake.days} files=${lake.files} bytes=${lake.bytes}${before}\n`;
}

/** Prints one line per source not ok; returns the exit code of the worst state. */
function check(sources: readonly SourceStatus[]): number {
  let worst = CHECK_EXIT.ok;
  for (const s of sources) {
    const f = s.freshness;
    if (!f || f.state === 'ok') continue;
    worst = Math.max(worst, CHECK_EXIT[f.state]);
    const limit = f.state === 'error' ? f.errorSeconds : f.warnSeconds;
    const error = s.lastError ? `; last error: ${s.lastError}` : '';
    process.stdout.write(
      `${s.name} ${f.state}: last success ${f.ageSeconds.toFixed(0)}s ago (${f.state} past ${limit}s)${error}\n`,
    );
  }
  return worst;
}

/** The source's freshness: its state and the age of its last success. */
function freshness(s: SourceStatus): string {
  return s.freshness ? ` ${s.freshness.state} age=${s.freshness.ageSeconds.toFixed(0)}s` : '';
}

/** The upstream's measured clock offset, e.g. `, upstream clock +3.0s`, or nothing before it is measured. */
function offset(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '';
  return `, upstream clock ${seconds >= 0 ? '+' : ''}${seconds.toFixed(1)}s`;
}

/** What a source's payloads carried: rejected and partly typed ones, fields the contract does not name. */
function payloads(s: SourceStatus): string {
  if (s.rejected === undefined) return '';
  const fields = (s.newFields ?? []).map((f) => ` new_field=${f.field}(${f.count}, since ${f.firstSeenAt})`);
  return ` rejected=${s.rejected} partly_typed=${s.partlyTyped ?? 0}${fields.join('')}`;
}

/** A sweep's first full read while it runs: how far it is (the live set is incomplete until it ends). */
function firstPass(s: SourceStatus): string {
  if (!s.firstPass) return '';
  const of = s.firstPass.pages === null ? '' : ` of ${s.firstPass.pages}`;
  return ` (first pass: page ${s.firstPass.page}${of})`;
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
      return `${s.name.padEnd(14)} ${state}${freshness(s)} received=${s.received} landed=${s.landed}${lag}${firstPass(s)}${payloads(s)}${error}`;
    })
    .join('\n');
}
