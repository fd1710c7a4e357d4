/** The daemon's control endpoint, by injected requests on a warehouse in memory. */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildControlApp } from '../../src/collector/control.js';
import { StatusBoard } from '../../src/collector/source-status.js';
import { Warehouse } from '../../src/warehouse/index.js';

let dir: string;
let warehouse: Warehouse;
let app: FastifyInstance;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'market-control-'));
  warehouse = await Warehouse.open(':memory:');
  app = buildControlApp(warehouse, () => [new StatusBoard('fx').status]);
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await warehouse.close();
  await rm(dir, { recursive: true, force: true });
});

function post(url: string, contentType: string, payload: string) {
  return app.inject({ method: 'POST', url, headers: { 'content-type': contentType }, payload });
}

function sql(query: string, out?: string) {
  return post(out ? `/sql?out=${encodeURIComponent(out)}` : '/sql', 'text/plain', query);
}

/** The JSON lines of an NDJSON answer, blank keep-alive lines skipped. */
function ndjsonLines(body: string) {
  return body
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

async function tableCount(): Promise<number> {
  const [row] = await warehouse.query(
    'SELECT count(*) AS n FROM information_schema.tables WHERE table_catalog = current_database()',
  );
  return Number(row?.n);
}

describe('POST /sql', () => {
  it.each([
    ['SELECT', 'SELECT 1 AS n'],
    ['WITH', 'WITH x AS (SELECT 2 AS n) SELECT n FROM x'],
    ['FROM', 'FROM loads'],
    ['SHOW', 'SHOW TABLES'],
    ['DESCRIBE', 'DESCRIBE loads'],
    ['SUMMARIZE', 'SUMMARIZE loads'],
    ['EXPLAIN', 'EXPLAIN SELECT * FROM loads'],
    ['PRAGMA table_info', "PRAGMA table_info('loads')"],
  ])('answers a %s query with its rows', async (_, query) => {
    const response = await sql(query);
    expect(response.statusCode).toBe(200);
    expect(Array.isArray(response.json().rows)).toBe(true);
  });

  it('returns the values of the rows', async () => {
    const response = await sql("SELECT 1 AS n, 'a' AS s");
    expect(response.json()).toEqual({ rows: [{ n: 1, s: 'a' }] });
  });

  it.each([
    ['INSERT', "INSERT INTO collector_state VALUES ('x', 'k', 'v', now())", 'INSERT'],
    ['DELETE', 'DELETE FROM loads', 'DELETE'],
    ['UPDATE', "UPDATE collector_state SET value = 'v'", 'UPDATE'],
    ['COPY', "COPY loads TO '{dir}/loads.csv'", 'COPY'],
    ['ATTACH', "ATTACH '{dir}/other.duckdb' AS other", 'ATTACH'],
    ['CREATE', 'CREATE TABLE made_here (a INTEGER)', 'CREATE'],
    ['DROP', 'DROP TABLE loads', 'DROP'],
    ['SET', "SET memory_limit = '10GB'", 'SET'],
  ])('refuses %s with 400 not_read_only, changing nothing', async (_, template, type) => {
    const tables = await tableCount();
    const response = await sql(template.replaceAll('{dir}', dir));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      code: 'not_read_only',
      detail: expect.stringMatching(new RegExp(`^only read-only queries .*; this is ${type}$`)),
    });
    expect(await tableCount()).toBe(tables);
    expect(existsSync(join(dir, 'loads.csv'))).toBe(false);
    expect(existsSync(join(dir, 'other.duckdb'))).toBe(false);
  });

  it('runs an EXPLAIN ANALYZE in a read-only transaction, so a write inside it fails', async () => {
    const response = await sql("EXPLAIN ANALYZE INSERT INTO collector_state VALUES ('x', 'k', 'v', now())");
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'query_failed',
      detail: expect.stringMatching(/read-only/),
    });
    expect(await warehouse.query("SELECT * FROM collector_state WHERE source = 'x'")).toEqual([]);
  });

  it('refuses two statements at once and answers a SQL error as query_failed', async () => {
    const two = await sql('SELECT 1; DELETE FROM loads');
    expect(two.statusCode).toBe(400);
    expect(two.json().code).toBe('query_failed');
    const wrong = await sql('SELECT nope FROM nowhere');
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ code: 'query_failed', detail: expect.stringMatching(/nowhere/) });
  });

  it('writes the rows of a SELECT to parquet with ?out=, and refuses a write or a relative path', async () => {
    const out = join(dir, 'one.parquet');
    const written = await sql('SELECT 1 AS n UNION ALL SELECT 2', out);
    expect(written.statusCode).toBe(200);
    expect(written.json()).toEqual({ rows: 2, out });
    expect(existsSync(out)).toBe(true);
    const write = await sql('DELETE FROM loads', join(dir, 'two.parquet'));
    expect(write.json().code).toBe('not_read_only');
    const relative = await sql('SELECT 1', 'one.parquet');
    expect(relative.statusCode).toBe(400);
    expect(relative.json()).toEqual({
      code: 'invalid_request',
      detail: expect.stringMatching(/absolute path/),
    });
    expect(existsSync(join(dir, 'two.parquet'))).toBe(false);
  });
});

