/**
 * The daemon's control endpoint over loopback, on a warehouse file locked down as the daemon locks
 * it: only the owner gets in, SQL only reads and only the warehouse's folders, every query has a
 * deadline, and every error is `{ code, detail }`.
 */
import { once } from 'node:events';
import { existsSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_ERROR_STATUS, CONTROL_PATHS, controlFileOf } from '../../src/collector/control/protocol.js';
import { startTestControl, type TestControl } from '../helpers/control.js';
import { trickle } from '../helpers/trickle.js';

let c: TestControl;

beforeAll(async () => {
  c = await startTestControl({ queryTimeoutMs: 30_000 });
  await writeFile(join(c.dir, 'secret.txt'), 'not for the door\n');
});
afterAll(() => c?.close());

/** A setting of the daemon's DuckDB, as the door reads it. */
async function setting(name: string): Promise<unknown> {
  const answer = await c.sql(`SELECT current_setting('${name}') AS v`);
  return answer.lines()[1]?.[0];
}

describe('who gets in', () => {
  it('writes the port and a random token in a control file only its owner can read', () => {
    const mode = statSync(controlFileOf(c.warehouse.path)).mode & 0o777;
    expect(mode.toString(8)).toBe('600');
    expect(c.file.pid).toBe(process.pid);
    expect(c.file.token).toMatch(/^[\w-]{43}$/);
  });

  const copy = () => `COPY (SELECT 'id') TO '${join(c.dir, 'written.csv')}'`;
  it.each<[string, () => Parameters<TestControl['call']>[1], number, string]>([
    ['no token', () => ({ noToken: true }), 401, 'unauthorized'],
    ['a wrong token', () => ({ headers: { authorization: 'Bearer nope' } }), 401, 'unauthorized'],
    ['a foreign Host', () => ({ headers: { host: 'rebind.attacker.example' } }), 403, 'forbidden'],
    ['localhost as Host', () => ({ headers: { host: `localhost:${c.file.port}` } }), 403, 'forbidden'],
    ['an Origin', () => ({ headers: { origin: 'https://evil.example' } }), 403, 'forbidden'],
    ['a null Origin', () => ({ headers: { origin: 'null' } }), 403, 'forbidden'],
  ])('refuses a request with %s before reading its SQL', async (_, init, status, code) => {
    const answer = await c.call('/sql', { ...init(), body: copy(), contentType: 'text/plain' });
    expect(answer.status).toBe(status);
    expect(answer.json()).toEqual({ code, detail: expect.any(String) });
    // Unparsable SQL and an unknown media type get the same answer: nothing was read.
    const garbled = await c.call('/sql', { ...init(), body: 'SELEC', contentType: 'application/xml' });
    expect(garbled.status).toBe(status);
    const status_ = await c.call('/status', { ...init(), method: 'GET' });
    expect(status_.status).toBe(status);
    expect(existsSync(join(c.dir, 'written.csv'))).toBe(false);
  });
});

