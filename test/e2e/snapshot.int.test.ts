import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { churnUntil } from '../helpers/churn.js';
import { startTestService, type TestService } from '../helpers/service.js';

let t: TestService;

beforeAll(async () => {
  t = await startTestService({ listings: 3000, rateLimits: { read: 1_000_000 } });
});
afterAll(() => t.close());

async function download(key: string, etag?: string) {
  const res = await fetch(`${t.baseUrl}/prices/snapshot.ndjson.gz`, {
    headers: { authorization: `Bearer ${key}`, ...(etag ? { 'if-none-match': etag } : {}) },
  });
  return { res, body: Buffer.from(await res.arrayBuffer()) };
}

async function allPrices(key: string) {
  const rows: unknown[] = [];
  let cursor: string | null = null;
  do {
    const page = await t.call(`/prices?limit=5000${cursor ? `&cursor=${cursor}` : ''}`, { key });
    rows.push(...page.body.items);
    cursor = page.body.next_cursor;
  } while (cursor);
  return rows;
}

describe('GET /v1/prices/snapshot.ndjson.gz', () => {
  it('holds exactly the CS2 rows of /prices as gzip NDJSON, with a strong ETag', async () => {
    const { key } = await t.account();
    const { res, body } = await download(key);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/gzip');
    expect(res.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(Date.parse(res.headers.get('x-generated-at') as string)).toBeGreaterThan(0);
    const lines = gunzipSync(body)
      .toString('utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual(await allPrices(key));
  });

  it('is read by DuckDB read_json as a gzip file', async () => {
    const { key } = await t.account();
    const { body } = await download(key);
    const file = join(t.dir, 'snapshot.ndjson.gz');
    await writeFile(file, body);
    const db = await DuckDBInstance.create(':memory:');
    const connection = await db.connect();
    const reader = await connection.runAndReadAll(
      `SELECT count(*) AS n, count(DISTINCT market_hash_name) AS names, min(min_ask_usd) > 0 AS positive FROM read_json('${file}')`,
    );
    const [row] = reader.getRowObjectsJS();
    connection.closeSync();
    db.closeSync();
    expect(Number(row?.n)).toBe((await allPrices(key)).length);
    expect(row?.positive).toBe(true);
  });

  it('keeps its ETag until the catalogue changes, and answers If-None-Match with 304 and no body', async () => {
    const { key } = await t.account();
    const first = await download(key);
    const etag = first.res.headers.get('etag') as string;
    await t.sandbox('/prices/rebuild', {});
    const again = await download(key, etag);
    expect(again.res.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.res.headers.get('etag')).toBe(etag);

    await churnUntil(t, { changes: 90, rate: 300 });
    const stale = await download(key, etag);
    expect(stale.res.status).toBe(304);
    await t.sandbox('/prices/rebuild', {});
    t.clock.advance(60_000);
    const changed = await download(key, etag);
    expect(changed.res.status).toBe(200);
    expect(changed.res.headers.get('etag')).not.toBe(etag);
  });

  it('allows one download per key per rolling minute, with an exact Retry-After; 304 polls are never refused', async () => {
    const { key } = await t.account();
    const first = await download(key);
    expect(first.res.status).toBe(200);
    const etag = first.res.headers.get('etag') as string;
    t.clock.advance(20_000);
    const second = await download(key);
    expect(second.res.status).toBe(429);
    expect(second.res.headers.get('retry-after')).toBe('40');
    expect(JSON.parse(second.body.toString())).toMatchObject({
      code: 'snapshot_rate_limited',
      retry_after_seconds: 40,
    });
    for (let i = 0; i < 5; i++) expect((await download(key, etag)).res.status).toBe(304);
    t.clock.advance(40_000);
    expect((await download(key)).res.status).toBe(200);
  });

  it('answers a HEAD with the headers of a download and no body, without counting it', async () => {
    const { key } = await t.account();
    for (let i = 0; i < 3; i++) {
      const head = await fetch(`${t.baseUrl}/prices/snapshot.ndjson.gz`, {
        method: 'HEAD',
        headers: { authorization: `Bearer ${key}` },
      });
      expect(head.status).toBe(200);
      expect(head.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
      expect(await head.arrayBuffer()).toHaveProperty('byteLength', 0);
    }
    const { res } = await download(key);
    expect(res.status).toBe(200);
    expect((await download(key)).res.status).toBe(429);
  });

  it('needs a funded account', async () => {
    const { key } = await t.account({ balance_usd: 0 });
    const { res, body } = await download(key);
    expect(res.status).toBe(402);
    expect(JSON.parse(body.toString()).code).toBe('insufficient_settled_balance');
  });
});
