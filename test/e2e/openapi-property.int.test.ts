/**
 * Property test over every operation of the served OpenAPI document (enumerated from the document,
 * so a new operation is covered by itself): requests with generated valid and invalid path, query
 * and header parameters and bodies, sent to a fresh sandbox service over loopback. For every
 * response: no status ≥ 500 (but the specification's 501 not_implemented), every error in the
 * `{ code, detail }` shape with the code's status, and every response (2xx bodies included) valid
 * against the document. And for requests valid in every part by the document: no 400 unless the
 * description of a field they sent names its code (a rule between fields, or a check no schema
 * can state), so that a client generated from the document is never refused for what it sends.
 *
 * Runs per operation and property: 50 by default (the whole file takes about 21 s on 2 cores);
 * `MARKET_PROPERTY_RUNS=500 npx vitest run --config test/vitest.config.ts test/e2e/openapi-property.int.test.ts`
 * for a longer search. A failure prints fast-check's seed and the shrunk request.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_TABLE, type ErrorCode } from '../../src/contract/errors.js';
import { nameOf, type Operation, operationsOf, ResponseChecker } from '../helpers/openapi-responses.js';
import { SchemaArbitraries } from '../helpers/schema-arbitrary.js';
import { serveDocument } from '../helpers/served-document.js';
import { read, type TestResponse } from '../helpers/service.js';

const RUNS = Number(process.env.MARKET_PROPERTY_RUNS ?? 50);

const { t, doc } = await serveDocument({
  listings: 300,
  rateLimits: { read: 1_000_000, orders: 1_000_000, p2p_write: 1_000_000, snapshot: 1_000_000 },
});
const checker = new ResponseChecker(doc);
const { key } = await t.account({ balance_usd: 1000, trading: true, external_buy: true, instant_sell: true });
const arbitraries = new SchemaArbitraries(doc, await knownStrings(), [730, 570, 252490]);

/** Strings of real responses (ids, names, a trade URL), so generated ids sometimes name real things. */
async function knownStrings(): Promise<string[]> {
  const found = new Set<string>([(await t.sandbox('/trade-urls/123457')).body.trade_url]);
  const collect = (value: unknown, name = ''): void => {
    if (typeof value === 'string' && (name === 'id' || name.endsWith('_id') || name === 'market_hash_name'))
      found.add(value);
    else if (Array.isArray(value)) for (const item of value) collect(item, name);
    else if (value !== null && typeof value === 'object')
      for (const [k, v] of Object.entries(value)) collect(v, k);
  };
  for (const path of ['/listings?limit=20&sort=price_asc', '/listings?appId=570&limit=5', '/prices?limit=5'])
    collect((await t.call(path, { key })).body);
  return [...found].slice(0, 60);
}

/** A generated request of one operation. */
interface Request {
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** The body as sent (JSON text, or malformed text). */
  body?: string;
  /** Send the key as the `api_key` query parameter instead of the header. */
  keyInQuery: boolean;
}

/** A parameter's value as text: valid for its schema when `clean`, else valid or anything. */
function parameterText(schema: unknown, header: boolean, clean: boolean): fc.Arbitrary<string> {
  const value = clean
    ? arbitraries.valid(schema as never)
    : fc.oneof(
        { weight: 1, arbitrary: arbitraries.valid(schema as never) },
        { weight: 2, arbitrary: arbitraries.invalid(schema as never) },
      );
  const text = value.map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? '')));
  if (!header) return text;
  // Header values are visible ASCII; a valid one stays valid only when it already was.
  const ascii = (v: string) => v.replace(/[^\x20-\x7e]/g, '').trim();
  return clean ? text.filter((v) => v === ascii(v)) : text.map(ascii);
}

/** Requests of an operation: mostly valid in every part, else with invalid parts mixed in. */
function requestOf(operation: Operation): fc.Arbitrary<Request> {
  return fc.oneof(
    { weight: 3, arbitrary: requestsOf(operation, true) },
    { weight: 2, arbitrary: requestsOf(operation, false) },
  );
}

function requestsOf(operation: Operation, clean: boolean): fc.Arbitrary<Request> {
  const parameters: any[] = operation.spec.parameters ?? [];
  const inPlace = (where: string) => parameters.filter((p) => p.in === where);
  const path = fc.tuple(
    ...inPlace('path').map((p) =>
      parameterText(p.schema, false, clean)
        // A path segment must not be empty or a dot segment (the URL would name another path).
        .filter((v) => v !== '' && v !== '.' && v !== '..')
        .map((v) => [p.name, v] as const),
    ),
  );
  const optionalPairs = (where: string, header: boolean) =>
    fc.tuple(
      ...inPlace(where).map((p) =>
        fc.option(
          parameterText(p.schema, header, clean).map((v) => [p.name as string, v] as const),
          {
            nil: undefined,
            // 1 in `freq` is left out: a required one seldom (never when clean), an optional one half the time.
            freq: p.required ? (clean ? 1_000_000 : 10) : 2,
          },
        ),
      ),
    );
  const bodySchema = operation.spec.requestBody?.content?.['application/json']?.schema;
  const validBody = bodySchema ? arbitraries.valid(bodySchema).map((b) => JSON.stringify(b)) : undefined;
  const body: fc.Arbitrary<string | undefined> =
    !bodySchema || !validBody
      ? fc.constant(undefined)
      : clean
        ? validBody
        : fc.oneof(
            { weight: 2, arbitrary: arbitraries.invalid(bodySchema).map((b) => JSON.stringify(b) ?? 'null') },
            { weight: 1, arbitrary: fc.constantFrom('{', 'not json', '') },
          );
  return fc
    .record({
      path,
      query: optionalPairs('query', false),
      headers: optionalPairs('header', true),
      body,
      keyInQuery: fc.boolean(),
    })
    .map(({ path: pairs, query, headers, body: text, keyInQuery }) => {
      let url = operation.path;
      for (const [name, value] of pairs) url = url.replace(`{${name}}`, encodeURIComponent(value));
      const defined = (entries: (readonly [string, string] | undefined)[]) =>
        Object.fromEntries(entries.filter((e): e is readonly [string, string] => e !== undefined));
      return {
        path: url,
        query: defined(query),
        headers: defined(headers),
        ...(text === undefined ? {} : { body: text }),
        keyInQuery,
      };
    })
    .filter(fitsHeadLimit);
}

