/**
 * Ray in tests: a Python venv holding `ray[data]` (made once under `data/`, else a reason to skip),
 * a Ray cluster on 127.0.0.1 only, and Python scripts run against it.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './crash.js';
import { which } from './prometheus.js';

const run = promisify(execFile);

/** What the venv installs: Ray Data, and aiohttp, without which Ray's file listing fails to import fsspec's HTTP filesystem. */
const PACKAGES = ['ray[data]', 'aiohttp'];

/** Bounds the install (about 30 s from a local index); past it the tests skip. */
const INSTALL_TIMEOUT_MS = 300_000;

/** The venv's python, or why the tests that need Ray skip. */
export type RayPython = { python: string } | { skipped: string };

/**
 * The python of the venv at `venvDir`, reused when it imports `ray.data`, else made (`python3 -m
 * venv`) and given {@link PACKAGES} from the package index pip is configured with, in bounded time.
 * Before making it, it says where and why on stderr (`say`), once: the venv takes about 600 MB.
 */
export async function prepareRayPython(
  venvDir: string,
  say: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<RayPython> {
  const python = join(venvDir, 'bin', 'python');
  if (await importsRayData(python)) return { python };
  const python3 = await which('python3');
  if (!python3)
    return { skipped: 'python3 is not installed, so Ray cannot be (apt-get install python3-venv)' };
  say(
    `the Ray test makes a Python environment with ${PACKAGES.join(' ')} in ${venvDir} (about 600 MB, ` +
      'made once and reused by later runs; delete the folder to get the space back)',
  );
  try {
    await run(python3, ['-m', 'venv', venvDir], { timeout: 60_000 });
  } catch (error) {
    return { skipped: `python3 cannot make a venv (apt-get install python3-venv): ${tail(error)}` };
  }
  try {
    // One retry: on a machine without the public index, failing fast beats waiting out pip's back-off.
    await run(python, ['-m', 'pip', 'install', '--quiet', '--retries', '1', ...PACKAGES], {
      timeout: INSTALL_TIMEOUT_MS,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    return { skipped: `${PACKAGES.join(' ')} could not be installed from the package index: ${tail(error)}` };
  }
  if (await importsRayData(python)) return { python };
  return { skipped: `${PACKAGES.join(' ')} installed, but ray.data does not import` };
}

async function importsRayData(python: string): Promise<boolean> {
  if (!existsSync(python)) return false;
  try {
    await run(python, ['-c', 'import ray.data'], { timeout: 60_000 });
    return true;
  } catch {
    return false;
  }
}

/** The last lines of a failed command's output. */
function tail(error: unknown): string {
  const { stderr, message } = error as { stderr?: string; message?: string };
  return (stderr || message || String(error)).trim().split('\n').slice(-3).join(' ');
}

/**
 * The environment of every Ray process: no usage stats sent anywhere, 127.0.0.1 kept as given
 * (Ray on Linux otherwise swaps it for the machine's outward address), and every file Ray writes
 * under `tempDir`.
 */
export function rayEnvironment(tempDir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    RAY_USAGE_STATS_ENABLED: '0',
    RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER: '0',
    RAY_TMPDIR: tempDir,
    PYTHONUNBUFFERED: '1',
  };
}

/** A running Ray cluster. */
export interface RayCluster {
  /** `127.0.0.1:<port>` of its GCS, what a driver's `ray.init(address=…)` takes. */
  address: string;
  /** The end of its launcher's output, for a failing test's message. */
  log(): string;
  /** Stops every node; what is left after 30 s is killed. */
  stop(): Promise<void>;
}

/**
 * Starts `launcher` (test/warehouse/lake/ray_cluster.py) with `python`: a head and `workers` worker
 * nodes on 127.0.0.1, in a process group of their own, so that stopping reaches them all and
 * nothing else. Resolves once every node is up.
 */
export async function startRayCluster(
  python: string,
  launcher: string,
  tempDir: string,
  workers = 2,
): Promise<RayCluster> {
  const port = await freePort();
  const child = spawn(
    python,
    [launcher, '--port', String(port), '--workers', String(workers), '--temp-dir', join(tempDir, 'ray')],
    { env: rayEnvironment(tempDir), detached: true, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (d: Buffer) => {
    output = (output + d).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const cluster: RayCluster = {
    address: `127.0.0.1:${port}`,
    log: () => output,
    stop: () => stopGroup(child),
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the Ray cluster did not start in 120 s')), 120_000);
      child.stdout?.on('data', () => {
        if (output.includes(`address=${cluster.address}`)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the Ray cluster's launcher exited (${code})`));
      });
    });
  } catch (error) {
    await cluster.stop();
    throw new Error(`${(error as Error).message}:\n${output}`, { cause: error });
  }
  return cluster;
}

/** Closes the launcher's stdin (it then shuts its nodes down), waits, and kills its group's leftovers. */
async function stopGroup(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit');
    child.stdin?.end();
    const timer = setTimeout(() => killGroup(pid), 30_000);
    await exited;
    clearTimeout(timer);
  }
  killGroup(pid);
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is gone already.
  }
}

/** Runs a Python script with the Ray environment and returns its stdout's last line parsed as JSON. */
export async function runRayScript<T>(
  python: string,
  script: string,
  args: string[],
  tempDir: string,
  timeoutMs = 180_000,
): Promise<T> {
  try {
    const { stdout } = await run(python, [script, ...args], {
      env: rayEnvironment(tempDir),
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
    });
    return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as T;
  } catch (error) {
    throw new Error(`${script} failed: ${(error as { stderr?: string }).stderr?.slice(-4000) ?? error}`, {
      cause: error,
    });
  }
}
