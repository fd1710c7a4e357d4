/**
 * `npm start` as a supervisor runs it: SIGINT or SIGTERM sent to npm's own process (not to the
 * process group, as a terminal's Ctrl-C does) stops the service and the collector, leaves nothing
 * running or holding a database, and says so on stderr. It runs the compiled CLI, as `npm start`
 * does, so the build runs first. The commands its banner prints are run as a user pastes them.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectPath } from '../../src/shared/project-root.js';
import { COMPILED_MAIN } from '../helpers/build-cli.js';
import { waitForLine } from '../helpers/cli.js';
import { shebangLaunch, startScriptLaunch } from '../helpers/launch-line.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'market-start-'));
  execFileSync('npm', ['run', 'build'], { cwd: projectPath(), stdio: 'ignore' });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The pids of every process below `pid`, read from /proc. */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // The process ended while the list was read.
    }
  }
  const found: number[] = [];
  const visit = (p: number) => {
    for (const child of children.get(p) ?? []) {
      found.push(child);
      visit(child);
    }
  };
  visit(pid);
  return found;
}

/** The words of a process' command line, from /proc. */
function commandLine(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
}

/** A process' environment, from /proc. */
function environment(pid: number): Record<string, string> {
  const pairs = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return Object.fromEntries(
    pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
}

/**
 * What the main job's node was launched with, as `npm start` and the bin's shebang must give it:
 * V8 and glibc read both only when a process starts (`src/cli/main.ts`; test/bench/README.md, "soak").
 */
function expectDaemonLaunch(pid: number): void {
  const words = commandLine(pid);
  expect(
    words.slice(
      1,
      words.findIndex((word) => word.endsWith('main.js')),
    ),
  ).toEqual(['--max-semi-space-size=2']);
  expect(environment(pid)).toMatchObject({ MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' });
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Opens and closes the file: refused while another process holds it. */
async function openAndClose(path: string): Promise<void> {
  const instance = await DuckDBInstance.create(path);
  instance.closeSync();
}

/** Starts `npm start` on databases in `dir` named after `name`, as a supervisor would. */
function startNpm(name: string): { npm: ChildProcess; db: string; warehouse: string } {
  const db = join(dir, `${name}.duckdb`);
  const warehouse = join(dir, `${name}-warehouse.duckdb`);
  const { INIT_CWD: _shellFolder, ...env } = process.env;
  const npm = spawn('npm', ['start', '--silent'], {
    cwd: projectPath(),
    env: { ...env, MARKET_PORT: '0', MARKET_DB: db, MARKET_WAREHOUSE: warehouse, MARKET_LISTINGS: '200' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { npm, db, warehouse };
}

describe('npm start', () => {
  it('prints commands that run the built CLI with node, and the listener it names stops on a SIGINT to itself', async () => {
    const { npm } = startNpm('banner');
    let banner = '';
    npm.stdout?.on('data', (d) => {
      banner += d;
    });
    let listener: ChildProcess | undefined;
    try {
      await waitForLine(npm, /^stop with Ctrl-C/);
      const listen = /webhooks of your orders, printed here and forwarded: (.+) \[--forward-to/.exec(
        banner,
      )?.[1];
      expect(listen).toMatch(/^node \.build\/src\/cli\/main\.js webhooks listen --base-url /);
      const [node, ...args] = (listen as string).split(' ');
      // Spawned as the shell runs a pasted line: the process the user started is the listener itself.
      listener = spawn(node === 'node' ? process.execPath : (node as string), args, {
        cwd: projectPath(),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      await waitForLine(listener, /^ready: /);
      const exited = once(listener, 'exit');
      listener.kill('SIGINT');
      expect((await exited)[0]).toBe(0);
      const baseUrl = /--base-url (\S+)/.exec(listen as string)?.[1];
      const key = /--api-key (\S+)/.exec(listen as string)?.[1];
      const hooks = await fetch(`${baseUrl}/webhooks`, { headers: { authorization: `Bearer ${key}` } });
      expect(((await hooks.json()) as { data: unknown[] }).data).toEqual([]);
      const query = /query it with: node (\S+) sql --warehouse (\S+) "(.+)"$/m.exec(banner);
      expect(query).not.toBeNull();
      const [, main, warehouse, sql] = query as unknown as string[];
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [main as string, 'sql', '--warehouse', warehouse as string, sql as string],
        { cwd: projectPath() },
      );
      expect(stdout).toMatch(/\d/);
      // The price history line, as a user pastes it.
      const curl = /price history .*: curl --compressed -H "Authorization: Bearer (\S+)" "(\S+)"$/m.exec(
        banner,
      );
      expect(curl).not.toBeNull();
      const [, historyKey, historyUrl] = curl as unknown as string[];
      const history = await fetch(historyUrl as string, {
        headers: { authorization: `Bearer ${historyKey}` },
      });
      expect(history.status).toBe(200);
      expect(((await history.json()) as { items: unknown[] }).items).toBeInstanceOf(Array);
    } finally {
      if (listener?.exitCode === null) listener.kill('SIGKILL');
      const exited = once(npm, 'exit');
      npm.kill('SIGINT');
      await exited;
    }
  }, 120_000);

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'runs the job as it must be launched, and stops everything on %s to npm itself, and says so',
    async (signal) => {
      const { npm, db, warehouse } = startNpm(signal);
      let stderr = '';
      npm.stderr?.on('data', (d) => {
        stderr += d;
      });
      let below: number[] = [];
      try {
        await waitForLine(npm, /^stop with Ctrl-C/);
        below = descendants(npm.pid as number);
        expect(below.length).toBeGreaterThan(0);
        const job = below.find((pid) => commandLine(pid).includes('run'));
        expectDaemonLaunch(job as number);
        const exited = once(npm, 'exit');
        npm.kill(signal);
        await exited;
        expect(below.filter(isRunning)).toEqual([]);
        // Closed, or cut off at the 4 s deadline on a busy machine: either way said, and nothing left.
        expect(stderr).toMatch(
          /^stopped: the service, the collector and the demo trader (closed|did not close within 4000 ms)/m,
        );
        await openAndClose(db);
        await openAndClose(warehouse);
      } finally {
        // A failed stop leaves nothing behind either.
        for (const pid of [npm.pid as number, ...below].filter(isRunning)) process.kill(pid, 'SIGKILL');
      }
    },
    90_000,
  );
});

describe("the bin's shebang", () => {
  it('launches as npm start does: the same environment and Node flags, in effect in the running job', async () => {
    expect(shebangLaunch()).toEqual(startScriptLaunch());
    // As the kernel runs `market` once npm links it: the interpreter, the shebang's rest as one
    // word, then the file and its arguments.
    const [shebang = ''] = readFileSync(COMPILED_MAIN, 'utf8').split('\n', 1);
    const [interpreter = '', ...rest] = shebang.slice(2).split(' ');
    const db = join(dir, 'shebang.duckdb');
    const { INIT_CWD: _shellFolder, ...env } = process.env;
    const job = spawn(interpreter, [rest.join(' '), COMPILED_MAIN, 'run'], {
      cwd: projectPath(),
      env: {
        ...env,
        MARKET_PORT: '0',
        MARKET_DB: db,
        MARKET_WAREHOUSE: join(dir, 'shebang-warehouse.duckdb'),
        MARKET_LISTINGS: '200',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      await waitForLine(job, /^stop with Ctrl-C/);
      // env executes node in its own place: the process spawned is the job.
      expectDaemonLaunch(job.pid as number);
    } finally {
      const exited = once(job, 'exit');
      job.kill('SIGINT');
      await exited;
    }
  }, 90_000);
});

describe('market run on its default paths, in a clone', () => {
  let repo: string;
  let job: ChildProcess;
  const git = (...args: string[]) =>
    promisify(execFile)('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo });

  beforeAll(async () => {
    // A repository of its own holding the project's .gitignore, as a clone's root: the job runs
    // there on its default paths (data/…) as `npm start` runs in the clone.
    repo = join(dir, 'clone');
    await mkdir(repo);
    await copyFile(projectPath('.gitignore'), join(repo, '.gitignore'));
    await git('init', '--quiet');
    await git('add', '.gitignore');
    await git('commit', '--quiet', '-m', 'ignore');
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('MARKET_') && name !== 'INIT_CWD'),
    );
    job = spawn(process.execPath, [COMPILED_MAIN, 'run', '--freshness', 'stream=7/11'], {
      cwd: repo,
      env: { ...env, MARKET_PORT: '0', MARKET_LISTINGS: '200' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await waitForLine(job, /^stop with Ctrl-C/);
  }, 120_000);
  afterAll(() => {
    if (job?.exitCode === null) job.kill('SIGKILL');
  });

  it("takes market collect's flags: the ages --freshness sets are the ones market status shows", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [COMPILED_MAIN, 'status', '--json'], {
      cwd: repo,
    });
    const { sources } = JSON.parse(stdout) as { sources: { name: string; freshness?: object }[] };
    expect(sources.find((s) => s.name === 'stream')?.freshness).toMatchObject({
      warnSeconds: 7,
      errorSeconds: 11,
    });
  });

  it('writes only what git ignores: once it stops, git status is clean', async () => {
    const exited = once(job, 'exit');
    job.kill('SIGINT');
    await exited;
    // It wrote the raw keys and the databases where a clone holds them, and git shows none of it.
    expect(existsSync(join(repo, 'data', 'main-job-accounts.json'))).toBe(true);
    expect(existsSync(join(repo, 'data', 'warehouse.duckdb'))).toBe(true);
    const { stdout } = await git('status', '--porcelain', '--untracked-files=all', '--ignored=no');
    expect(stdout).toBe('');
  }, 60_000);
});
