/** startSandbox's close(): the service stops, the temporary database it made is gone, and a second close is a no-op. */
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

  it('resolves a second close, and one called while the first runs, without doing anything more', async () => {
    const sandbox = await startSandbox({ listings: 20 });
    // An error path closes it, then afterAll closes it again; the two may overlap.
    const first = sandbox.close();
    const overlapping = sandbox.close();
    await expect(Promise.all([first, overlapping])).resolves.toEqual([undefined, undefined]);
    await expect(sandbox.close()).resolves.toBeUndefined();
  });
});