describe('POST /sql', () => {
  it('streams the columns, one line per row, then the count', async () => {
    const answer = await c.sql("SELECT 1 AS n, 'a' AS s, 12.5::DECIMAL(18,2) AS usd");
    expect(answer.status).toBe(200);
    expect(answer.lines()).toEqual([
      {
        columns: [
          { name: 'n', type: 'INTEGER' },
          { name: 's', type: 'VARCHAR' },
          { name: 'usd', type: 'DECIMAL(18,2)' },
        ],
      },
      [1, 'a', 12.5],
      { end: { rows: 1 } },
    ]);
  });

  it.each([
    ['SELECT', 'SELECT 1 AS n'],
    ['WITH', 'WITH x AS (SELECT 2 AS n) SELECT n FROM x'],
    ['FROM', 'FROM loads'],
    ['VALUES', 'VALUES (1), (2)'],
    ['SHOW', 'SHOW TABLES'],
    ['DESCRIBE', 'DESCRIBE loads'],
    ['SUMMARIZE', 'SUMMARIZE loads'],
    ['a set operation', 'SELECT 1 UNION ALL SELECT 2'],
  ])('answers a %s query with its rows', async (_, query) => {
    const answer = await c.sql(query);
    expect(answer.status).toBe(200);
    expect(answer.lines().at(-1)).toEqual({ end: { rows: expect.any(Number) } });
  });

  it('streams a large answer whole', async () => {
    const lines = (await c.sql('SELECT range AS n FROM range(200000)')).lines();
    expect(lines).toHaveLength(200_002);
    expect(lines.at(-1)).toEqual({ end: { rows: 200_000 } });
  });

  it.each([
    ['INSERT', "INSERT INTO collector_state VALUES ('x', 'k', 'v', now())"],
    ['DELETE', 'DELETE FROM loads'],
    ['UPDATE', "UPDATE collector_state SET value = 'v'"],
    ['COPY', "COPY (SELECT 'id') TO '{dir}/copied.csv'"],
    ['EXPLAIN ANALYZE COPY', "EXPLAIN ANALYZE COPY (SELECT 'id') TO '{dir}/explained.csv'"],
    ['EXPLAIN', 'EXPLAIN SELECT 1'],
    ['ATTACH', "ATTACH '{dir}/other.duckdb' AS other"],
    ['CREATE', 'CREATE TABLE made_here (a INTEGER)'],
    ['DROP', 'DROP TABLE loads'],
    ['SET', "SET memory_limit = '10GB'"],
    ['EXPLAIN ANALYZE SET', 'EXPLAIN ANALYZE SET GLOBAL threads = 64'],
    ['RESET', 'RESET memory_limit'],
    ['PRAGMA', "PRAGMA table_info('loads')"],
    ['CALL', 'CALL checkpoint()'],
    ['INSTALL', 'INSTALL httpfs'],
    ['LOAD', 'LOAD httpfs'],
    ['two statements', 'SELECT 1; SELECT 2'],
    ['a SELECT then a write', 'SELECT 1; DELETE FROM loads'],
  ])('refuses %s with 400 not_read_only, changing nothing', async (_, template) => {
    const memory = await setting('memory_limit');
    const answer = await c.sql(template.replaceAll('{dir}', c.dir));
    expect(answer.status).toBe(400);
    expect(answer.json()).toEqual({
      code: 'not_read_only',
      detail: expect.stringMatching(/^only a single read-only query /),
    });
    expect(await setting('memory_limit')).toBe(memory);
    expect(await setting('enable_external_access')).toBe(false);
    expect(await setting('lock_configuration')).toBe(true);
    for (const name of ['copied.csv', 'explained.csv', 'other.duckdb'])
      expect(existsSync(join(c.dir, name))).toBe(false);
    const tables = (await c.sql("SELECT 1 FROM duckdb_tables() WHERE table_name = 'made_here'")).lines();
    expect(tables.at(-1)).toEqual({ end: { rows: 0 } });
  });

  it('leaves the warehouse its own checkpoint threshold to change after the lock-down', async () => {
    await c.warehouse.setBursting(false);
    expect(await setting('checkpoint_threshold')).toBe('15.2 MiB');
    await c.warehouse.setBursting(true);
    expect(await setting('checkpoint_threshold')).toBe('61.0 MiB');
    expect((await c.sql("SET checkpoint_threshold = '1GB'")).status).toBe(400);
    expect(await setting('checkpoint_threshold')).toBe('61.0 MiB');
  });

  it.each([
    ['read_text of a system file', "SELECT * FROM read_text('/etc/passwd')"],
    ['read_blob of a file beside the warehouse', "SELECT * FROM read_blob('{dir}/secret.txt')"],
    ['read_text through ..', "SELECT * FROM read_text('{dir}/exports/../secret.txt')"],
    ['a glob outside', "SELECT * FROM glob('/etc/*')"],
    ['read_csv outside', "SELECT * FROM read_csv('/etc/hosts')"],
    ['a URL', "SELECT * FROM 'https://example.com/x.parquet'"],
    ['the query() table function with a COPY', "SELECT * FROM query('COPY (SELECT 1) TO ''{dir}/q.csv''')"],
  ])('refuses a SELECT that reaches outside the warehouse folders: %s', async (_, template) => {
    const answer = await c.sql(template.replaceAll('{dir}', c.dir));
    expect(answer.status).toBe(400);
    expect(answer.json()).toEqual({
      code: 'query_failed',
      detail: expect.stringMatching(/Permission|SELECT/),
    });
    expect(answer.text).not.toMatch(/not for the door|root:/);
    expect(existsSync(join(c.dir, 'q.csv'))).toBe(false);
  });

  it('reads the parquet files of the export folder', async () => {
    // Written by a DuckDB of the test's own, as an export would be.
    const instance = await DuckDBInstance.create(':memory:');
    const file = join(c.exportsDir, 'model.parquet');
    await mkdir(c.exportsDir, { recursive: true });
    await (await instance.connect()).run(`COPY (SELECT 7 AS n) TO '${file}' (FORMAT parquet)`);
    instance.closeSync();
    const answer = await c.sql(`SELECT n FROM read_parquet('${file}')`);
    expect(answer.lines().slice(1)).toEqual([[7], { end: { rows: 1 } }]);
  });

  it('answers a SQL error 400 query_failed', async () => {
    const wrong = await c.sql('SELECT nope FROM nowhere');
    expect(wrong.status).toBe(400);
    expect(wrong.json()).toEqual({ code: 'query_failed', detail: expect.stringMatching(/nowhere/) });
    const garbled = await c.sql('SELEC 1');
    expect(garbled.json()).toEqual({ code: 'query_failed', detail: expect.stringMatching(/^Parser Error/) });
  });

  it('interrupts a runaway query at its deadline with 408 query_timeout, and stays healthy', async () => {
    const answer = await c.sql('SELECT count(*) FROM range(1000000000000)', '/sql?timeoutMs=300');
    expect(answer.status).toBe(408);
    expect(answer.json()).toEqual({
      code: 'query_timeout',
      detail: expect.stringMatching(/gave no row for 0.3 s and was interrupted/),
    });
    expect((await c.sql('SELECT 42 AS n')).lines()[1]).toEqual([42]);
  });

  it('ends an answer cut by its deadline with a query_timeout line', async () => {
    // The first rows come at once; the rest take longer than the deadline.
    const query = 'SELECT count(*) FROM range(1000000000000) UNION ALL SELECT 1 FROM range(1)';
    const slow = `SELECT * FROM (SELECT range AS n FROM range(5000)) UNION ALL (${query})`;
    const answer = await c.sql(slow, '/sql?timeoutMs=300');
    expect([200, 408]).toContain(answer.status);
    const last = answer.status === 200 ? answer.lines().at(-1).error : answer.json();
    expect(last).toEqual({ code: 'query_timeout', detail: expect.stringMatching(/interrupted/) });
  });
});