/**
 * Keeps the request line and headers well under the 16 KiB Node takes (beyond it a request is
 * refused with 431 before any route; `test/e2e/errors.int.test.ts` covers that answer).
 */
function fitsHeadLimit(request: Request): boolean {
  const headers = Object.entries(request.headers).reduce(
    (n, [k, v]) => n + k.length + Buffer.byteLength(v),
    0,
  );
  return request.path.length + new URLSearchParams(request.query).toString().length + headers < 8192;
}

/** Sends a request; an event stream is closed once its head has arrived. */
async function send(operation: Operation, request: Request): Promise<TestResponse> {
  const query = new URLSearchParams(request.query);
  if (request.keyInQuery) query.set('api_key', key);
  const headers: Record<string, string> = { ...request.headers };
  if (!request.keyInQuery) headers.authorization = `Bearer ${key}`;
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  const abort = new AbortController();
  const response = await fetch(`${t.baseUrl}${request.path}?${query}`, {
    method: operation.method,
    headers,
    signal: abort.signal,
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    abort.abort();
    return { status: response.status, headers: response.headers, body: '', text: '' };
  }
  return read(response);
}

/**
 * True when the document predicts a 400 `code` for a request whose every part fits its schema: the
 * description of a parameter or body field the request sent names the code (a rule between
 * fields, or a check no schema can state, such as a trade URL the platform must have issued).
 */
function predicted(operation: Operation, request: Request, code: string): boolean {
  const texts: string[] = [];
  const sent: Record<string, Record<string, string>> = { query: request.query, header: request.headers };
  for (const p of operation.spec.parameters ?? [])
    if (p.in === 'path' || sent[p.in]?.[p.name] !== undefined)
      texts.push(p.description ?? '', p.schema?.description ?? '');
  const bodySchema = operation.spec.requestBody?.content?.['application/json']?.schema;
  if (request.body !== undefined && bodySchema) describedFields(bodySchema, JSON.parse(request.body), texts);
  return texts.some((text) => text.includes(code));
}

/** The descriptions of the fields of `value` under `schema` (following refs, unions and arrays). */
function describedFields(schema: any, value: unknown, texts: string[]): void {
  const s = schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema;
  if (!s) return;
  if (s.description) texts.push(s.description);
  for (const branch of s.anyOf ?? s.oneOf ?? []) describedFields(branch, value, texts);
  if (Array.isArray(value)) for (const item of value) describedFields(s.items, item, texts);
  else if (value !== null && typeof value === 'object')
    for (const [name, field] of Object.entries(value)) describedFields(s.properties?.[name], field, texts);
}

/** What is wrong with a response, by the properties of this file. */
function problemsOf(operation: Operation, response: TestResponse): string[] {
  const problems: string[] = [];
  const { status, body } = response;
  const code: unknown = body?.code;
  if (status >= 500 && !(status === 501 && code === 'not_implemented'))
    problems.push(`${status} ${response.text.slice(0, 300)}`);
  if (status >= 400) {
    const known = typeof code === 'string' && Object.hasOwn(ERROR_TABLE, code);
    if (!known || typeof body.detail !== 'string')
      problems.push(`error not in the { code, detail } shape: ${response.text}`);
    else if (ERROR_TABLE[code as ErrorCode].status !== status)
      problems.push(`${code} answered with ${status}`);
  }
  return [...problems, ...checker.problems(operation, response)];
}

describe('every operation of the OpenAPI document, with generated requests', () => {
  it.each(operationsOf(doc).map((operation) => [nameOf(operation), operation] as const))(
    '%s answers no 5xx, errors as { code, detail }, and responses valid against the document',
    async (_, operation) => {
      await fc.assert(
        fc.asyncProperty(requestOf(operation), async (request) => {
          const response = await send(operation, request);
          const problems = problemsOf(operation, response);
          if (problems.length > 0) throw new Error(problems.join('\n'));
        }),
        { numRuns: RUNS },
      );
    },
  );

  it.each(operationsOf(doc).map((operation) => [nameOf(operation), operation] as const))(
    '%s answers a valid request generated from the document with no 400 the document does not predict',
    async (_, operation) => {
      await fc.assert(
        fc.asyncProperty(requestsOf(operation, true), async (request) => {
          const response = await send(operation, request);
          if (response.status !== 400 || predicted(operation, request, String(response.body?.code))) return;
          throw new Error(`400 the document does not predict: ${response.text}`);
        }),
        { numRuns: RUNS },
      );
    },
  );

  it('covers every operation of the document', () => {
    expect(operationsOf(doc).length).toBeGreaterThan(0);
  });
});
