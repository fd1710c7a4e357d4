/**
 * How fresh each source is: the age of its last success against a warn and an error age (dbt's
 * `warn_after` / `error_after`), with defaults that fit each source's schedule and overrides from
 * `--freshness SOURCE=WARN/ERROR`.
 */

/** The ages (seconds) past which a source is in warn, then in error. */
export interface FreshnessThresholds {
  warnSeconds: number;
  errorSeconds: number;
}

/** A source's freshness now. */
export interface Freshness extends FreshnessThresholds {
  state: FreshnessState;
  /** Seconds since the last success (since the collector started when none yet). */
  ageSeconds: number;
}

/** The states, worst last. */
export const FRESHNESS_STATES = ['ok', 'warn', 'error'] as const;

/** ok, warn or error. */
export type FreshnessState = (typeof FRESHNESS_STATES)[number];

/** Thresholds per source name (`sweep:730`) or kind (`sweep`, every game's). */
export type FreshnessRules = Record<string, FreshnessThresholds>;

/** Seconds between the stream's heartbeats are a few; a minute of silence is worth a look. */
const STREAM: FreshnessThresholds = { warnSeconds: 60, errorSeconds: 300 };

/**
 * Default thresholds of a source that runs every `intervalMs`: three missed runs warn, six are
 * an error, and never under a minute and five minutes (a slow answer is not an outage).
 */
export function thresholdsOfInterval(intervalMs: number): FreshnessThresholds {
  const seconds = intervalMs / 1000;
  return { warnSeconds: Math.max(60, 3 * seconds), errorSeconds: Math.max(300, 6 * seconds) };
}

/** The intervals of the sources (the collector's `sources` options). */
export type SourceSchedules = Record<
  | 'pollIntervalMs'
  | 'sweepIntervalMs'
  | 'cs2SweepIntervalMs'
  | 'pricesIntervalMs'
  | 'fxIntervalMs'
  | 'accountIntervalMs',
  number
>;

/** The default rules of every kind of source, from the sources' schedules. */
export function defaultFreshness(sources: SourceSchedules): FreshnessRules {
  return {
    stream: STREAM,
    poll: thresholdsOfInterval(sources.pollIntervalMs),
    sweep: thresholdsOfInterval(sources.sweepIntervalMs),
    'sweep:730': thresholdsOfInterval(sources.cs2SweepIntervalMs),
    prices: thresholdsOfInterval(sources.pricesIntervalMs),
    fx: thresholdsOfInterval(sources.fxIntervalMs),
    account: thresholdsOfInterval(sources.accountIntervalMs),
    // Once a minute by default; a schedule of its own is rarely slower than hourly.
    snapshot: thresholdsOfInterval(60_000),
  };
}

/** The thresholds of `source`: its own rule, else its kind's, else none (warehouse work). */
export function thresholdsOf(rules: FreshnessRules, source: string): FreshnessThresholds | null {
  return rules[source] ?? rules[source.split(':')[0] ?? source] ?? null;
}

/** The freshness of a source whose last success was at `lastSuccessMs` (null: never since `startedMs`). */
export function freshnessOf(
  thresholds: FreshnessThresholds,
  lastSuccessMs: number | null,
  startedMs: number,
  nowMs: number,
): Freshness {
  const ageSeconds = Math.max(0, (nowMs - (lastSuccessMs ?? startedMs)) / 1000);
  const state: FreshnessState =
    ageSeconds > thresholds.errorSeconds ? 'error' : ageSeconds > thresholds.warnSeconds ? 'warn' : 'ok';
  return { state, ageSeconds, ...thresholds };
}

/**
 * Parses `SOURCE=WARN/ERROR` (seconds, e.g. `stream=60/300`); throws a message naming the mistake.
 */
export function parseFreshnessRule(text: string): [string, FreshnessThresholds] {
  const match = /^([\w:-]+)=(\d+(?:\.\d+)?)\/(\d+(?:\.\d+)?)$/.exec(text.trim());
  if (!match)
    throw new Error(`--freshness takes SOURCE=WARN/ERROR in seconds, e.g. stream=60/300 (got "${text}")`);
  const [, source = '', warn = '', error = ''] = match;
  const thresholds = { warnSeconds: Number(warn), errorSeconds: Number(error) };
  if (thresholds.warnSeconds <= 0 || thresholds.errorSeconds < thresholds.warnSeconds)
    throw new Error(
      `--freshness ${text}: the warn age must be above 0 and the error age at least the warn age`,
    );
  return [source, thresholds];
}