describe('the protocol', () => {
  // GET /metrics is routed only with instruments to serve: prometheus.int.test.ts calls it.
  const posted = Object.entries(CONTROL_PATHS).filter(
    ([, path]) => path !== '/status' && path !== '/metrics',
  );

  it('routes GET /status', async () => {
    expect((await c.call(CONTROL_PATHS.status)).status).toBe(200);
  });

  it.each(posted)('routes POST %s, checking its body', async (_, path) => {
    const answer = await c.call(path, { body: '[]', contentType: 'application/json' });
    expect(answer.status).toBe(CONTROL_ERROR_STATUS.invalid_request);
    expect(answer.json()).toMatchObject({ code: 'invalid_request' });
  });
});

describe('errors of the control endpoint', () => {
  it('answers an unknown route 404 not_found', async () => {
    const answer = await c.call('/nope?x=1');
    expect(answer.status).toBe(404);
    expect(answer.json()).toEqual({ code: 'not_found', detail: 'no route GET /nope' });
  });

  it('answers malformed JSON 400 invalid_request', async () => {
    const answer = await c.call('/models/run', { body: '{"select": [', contentType: 'application/json' });
    expect(answer.status).toBe(400);
    expect(answer.json()).toMatchObject({ code: 'invalid_request', detail: expect.any(String) });
  });

  it('answers a body of the wrong shape 400 invalid_request naming the field', async () => {
    const answer = await c.call('/models/run', {
      body: JSON.stringify({ select: 'fct_x' }),
      contentType: 'application/json',
    });
    expect(answer.status).toBe(400);
    expect(answer.json()).toMatchObject({
      code: 'invalid_request',
      detail: expect.stringMatching(/^invalid select/),
    });
  });

  it('answers a body over 1 MiB 413 body_too_large', async () => {
    const answer = await c.sql(`SELECT '${'x'.repeat(1024 * 1024)}'`);
    expect(answer.status).toBe(413);
    expect(answer.json()).toMatchObject({ code: 'body_too_large' });
  });

  it('answers an unknown media type 415 unsupported_media_type', async () => {
    const answer = await c.call('/sql', { body: '<sql/>', contentType: 'application/xml' });
    expect(answer.status).toBe(415);
    expect(answer.json()).toMatchObject({ code: 'unsupported_media_type' });
  });
});

