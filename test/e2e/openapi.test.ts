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
