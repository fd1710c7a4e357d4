/** startSandbox's close(): the service stops and the temporary database it made is gone. */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/start-sandbox.js';

const outerTmp = process.env.TMPDIR;
let folder: string | undefined;

afterEach(async () => {
  if (outerTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = outerTmp;
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe('startSandbox', () => {
  it('removes the database it created when closed, and stops answering', async () => {
    folder = await mkdtemp(join(tmpdir(), 'sandbox-close-'));
    // os.tmpdir() reads TMPDIR at each call: this sandbox makes its folder in ours alone.
    process.env.TMPDIR = folder;
    const sandbox = await startSandbox({ listings: 50 });
    const made = await readdir(folder);
    expect(made).toEqual([expect.stringMatching(/^market-sandbox-/)]);
    expect(await readdir(join(folder, made[0] ?? ''))).toContain('market.duckdb');
    expect((await fetch(`${sandbox.baseUrl}/health`)).status).toBe(200);

    await sandbox.close();
    expect(await readdir(folder)).toEqual([]);
    await expect(fetch(`${sandbox.baseUrl}/health`)).rejects.toThrow();
  });
});
