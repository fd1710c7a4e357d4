/**
 * The served OpenAPI document, checked as outside tools check it: Redocly (`recommended`) and
 * Spectral (`spectral:oas`) with their default rule sets find nothing, and every operation follows
 * the route convention of `src/service/http/feature.ts`. Failures name the route and what to add.
 */
import { describe, expect, it } from 'vitest';
import { type LintProblem, lintWithRedocly, lintWithSpectral } from '../helpers/openapi-lint.js';
import { nameOf, type Operation, operationsOf } from '../helpers/openapi-responses.js';
import { serveDocument } from '../helpers/served-document.js';

const { doc } = await serveDocument();

/** What to change for a rule, in this project's terms. */
const HINTS: Record<string, string> = {
  'operation-summary': 'set schema.summary on the route',
  'operation-description': 'set schema.description on the route',
  'operation-operationId': 'set schema.operationId on the route',
  'tag-description': "describe the tag in the feature's `tags`",
  'operation-tag-defined': "describe the tag in the feature's `tags`",
  'operation-2xx-response': 'declare the success response in schema.response',
  'operation-success-response': 'declare the success response in schema.response',
  'no-invalid-schema-examples': 'make the example in src/contract valid against its schema',
  'oas3-valid-schema-example': 'make the example in src/contract valid against its schema',
  'oas3-valid-media-example': 'make the example in src/contract valid against its schema',
};

/** One line per problem: linter, rule, the operation or component it is in, message and hint. */
function describeProblem(problem: LintProblem): string {
  const where = problem.where
    .replace(/^paths\.([^.]+)\.(get|put|post|delete|patch)/, (_, path: string, method: string) => {
      const decoded = path.replaceAll('~1', '/').replaceAll('~0', '~');
      return `${method.toUpperCase()} ${decoded}`;
    })
    .replaceAll('~1', '/')
    .replace(/^tags\.(\d+)/, (_, index: string) => `tag '${doc.tags?.[Number(index)]?.name}'`);
  const hint = HINTS[problem.rule];
  return `${problem.linter} ${problem.severity} ${problem.rule} at ${where}: ${problem.message}${hint ? ` (${hint})` : ''}`;
}

describe('the OpenAPI document, linted with default rule sets', () => {
  it('has no error or warning from Redocly recommended', async () => {
    expect((await lintWithRedocly(doc)).map(describeProblem)).toEqual([]);
  });

  it('has no error or warning from Spectral spectral:oas', async () => {
    expect((await lintWithSpectral(doc)).map(describeProblem)).toEqual([]);
  });

  it('lints a document with a known flaw as flawed (the linters run)', async () => {
    const flawed = structuredClone(doc);
    delete flawed.paths['/balance'].get.operationId;
    flawed.paths['/balance'].get.security = undefined;
    const rules = [...(await lintWithRedocly(flawed)), ...(await lintWithSpectral(flawed))].map(
      (p) => p.rule,
    );
    expect(rules).toEqual(
      expect.arrayContaining(['operation-operationId', 'security-defined', 'operation-operationId']),
    );
  });
});

/** What an operation lacks by the route convention, as `METHOD /path: what to do`. */
function conventionProblems(operation: Operation): string[] {
  const { spec } = operation;
  const name = nameOf(operation);
  const problems: string[] = [];
  const responses: Record<string, any> = spec.responses ?? {};
  const codesOf = (status: string): string[] =>
    responses[status]?.content?.['application/json']?.schema?.properties?.code?.enum ?? [];
  if (!spec.summary) problems.push(`${name}: no summary (set schema.summary)`);
  if (!Array.isArray(spec.security)) problems.push(`${name}: no security (set config.access)`);
  if (!codesOf('401').includes('too_many_failed_auth'))
    problems.push(`${name}: 401 too_many_failed_auth (the address ban) not documented`);
  if (spec.security?.length > 0 && !codesOf('401').includes('missing_api_key'))
    problems.push(`${name}: keyed, but 401 missing_api_key not documented`);
  if (!codesOf('500').includes('internal_error')) problems.push(`${name}: 500 internal_error not documented`);
  for (const [status, response] of Object.entries(responses)) {
    const codes = codesOf(status);
    const retrying = codes.some((c) =>
      ['rate_limit_exceeded', 'snapshot_rate_limited', 'too_many_failed_auth', 'concurrent_update'].includes(
        c,
      ),
    );
    if (retrying && !response.headers?.['Retry-After'])
      problems.push(`${name}: ${status} carries Retry-After but does not document it`);
  }
  for (const parameter of spec.parameters ?? []) {
    const schema = parameter.schema ?? {};
    if (schema.type === 'string' && /\\d/.test(schema.pattern ?? ''))
      problems.push(
        `${name}: parameter ${parameter.name} is a number typed as a string (use queryInteger/queryNumber)`,
      );
  }
  return problems;
}

describe('every operation of the document', () => {
  it('declares its summary, security, ban and key errors, 500 and Retry-After, and numbers as numbers', () => {
    expect(operationsOf(doc).flatMap(conventionProblems)).toEqual([]);
  });

  it('prints no integer bound of ±2^53-1', () => {
    expect(JSON.stringify(doc)).not.toMatch(/9007199254740991/);
  });

  it('keeps only the component schemas the operations reach', () => {
    const text = JSON.stringify({ ...doc, components: { ...doc.components, schemas: {} } });
    const schemas = JSON.stringify(doc.components.schemas);
    for (const name of Object.keys(doc.components.schemas)) {
      const ref = `"#/components/schemas/${name}"`;
      expect(text.includes(ref) || schemas.includes(ref), name).toBe(true);
    }
  });

  it('describes the snapshot 304 without a body and with its ETag', () => {
    const notModified = doc.paths['/prices/snapshot.ndjson.gz'].get.responses['304'];
    expect(notModified.content).toBeUndefined();
    expect(notModified.headers.ETag).toBeDefined();
  });

  it('gives each operation a unique operationId', () => {
    const ids = operationsOf(doc).map((o) => o.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
