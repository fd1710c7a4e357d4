/**
 * The main job (`market run`) keeps its accounts and keys across restarts: the second start prints
 * the same key and demo trader account as the first, from a file under its data folder that only
 * its owner can read; with a new database it mints new ones.
 */
import type { ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnMarket, waitForLine } from '../helpers/cli.js';
import { stopChild } from '../helpers/crash.js';

let dir: string;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'market-main-job-'));
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/** Starts `market run` on `db`, reads the key and trader account it prints, and stops it. */
async function startAndStop(db: string): Promise<{ key: string; trader: string }> {
  const child = spawnMarket([
    ...['run', '--port', '0', '--db', db, '--warehouse', join(dir, 'warehouse.duckdb')],
    ...['--listings', '200'],
  ]);
  children.add(child);
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  await waitForLine(child, /^stop with Ctrl-C/);
  await stopChild(child, 'SIGTERM', children);
  const key = /your API key [^:]*: (svc_pub_\S+)/.exec(out)?.[1];
  const trader = /a demo trader on an account of its own \((\S+)\)/.exec(out)?.[1];
  if (!key || !trader) throw new Error(`market run printed no key or trader account:\n${out}`);
  return { key, trader };
}

describe('market run', () => {
  it('keeps its accounts and keys across restarts, in a file only its owner reads', async () => {
    const db = join(dir, 'market.duckdb');
    const first = await startAndStop(db);
    const file = join(dir, 'main-job-accounts.json');
    expect((statSync(file).mode & 0o777).toString(8)).toBe('600');
    expect(await startAndStop(db)).toEqual(first);
  }, 120_000);

  it('mints new accounts for a database that does not know the stored ones', async () => {
    const before = await startAndStop(join(dir, 'market.duckdb'));
    const fresh = await startAndStop(join(dir, 'other.duckdb'));
    expect(fresh.key).not.toBe(before.key);
    expect(fresh.trader).not.toBe(before.trader);
  }, 120_000);
});
