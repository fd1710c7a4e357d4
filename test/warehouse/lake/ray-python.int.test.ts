/** The Ray test's Python environment: said where and why before it is made, since it is large. */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareRayPython } from '../../helpers/ray.js';

let dir: string;
const path = process.env.PATH;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ray-python-'));
  // A python3 that cannot make a venv: what matters is what is said before it is asked to.
  await writeFile(join(dir, 'python3'), '#!/bin/sh\necho "no venv here" >&2\nexit 1\n');
  await chmod(join(dir, 'python3'), 0o755);
  process.env.PATH = `${dir}:${path}`;
});
afterAll(async () => {
  process.env.PATH = path;
  await rm(dir, { recursive: true, force: true });
});

describe('prepareRayPython', () => {
  it('says once where it makes the environment and why, before making it', async () => {
    const said: string[] = [];
    const venv = join(dir, 'ray-venv');
    const ray = await prepareRayPython(venv, (line) => said.push(line));
    expect(ray).toEqual({ skipped: expect.stringMatching(/^python3 cannot make a venv .*no venv here/) });
    expect(said).toEqual([expect.stringContaining(`ray[data] aiohttp in ${venv} (about 600 MB`)]);
  });
});
