/**
 * Runs the real `market` command in a child process: the compiled one the package's `bin` names,
 * which the integration tests' global setup (build-cli.ts) keeps current with the sources. Node
 * starts it in half the CPU time tsx needs to load the sources, and the tests spawn it hundreds of times.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { ControlClient } from '../../src/cli/control-client.js';
import { projectPath } from '../../src/shared/project-root.js';
import { COMPILED_MAIN } from './build-cli.js';

/** Spawns `market <args>` with the given environment additions. */
export function spawnMarket(args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [COMPILED_MAIN, ...args], {
    cwd: projectPath(),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * Spawns `market collect` on `warehouse` with schedules measured in seconds and no budget to speak
 * of; `extra` flags come last, so they override these; `env` adds to its environment.
 */
export function spawnCollector(
  baseUrl: string,
  key: string,
  warehouse: string,
  extra: string[] = [],
  env: Record<string, string> = {},
) {
  return spawnMarket(
    [
      'collect',
      ...['--base-url', baseUrl, '--api-key', key, '--warehouse', warehouse, '--status-seconds', '0'],
      ...['--poll-seconds', '1', '--sweep-seconds', '1', '--cs2-sweep-seconds', '3'],
      ...['--prices-seconds', '2', '--fx-seconds', '2', '--snapshot-cron', '*/2 * * * * *'],
      ...['--read-budget', '100000', ...extra],
    ],
    env,
  );
}

/** Runs `market <args>` to the end and returns its exit code and output. */
export async function runMarket(args: string[], env: Record<string, string> = {}) {
  const child = spawnMarket(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => {
    stdout += d;
  });
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

/** Resolves with the first stdout line that matches, or rejects when the process exits first. */
export function waitForLine(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (d) => {
      stderr += d;
    });
    if (!child.stdout) throw new Error('the child has no stdout pipe');
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      if (pattern.test(line)) resolve(line);
    });
    child.once('exit', (code) =>
      reject(new Error(`exited with ${code} before printing ${pattern}: ${stderr}`)),
    );
  });
}

/**
 * The rows of a query asked of the running collector, the way `market sql` asks it (no rows when
 * none answers yet), without starting a process for every question.
 */
export async function askCollector(warehousePath: string, sql: string): Promise<any[]> {
  const control = await ControlClient.find(warehousePath);
  if (!control) return [];
  try {
    return (await control.query(sql)) as any[];
  } catch {
    return [];
  }
}
