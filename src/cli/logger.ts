/** The pino logger of the commands that run a daemon: JSON lines on stderr. */
import pino, { type Logger } from 'pino';
import type { SourceStatus } from '../collector/source-status.js';

/** pino levels, and `silent`. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** A logger at `level` writing to stderr, its lines named `name`. */
export function createLogger(name: string, level: (typeof LOG_LEVELS)[number]): Logger {
  return pino({ name, level }, process.stderr);
}

/** Logs the collector's status every `seconds` (none for 0); returns what stops it. */
export function logStatusEvery(log: Logger, seconds: number, status: () => SourceStatus[]): () => void {
  if (seconds <= 0) return () => undefined;
  const timer = setInterval(() => log.info({ sources: status() }, 'status'), seconds * 1000);
  return () => clearInterval(timer);
}
