/**
 * `npm start` as a supervisor runs it: SIGINT or SIGTERM sent to npm's own process (not to the
 * process group, as a terminal's Ctrl-C does) stops the service and the collector, leaves nothing
 * running or holding a database, and says so on stderr. It runs the compiled CLI, as `npm start`
 * does, so the build runs first.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectPath } from '../../src/shared/project-root.js';
import { waitForLine } from '../helpers/cli.js';

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

describe('npm start', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    'stops everything on %s to npm itself, and says so',
    async (signal) => {
      const db = join(dir, `${signal}.duckdb`);
      const warehouse = join(dir, `${signal}-warehouse.duckdb`);
      const npm: ChildProcess = spawn('npm', ['start', '--silent'], {
        cwd: projectPath(),
        env: {
          ...process.env,
          MARKET_PORT: '0',
          MARKET_DB: db,
          MARKET_WAREHOUSE: warehouse,
          MARKET_LISTINGS: '200',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      npm.stderr?.on('data', (d) => {
        stderr += d;
      });
      let below: number[] = [];
      try {
        await waitForLine(npm, /^stop with Ctrl-C/);
        below = descendants(npm.pid as number);
        expect(below.length).toBeGreaterThan(0);
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
