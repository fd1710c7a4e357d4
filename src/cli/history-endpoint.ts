/**
 * `--history-port`, `--history-host`, `--history-keys-file`, `--history-rate` and `--history-cors-origins` as the
 * collector's price history endpoint: `market collect` serves it when given a port (and then needs
 * the keys file); `market run` always serves it, with a keys file of one key made beside its data.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { HistoryEndpointOptions } from '../collector/index.js';
import { writeOwnerOnly } from '../shared/owner-only-file.js';
import { CliError } from './cli-error.js';

/** The flags, as options.ts parses them. */
export interface HistoryFlags {
  historyPort?: number | undefined;
  historyHost: string;
  historyKeysFile?: string | undefined;
  historyRate: number;
  historyCorsOrigins: string[];
}

/** The endpoint of `market collect`: none without a port; a port without a keys file is refused. */
export function historyEndpointOf(flags: HistoryFlags): HistoryEndpointOptions | undefined {
  if (flags.historyPort === undefined) return undefined;
  if (flags.historyKeysFile === undefined) {
    throw new CliError('--history-port needs --history-keys-file (one key per line, chmod 600)');
  }
  return endpoint(flags, flags.historyPort, flags.historyKeysFile);
}

/**
 * The endpoint of `market run` and one of its keys: the keys file given, or `defaultFile`, made
 * owner-only with one random key when missing.
 */
export async function runHistoryEndpointOf(
  flags: HistoryFlags,
  defaultFile: string,
): Promise<{ options: HistoryEndpointOptions; key: string }> {
  const file = flags.historyKeysFile ?? defaultFile;
  let text = await readFile(file, 'utf8').catch(() => null);
  if (text === null && flags.historyKeysFile === undefined) {
    text = `hist_${randomBytes(24).toString('base64url')}\n`;
    // Beside a warehouse not made yet: its folder is made as the warehouse's would be.
    await mkdir(dirname(file), { recursive: true });
    await writeOwnerOnly(file, text);
  }
  const key = text
    ?.split('\n')
    .map((line) => line.trim())
    .find((line) => line.length > 0 && !line.startsWith('#'));
  if (key === undefined) throw new CliError(`--history-keys-file ${file} holds no key (one per line)`);
  return { options: endpoint(flags, flags.historyPort ?? 0, file), key };
}

function endpoint(flags: HistoryFlags, port: number, keysFile: string): HistoryEndpointOptions {
  return {
    port,
    host: flags.historyHost,
    keysFile,
    corsOrigins: flags.historyCorsOrigins,
    ratePerMinute: flags.historyRate,
  };
}
