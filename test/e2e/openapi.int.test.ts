import { readFileSync } from 'node:fs';
import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_TABLE } from '../../src/contract/errors.js';
import { projectPath } from '../../src/shared/project-root.js';
import { startTestService, type TestService } from '../helpers/service.js';

let t: TestService;
let doc: any;

beforeAll(async () => {
  t = await startTestService({ listings: 10 });
  doc = (await t.call('/openapi.json')).body;
});
afterAll(() => t.close());

/** The README's error table as code → status. */
function readmeErrorTable(): Map<string, number> {
  const readme = readFileSync(projectPath('README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Errors'));
  const rows = new Map<string, number>();
  for (const match of section.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm))
    rows.set(String(match[2]), Number(match[1]));
  return rows;
}

describe('GET /v1/openapi.json', () => {
  it('serves an OpenAPI 3.1 document, version 1.0.0, without a key', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
  });

  it('passes an OpenAPI validator', async () => {
    const result = await validate(structuredClone(doc));
    expect(result.valid ? [] : result.errors).toEqual([]);
  });

  it.each([
    '/health',
    '/games',
    '/listings',
    '/prices',
    '/public/prices',
    '/currency',
    '/balance',
    '/transactions',
  ])('describes %s', (path) => {
    expect(doc.paths[path]?.get).toBeDefined();
  });

  it('names the Listing component with every field of the specification', () => {
    const listing = doc.components.schemas.Listing;
    expect(Object.keys(listing.properties)).toEqual([
      'id',
      'market_hash_name',
      'wear',
      'doppler_phase',
      'float_value',
      'paint_seed',
      'stickers',
      'price_usd',
      'category',
      'rarity',
      'image',
      'inspect_link',
      'tradable',
      'tradable_at',
      'delivery',
      'refund_percent',
      'listed_at',
      'source',
      'api_purchasable',
    ]);
  });

  const parameter = (path: string, method: string, name: string) =>
    doc.paths[path][method].parameters.find((p: any) => p.name === name);
  const bodyOf = (path: string, method: string) =>
    doc.components.schemas[
      doc.paths[path][method].requestBody.content['application/json'].schema.$ref.split('/').pop()
    ];

  it.each([
    ['/listings', 'available_after'],
    ['/orders', 'updated_after'],
    ['/p2p/listings', 'updated_after'],
    ['/sell/orders', 'updated_after'],
  ])('declares %s %s a date-time string, as the service reads it', (path, name) => {
    expect(parameter(path, 'get', name).schema).toMatchObject({ type: 'string', format: 'date-time' });
  });

  it('declares the games as the values of appId, and the narrower set where buying and selling are', () => {
    expect(parameter('/listings', 'get', 'appId').schema.enum).toEqual([730, 570, 252490]);
    expect(parameter('/orders', 'get', 'appId').schema.enum).toEqual([730, 570, 252490]);
    expect(bodyOf('/orders', 'post').properties.appId.enum).toEqual([730, 570]);
    expect(bodyOf('/sell/quotes', 'post').properties.appId.enum).toEqual([730, 570]);
  });

  it('declares arrays that must not repeat unique, and a PATCH of a webhook non-empty', () => {
    expect(bodyOf('/orders', 'post').properties.listing_ids.uniqueItems).toBe(true);
    expect(bodyOf('/market/buy', 'post').properties.listing_ids.uniqueItems).toBe(true);
    expect(bodyOf('/webhooks', 'post').properties.events.uniqueItems).toBe(true);
    expect(bodyOf('/webhooks/{id}', 'patch')).toMatchObject({ minProperties: 1 });
    expect(bodyOf('/webhooks/{id}', 'patch').properties.events.uniqueItems).toBe(true);
  });

  it('says on every number query parameter that exponent notation is refused', () => {
    const numbers = Object.values<any>(doc.paths).flatMap((item) =>
      Object.values<any>(item).flatMap((operation) =>
        (operation.parameters ?? []).filter(
          (p: any) => p.in === 'query' && ['number', 'integer'].includes(p.schema.type),
        ),
      ),
    );
    expect(numbers.length).toBeGreaterThan(10);
    for (const p of numbers) expect(p.description).toContain('exponent (1e3)');
  });

  it('declares every request body closed: unknown fields are refused, on every body', () => {
    const open: string[] = [];
    const visit = (schema: any, where: string): void => {
      const s = schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema;
      if (!s) return;
      for (const branch of s.anyOf ?? s.oneOf ?? []) visit(branch, where);
      if (s.type === 'object' && s.additionalProperties !== false) open.push(where);
      for (const [name, property] of Object.entries(s.properties ?? {})) visit(property, `${where}.${name}`);
      if (s.items) visit(s.items, `${where}[]`);
    };
    for (const [path, item] of Object.entries<any>(doc.paths))
      for (const [method, operation] of Object.entries<any>(item))
        visit(
          operation.requestBody?.content?.['application/json']?.schema,
          `${method.toUpperCase()} ${path}`,
        );
    expect(open).toEqual([]);
  });

  it('does not describe the sandbox operator endpoints', () => {
    expect(Object.keys(doc.paths).some((p) => p.includes('sandbox'))).toBe(false);
  });
});

describe('the error table', () => {
  const table = new Map(Object.entries(ERROR_TABLE).map(([code, spec]) => [code, spec.status]));

  it('is the same in the contract and the OpenAPI document, both ways', () => {
    const documented = new Map<string, number>(
      doc['x-error-codes'].map((e: { code: string; status: number }) => [e.code, e.status]),
    );
    expect(documented).toEqual(table);
  });

  it('is the same in the contract and the README, both ways', () => {
    expect(readmeErrorTable()).toEqual(table);
  });

  it('gives every error response of the document a code from the table', () => {
    for (const operations of Object.values<any>(doc.paths)) {
      for (const operation of Object.values<any>(operations)) {
        for (const [status, response] of Object.entries<any>(operation.responses ?? {})) {
          if (!(Number(status) >= 400)) continue;
          const codes: string[] = response.content['application/json'].schema.properties.code.enum;
          for (const code of codes) expect(table.get(code)).toBe(Number(status));
        }
      }
    }
  });
});
