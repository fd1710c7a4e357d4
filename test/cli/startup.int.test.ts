/** The CLI loads what a command needs: help and quick commands never load DuckDB, Fastify or the charts. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { projectPath } from '../../src/shared/project-root.js';

/** The packages `market <args>` loads, by name. */
async function packagesLoaded(args: string[]): Promise<Set<string>> {
  const { stderr } = await promisify(execFile)(
    process.execPath,
    [
      '--import',
      'tsx',
      '--import',
      projectPath('test', 'helpers', 'import-log.mjs'),
      projectPath('src', 'cli', 'main.ts'),
      ...args,
    ],
    { cwd: projectPath() },
  ).catch((error: { stderr: string }) => ({ stderr: error.stderr }));
  const names = [...stderr.matchAll(/^imported .*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)].map(
    (m) => m[1] as string,
  );
  return new Set(names);
}

describe('market start-up', () => {
  it.each([
    ['--version'],
    ['--help'],
    ['status', '--help'],
    ['sql', '--help'],
    ['webhooks', 'listen', '--help'],
    ['status', '--warehouse', 'data/no-such-warehouse.duckdb'],
  ])('`market %s` loads neither DuckDB, Fastify nor vega', async (...args) => {
    const loaded = await packagesLoaded(args);
    expect(loaded.has('commander')).toBe(true);
    for (const heavy of ['@duckdb/node-api', '@duckdb/node-bindings', 'fastify', 'vega', 'vega-lite'])
      expect(loaded.has(heavy), heavy).toBe(false);
  });
});
