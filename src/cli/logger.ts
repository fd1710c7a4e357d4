/**
 * The logger of the commands that run a daemon, on stderr: JSON lines (pino) for machines, or one
 * short human line per entry on a terminal. The collector's status (status-log.ts) is a small
 * summary object in JSON, one line on a terminal; `market status` has the details.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import type { SourceStatus } from '../collector/index.js';
import type { LOG_FORMATS, LOG_LEVELS } from './config.js';
import { describeStatus, type StatusSummary } from './status-log.js';

/** A logger at `level` writing to stderr in `format`, its lines named `name`. */
export function createLogger(
  name: string,
  level: (typeof LOG_LEVELS)[number],
  format: (typeof LOG_FORMATS)[number] = 'json',
): Logger {
  const text = format === 'text' || (format === 'auto' && process.stderr.isTTY === true);
  return pino({ name, level }, text ? textDestination : process.stderr);
}

const LEVEL_NAMES: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

/** pino's JSON lines rewritten as short human lines on stderr. */
const textDestination: DestinationStream = {
  write(line: string) {
    process.stderr.write(`${humanLine(JSON.parse(line) as LogEntry)}\n`);
  },
};

interface LogEntry {
  level: number;
  time: number;
  name?: string;
  msg?: string;
  err?: { message?: string };
  sources?: SourceStatus[];
  status?: StatusSummary;
}

/** `HH:MM:SS level name: message` (info without its level), with the error's message when there is one. */
export function humanLine(entry: LogEntry): string {
  const time = new Date(entry.time).toISOString().slice(11, 19);
  const level = entry.level === 30 ? '' : `${LEVEL_NAMES[entry.level] ?? entry.level} `;
  const text = entry.status
    ? describeStatus(entry.status)
    : entry.sources
      ? summarizeStatus(entry.sources)
      : (entry.msg ?? '');
  const error = entry.err?.message ? `: ${entry.err.message}` : '';
  return `${time} ${level}${entry.name ?? ''}: ${text}${error}`;
}

/** One line for the whole collector: rows landed, the stream's lag, and the sources in trouble. */
export function summarizeStatus(sources: readonly SourceStatus[]): string {
  const feeds = sources.filter((s) => !WAREHOUSE_TASKS.has(s.name));
  const landed = feeds.reduce((sum, s) => sum + s.landed, 0);
  const stream = sources.find((s) => s.name === 'stream');
  const lag = stream?.lagSeconds == null ? '' : `, stream lag ${stream.lagSeconds.toFixed(1)}s`;
  // A last error stays on the board after the source recovered: only what is down now is named.
  const down = sources.filter((s) => s.stopped || !s.connected);
  const trouble = down.length === 0 ? 'all running' : `down: ${down.map((s) => s.name).join(', ')}`;
  return `status: ${landed} rows landed from ${feeds.length} sources${lag}; ${trouble} (details: market status)`;
}

/** Status boards of warehouse work, not of feeds of the API. */
const WAREHOUSE_TASKS = new Set(['models', 'export', 'report']);