describe('GET /status, POST /models, POST /export and POST /report', () => {
  it('answers the pid and the status of each source', async () => {
    const answer = await c.call('/status');
    expect(answer.json()).toMatchObject({ pid: process.pid, sources: [{ name: 'fx', landed: 0 }] });
  });

  it('answers an unknown model 400 models_failed', async () => {
    const answer = await c.call('/models/run', {
      body: JSON.stringify({ select: ['fct_nope'] }),
      contentType: 'application/json',
    });
    expect(answer.status).toBe(400);
    expect(answer.json()).toEqual({
      code: 'models_failed',
      detail: expect.stringMatching(/no model is named fct_nope/),
    });
  });

  it.each([
    ['not a time', 'yesterday', /^invalid before: before is an ISO 8601 time/],
    ['an instant to come', '2999-01-01T00:00:00Z', /after now/],
  ])('answers a lake move before %s 400 invalid_request, moving nothing', async (_, before, detail) => {
    const answer = await c.call('/lake/move', {
      body: JSON.stringify({ before }),
      contentType: 'application/json',
    });
    expect(answer.status).toBe(400);
    expect(answer.json()).toEqual({ code: 'invalid_request', detail: expect.stringMatching(detail) });
    expect((await c.call('/status')).json().lake).toMatchObject({ files: 0, before: null });
  });

  it.each([
    ['a relative folder', () => 'exports', /^invalid to: /],
    ['a folder outside the export folder', () => join(c.dir, 'elsewhere'), /exports only into .*exports/],
  ])('refuses an export to %s before starting it', async (_, to, detail) => {
    const answer = await c.call('/export', {
      body: JSON.stringify({ to: to() }),
      contentType: 'application/json',
    });
    expect(answer.status).toBe(400);
    expect(answer.json()).toEqual({ code: 'invalid_request', detail: expect.stringMatching(detail) });
    expect(existsSync(join(c.dir, 'elsewhere'))).toBe(false);
  });

  it('streams an export failure as an NDJSON error line', async () => {
    const answer = await c.call('/export', {
      body: JSON.stringify({ to: join(c.exportsDir, 'some'), models: ['fct_nope'] }),
      contentType: 'application/json',
    });
    expect(answer.status).toBe(200);
    expect(answer.lines()).toEqual([{ error: expect.stringMatching(/fct_nope/), input: true }]);
  });

  it.each([
    [{ out: 'reports' }, /^invalid out: out must be an absolute path/],
    [{ out: '/tmp/x', window: '1y' }, /^invalid window: window must be minutes, hours or days/],
  ])('refuses the report request %j before starting it', async (payload, detail) => {
    const answer = await c.call('/report', {
      body: JSON.stringify(payload),
      contentType: 'application/json',
    });
    expect(answer.status).toBe(400);
    expect(answer.json()).toEqual({ code: 'invalid_request', detail: expect.stringMatching(detail) });
  });

  it('streams a report build as NDJSON progress lines, then its summary', async () => {
    const answer = await c.call('/report', {
      body: JSON.stringify({ out: c.reportsDir, window: '24h' }),
      contentType: 'application/json',
    });
    expect(answer.status).toBe(200);
    const lines = answer.lines();
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
    expect(result.html.startsWith(c.reportsDir)).toBe(true);
  });
});