describe('errors of the control endpoint', () => {
  it('answers an unknown route 404 not_found', async () => {
    const response = await app.inject({ method: 'GET', url: '/nope?x=1' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ code: 'not_found', detail: 'no route GET /nope' });
  });

  it('answers malformed JSON 400 invalid_request', async () => {
    const response = await post('/models/run', 'application/json', '{"select": [');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'invalid_request', detail: expect.any(String) });
  });

  it('answers a body of the wrong shape 400 invalid_request naming the field', async () => {
    const response = await app.inject({ method: 'POST', url: '/models/run', payload: { select: 'fct_x' } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'invalid_request',
      detail: expect.stringMatching(/^invalid select/),
    });
  });

  it('answers a body over 1 MiB 413 body_too_large', async () => {
    const response = await sql(`SELECT '${'x'.repeat(1024 * 1024)}'`);
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ code: 'body_too_large' });
  });

  it('answers an unknown media type 415 unsupported_media_type', async () => {
    const response = await post('/sql', 'application/xml', '<sql/>');
    expect(response.statusCode).toBe(415);
    expect(response.json()).toMatchObject({ code: 'unsupported_media_type' });
  });
});

describe('GET /status, POST /models, POST /export and POST /report', () => {
  it('answers the pid and the status of each source', async () => {
    const response = await app.inject({ method: 'GET', url: '/status' });
    expect(response.json()).toMatchObject({ pid: process.pid, sources: [{ name: 'fx', landed: 0 }] });
  });

  it('answers an unknown model 400 models_failed', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/models/run',
      payload: { select: ['fct_nope'] },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      code: 'models_failed',
      detail: expect.stringMatching(/no model is named fct_nope/),
    });
  });

  it('refuses an export to a relative folder before starting it', async () => {
    const response = await app.inject({ method: 'POST', url: '/export', payload: { to: 'exports' } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      code: 'invalid_request',
      detail: expect.stringMatching(/^invalid to: /),
    });
  });

  it('streams an export failure as an NDJSON error line', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/export',
      payload: { to: join(dir, 'exports'), models: ['fct_nope'] },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const lines = ndjsonLines(response.body);
    expect(lines).toEqual([{ error: expect.stringMatching(/fct_nope/), input: true }]);
  });

  it.each([
    [{ out: 'reports' }, /^invalid out: out must be an absolute path/],
    [{ out: '/tmp/x', window: '1y' }, /^invalid window: window must be minutes, hours or days/],
  ])('refuses the report request %j before starting it', async (payload, detail) => {
    const response = await app.inject({ method: 'POST', url: '/report', payload });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ code: 'invalid_request', detail: expect.stringMatching(detail) });
  });

  it('streams a report build as NDJSON progress lines, then its summary', async () => {
    const out = join(dir, 'reports');
    const response = await app.inject({ method: 'POST', url: '/report', payload: { out, window: '24h' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const lines = ndjsonLines(response.body);
    expect(lines.slice(0, -1).map((l) => l.progress?.step)).toEqual([
      'read the models',
      'drew minask',
      'drew float',
      'drew stickers',
      'drew fx',
      'drew net-flow',
      'drew order-outcomes',
      'wrote the report',
    ]);
    const { result } = lines.at(-1);
    expect(existsSync(result.html)).toBe(true);
    expect(result.html.startsWith(out)).toBe(true);
    expect(result.missing).toHaveLength(6);
  });
});
