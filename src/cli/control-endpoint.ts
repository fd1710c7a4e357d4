/**
 * `--control-port` and `--metrics-token-file` as the collector's control endpoint options: the
 * token file is read once at start, so a scraper's lasting token reaches the daemon, never its path.
 */
import { readFile } from 'node:fs/promises';
import type { ControlEndpointOptions } from '../collector/index.js';
import { CliError } from './cli-error.js';

/** The control endpoint of `market collect` and `market run` from their flags. */
export async function controlEndpointOf(flags: {
  controlPort: number;
  metricsTokenFile?: string | undefined;
}): Promise<ControlEndpointOptions> {
  if (flags.metricsTokenFile === undefined) return { port: flags.controlPort };
  return { port: flags.controlPort, metricsToken: await readMetricsTokenFile(flags.metricsTokenFile) };
}

/** The trimmed token of the file at `path`; a missing, empty or spaced token is refused. */
export async function readMetricsTokenFile(path: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read --metrics-token-file ${path}: ${(error as Error).message}`);
  }
  const token = text.trim();
  if (token === '') throw new CliError(`--metrics-token-file ${path} is empty: write the token in it`);
  // A bearer token is one word: one with spaces could never be sent, so no scrape would get in.
  if (/\s/.test(token))
    throw new CliError(`--metrics-token-file ${path} holds more than one word: write the token alone`);
  return token;
}