describe('stopping the control endpoint', () => {
  it('interrupts a query in progress, which answers 503 stopping, and closes at once', async () => {
    const control = await startTestControl({ queryTimeoutMs: 600_000 });
    try {
      const running = control.sql('SELECT count(*) FROM range(1000000000000)');
      // The query is under way once the warehouse has given it DuckDB's second thread (after 100 ms).
      const threads = "SELECT current_setting('threads')::INTEGER AS threads";
      await expect
        .poll(async () => Number((await control.warehouse.query(threads))[0]?.threads), { timeout: 10_000 })
        .toBe(2);
      const closed = control.server.close().then(() => 'closed');
      const bound = new Promise((r) => setTimeout(() => r('still running'), 10_000));
      expect(await Promise.race([closed, bound])).toBe('closed');
      const answer = await running;
      expect(answer.status).toBe(503);
      expect(answer.json()).toEqual({ code: 'stopping', detail: expect.stringMatching(/stopping/) });
    } finally {
      await control.close();
    }
  });
});

describe('slow clients of the control endpoint', () => {
  it('cuts a connection whose headers or body trickle in, answering 400 invalid_request (deadlines shortened here)', async () => {
    const control = await startTestControl({
      timeouts: { headersMs: 500, requestMs: 1_000, keepAliveMs: 500, checkEveryMs: 100 },
    });
    try {
      const { port, token } = control.file;
      const host = `Host: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n`;
      const slowHeaders = await trickle(
        port,
        `GET /status HTTP/1.1\r\n${host}`,
        'X-Slow: 1\r\n'.repeat(100),
        {
          everyMs: 100,
          giveUpMs: 8_000,
        },
      );
      expect(slowHeaders.closedByServer).toBe(true);
      expect(slowHeaders.received).toMatch(
        /^HTTP\/1.1 400 [\s\S]*"code":"invalid_request","detail":"the request did not arrive in time/,
      );
      const body = 'SELECT 1 AS n'.padEnd(200, ' ');
      const head = `POST /sql HTTP/1.1\r\n${host}content-type: text/plain\r\ncontent-length: ${body.length}\r\n\r\n`;
      const slowBody = await trickle(port, head, body, { everyMs: 50, giveUpMs: 8_000 });
      expect(slowBody.closedByServer).toBe(true);
      expect(slowBody.received).not.toMatch(/columns/);
    } finally {
      await control.close();
    }
  });
});

describe('stopping the control endpoint with a reader that stopped reading', () => {
  it('closes anyway, cutting the answer', async () => {
    const control = await startTestControl({ queryTimeoutMs: 600_000 });
    try {
      const { port, token } = control.file;
      // A reader that takes the first bytes of a large answer, then reads no more (a paused pager).
      const query = "SELECT range AS n, repeat('x', 100) AS s FROM range(5000000)";
      const head = `POST /sql HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\ncontent-type: text/plain\r\ncontent-length: ${query.length}\r\n\r\n${query}`;
      const socket = connect({ host: '127.0.0.1', port });
      socket.write(head);
      await once(socket, 'data');
      socket.pause();
      await new Promise((r) => setTimeout(r, 500));
      const closed = control.server.close().then(() => 'closed');
      const bound = new Promise((r) => setTimeout(() => r('still open'), 10_000));
      expect(await Promise.race([closed, bound])).toBe('closed');
      socket.destroy();
    } finally {
      await control.close();
    }
  });
});
