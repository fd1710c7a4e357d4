import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMarket } from '../helpers/cli.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'market-cli-webhooks-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('market serve --webhook-allow-loopback', () => {
  it.each([
    [['--webhook-allow-loopback'], '--webhook-allow-loopback needs --sandbox'],
    [['--sandbox', '--webhook-ca', 'ca.pem'], '--webhook-ca is used only with --webhook-allow-loopback'],
    [
      ['--sandbox', '--webhook-allow-loopback', '--webhook-ca', 'missing.pem'],
      'cannot read --webhook-ca missing.pem',
    ],
  ])('refuses %j with one line and exit code 2, before opening anything', async (flags, message) => {
    const db = join(dir, 'never.duckdb');
    const result = await runMarket(['serve', '--port', '0', '--db', db, ...flags]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toContain('    at ');
    expect(existsSync(db)).toBe(false);
  });
});
