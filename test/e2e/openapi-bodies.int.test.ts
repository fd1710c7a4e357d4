/**
 * Every operation of the served document, sent bodies it must refuse (2 MB of JSON, a `text/xml`
 * body, a JSON text as `text/plain`, malformed JSON) over loopback with a key that passes every
 * access check: each status must be one the operation documents, and an operation whose method
 * carries a body, whether it takes one or not, must answer 413, 415, 415 and 400 (a GET's body is
 * never read). */
import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { nameOf, type Operation, operationsOf } from '../helpers/openapi-responses.js';
import { serveDocument } from '../helpers/served-document.js';

const { t, doc } = await serveDocument({
  listings: 10,
  rateLimits: { read: 10_000, orders: 10_000, p2p_write: 10_000, sell_write: 10_000, snapshot: 10_000 },
});
let key: string;

beforeAll(async () => {
  ({ key } = await t.account({ balance_usd: 100, trading: true, instant_sell: true, external_buy: true }));
});

/** Methods whose bodies the service reads (Fastify never reads one of GET, HEAD or TRACE). */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** 2 MB of JSON, twice the body limit. */
const HUGE = JSON.stringify({ filler: 'x'.repeat(2 * 1024 * 1024) });

/** The operation's path with every parameter filled in. */
function pathOf(operation: Operation): string {
  return operation.path.replace(/\{[^}]+\}/g, 'nonexistent');
}

/**
 * Sends a body with any method (fetch refuses one on a GET) and answers the status; a stream is
 * left as soon as its headers arrive.
 */
function send(
  operation: Operation,
  contentType: string,
  body: string,
): Promise<{ status: number; code?: string }> {
  const url = new URL(`${t.baseUrl}${pathOf(operation)}`);
  const keyed = operation.spec.security?.length !== 0;
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: operation.method,
        headers: {
          'content-type': contentType,
          'content-length': Buffer.byteLength(body),
          ...(keyed ? { authorization: `Bearer ${key}` } : {}),
        },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (String(response.headers['content-type']).startsWith('text/event-stream')) {
          response.destroy();
          resolve({ status });
          return;
        }
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          const json = String(response.headers['content-type']).includes('json') && text.length > 0;
          resolve({ status, code: json ? JSON.parse(text).code : undefined });
        });
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const operations = operationsOf(doc);

describe('bodies every operation refuses', () => {
  it('walks an operation of every method the document has', () => {
    expect(operations.length).toBeGreaterThan(30);
    expect(new Set(operations.map((o) => o.method))).toEqual(new Set(['GET', 'POST', 'PATCH', 'DELETE']));
  });

  it.each([
    { sent: 'a 2 MB JSON body', type: 'application/json', body: HUGE, refusal: 413, code: 'body_too_large' },
    {
      sent: 'a text/xml body',
      type: 'text/xml',
      body: '<order/>',
      refusal: 415,
      code: 'unsupported_media_type',
    },
    {
      sent: 'a JSON text sent as text/plain',
      type: 'text/plain',
      body: '{"listing_ids":["x"]}',
      refusal: 415,
      code: 'unsupported_media_type',
    },
    {
      sent: 'malformed JSON',
      type: 'application/json',
      body: '{"listing_ids":',
      refusal: 400,
      code: 'invalid_request',
    },
  ])(
    'answers $sent with a documented status, $refusal where the method carries a body',
    async ({ type, body, refusal, code }) => {
      const wrong: string[] = [];
      for (const operation of operations) {
        const answer = await send(operation, type, body);
        const documented = Object.keys(operation.spec.responses ?? {});
        if (!documented.includes(String(answer.status)))
          wrong.push(`${nameOf(operation)} ${answer.status} not documented`);
        if (BODY_METHODS.has(operation.method) && (answer.status !== refusal || answer.code !== code))
          wrong.push(`${nameOf(operation)} answered ${answer.status} ${answer.code}`);
      }
      expect(wrong).toEqual([]);
    },
  );
});
