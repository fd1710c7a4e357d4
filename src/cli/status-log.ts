/**
 * The collector's status in its log, for a person reading it: one short line (a few hundred bytes)
 * when something changes (a source goes down, stale or back) and otherwise every few minutes, and a
 * warning naming each source that turns stale, with what to do. The per-source detail stays in
 * `market status`.
 */
import type { Logger } from 'pino';
import type { SourceStatus } from '../collector/index.js';

/** The few figures of the status line. */
export interface StatusSummary {
  /** Rows landed by the feeds of the API since the start. */
  landed: number;
  /** Feeds of the API. */
  feeds: number;
  streamLagSeconds?: number;
  /** Sources stopped or reconnecting. */
  down?: string[];
  /** Sources past their warn age, e.g. `poll:730 (75s)`. */
  warn?: string[];
  /** Sources past their error age. */
  error?: string[];
}

/** How often the status is looked at for a change. */
const CHECK_MS = 5_000;

/** Boards of warehouse work, not feeds of the API. */
const WAREHOUSE_TASKS = new Set(['models', 'export', 'report']);

/** The summary of the boards: a few figures, and only the sources in trouble by name. */
export function statusSummary(sources: readonly SourceStatus[]): StatusSummary {
  const feeds = sources.filter((s) => !WAREHOUSE_TASKS.has(s.name));
  const lag = sources.find((s) => s.name === 'stream')?.lagSeconds;
  const named = (state: 'warn' | 'error') =>
    feeds
      .filter((s) => s.freshness?.state === state)
      .map((s) => `${s.name} (${Math.round(s.freshness?.ageSeconds ?? 0)}s)`);
  const down = sources.filter((s) => s.stopped || !s.connected).map((s) => s.name);
  const [warn, error] = [named('warn'), named('error')];
  return {
    landed: feeds.reduce((sum, s) => sum + s.landed, 0),
    feeds: feeds.length,
    ...(lag == null ? {} : { streamLagSeconds: Math.round(lag * 10) / 10 }),
    ...(down.length ? { down } : {}),
    ...(warn.length ? { warn } : {}),
    ...(error.length ? { error } : {}),
  };
}

/** The summary as one human line. */
export function describeStatus(s: StatusSummary): string {
  const lag = s.streamLagSeconds === undefined ? '' : `, stream lag ${s.streamLagSeconds}s`;
  const trouble = [
    s.down ? `down: ${s.down.join(', ')}` : '',
    s.warn ? `stale: ${s.warn.join(', ')}` : '',
    s.error ? `failing: ${s.error.join(', ')}` : '',
  ].filter(Boolean);
  return `status: ${s.landed} rows landed from ${s.feeds} sources${lag}; ${trouble.join('; ') || 'all fresh'} (details: market status)`;
}

/** What changes the line: which sources are down, stale or failing (not the growing counts). */
function signatureOf(sources: readonly SourceStatus[]): string {
  return sources
    .map((s) => `${s.name}:${s.stopped || !s.connected ? 'down' : (s.freshness?.state ?? 'ok')}`)
    .join(',');
}

/**
 * Logs the status at once, then whenever a source changes state and otherwise every
 * `everySeconds` (0: never, warnings included); warns once for each source that turns stale or
 * failing. Returns what stops it.
 */
export function logStatus(
  log: Logger,
  everySeconds: number,
  status: () => SourceStatus[],
  checkMs = CHECK_MS,
): () => void {
  if (everySeconds <= 0) return () => undefined;
  let last = '';
  let lastAt = 0;
  const states = new Map<string, string>();
  const look = () => {
    const sources = status();
    warnOfStaleSources(log, sources, states);
    const signature = signatureOf(sources);
    const now = Date.now();
    if (signature === last && now - lastAt < everySeconds * 1000) return;
    last = signature;
    lastAt = now;
    log.info({ status: statusSummary(sources) }, 'status');
  };
  look();
  const timer = setInterval(look, Math.min(checkMs, everySeconds * 1000));
  return () => clearInterval(timer);
}

/** A warning for each source that enters warn or error, and a line when it is fresh again. */
function warnOfStaleSources(
  log: Logger,
  sources: readonly SourceStatus[],
  states: Map<string, string>,
): void {
  for (const s of sources) {
    const f = s.freshness;
    if (!f) continue;
    const before = states.get(s.name) ?? 'ok';
    states.set(s.name, f.state);
    if (f.state === before) continue;
    if (f.state === 'ok') {
      log.info({ source: s.name }, `${s.name} is fresh again`);
      continue;
    }
    const limit = f.state === 'error' ? f.errorSeconds : f.warnSeconds;
    const why = s.lastError ? ` (last error: ${s.lastError})` : '';
    log.warn(
      { source: s.name, state: f.state, ageSeconds: Math.round(f.ageSeconds) },
      `${s.name} has not succeeded for ${Math.round(f.ageSeconds)}s, past its ${f.state} age of ${limit}s${why}: check that the API answers and the key may read it; market status shows the source, --freshness ${s.name}=WARN/ERROR sets its ages`,
    );
  }
}
