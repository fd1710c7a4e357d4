/** Real responses checked against the OpenAPI document: status documented, body valid against its schema, headers. */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { TestResponse } from './service.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

/** One operation of the document. */
export interface Operation {
  method: string;
  /** The path template, e.g. `/orders/{id}`. */
  path: string;
  operationId: string;
  /** The operation object itself. */
  spec: any;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** Every operation of the document, in document order. */
export function operationsOf(doc: any): Operation[] {
  return Object.entries<any>(doc.paths ?? {}).flatMap(([path, item]) =>
    Object.entries<any>(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, spec]) => ({ method: method.toUpperCase(), path, operationId: spec.operationId, spec })),
  );
}

/** `METHOD /path` of an operation, for messages. */
export function nameOf(operation: Operation): string {
  return `${operation.method} ${operation.path}`;
}

/** Checks responses against the document's response schemas. */
export class ResponseChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly patterns: { operation: Operation; pattern: RegExp }[];

  constructor(doc: any) {
    addFormats(this.ajv);
    this.ajv.addFormat('binary', true);
    this.ajv.addSchema({ $id: 'openapi', components: doc.components ?? {} });
    this.patterns = operationsOf(doc).map((operation) => ({
      operation,
      pattern: new RegExp(
        `^${operation.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`,
      ),
    }));
  }

  /** The operation a request goes to; `path` is relative to /v1, without the query. Literal paths win over templates. */
  find(method: string, path: string): Operation | undefined {
    const matches = this.patterns.filter((p) => p.operation.method === method && p.pattern.test(path));
    return (matches.find((m) => !m.operation.path.includes('{')) ?? matches[0])?.operation;
  }

  /** What is wrong with a response of an operation; empty when it conforms. */
  problems(operation: Operation, response: TestResponse): string[] {
    const { status } = response;
    const responses = operation.spec.responses ?? {};
    const documented = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
    const where = `${nameOf(operation)} ${status}`;
    if (!documented) return [`${where}: status not documented (${response.text.slice(0, 200)})`];
    const problems = this.headerProblems(where, documented.headers ?? {}, response.headers);
    if (!documented.content) {
      if (response.text.length > 0)
        problems.push(`${where}: documented without a body, sent ${response.text.length} bytes`);
      return problems;
    }
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
    const media = documented.content[mediaType];
    if (!media) {
      problems.push(
        `${where}: media type ${mediaType || '(none)'} not documented (${Object.keys(documented.content)})`,
      );
      return problems;
    }
    if (mediaType !== 'application/json') return problems;
    const validate = this.validator(`${where} ${mediaType}`, media.schema);
    if (!validate(response.body)) {
      const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}`);
      problems.push(`${where}: body does not match its schema: ${errors.join('; ')}`);
    }
    return problems;
  }

  private headerProblems(where: string, headers: Record<string, any>, sent: Headers): string[] {
    const problems: string[] = [];
    for (const [name, header] of Object.entries(headers)) {
      const value = sent.get(name);
      if (value === null) {
        if (header.required) problems.push(`${where}: required header ${name} missing`);
        continue;
      }
      const type = header.schema?.type;
      const parsed = type === 'integer' || type === 'number' ? Number(value) : value;
      const validate = this.validator(`${where} header ${name}`, header.schema ?? {});
      if (!validate(parsed)) problems.push(`${where}: header ${name}: ${value} does not match its schema`);
    }
    return problems;
  }

  private validator(key: string, schema: unknown): ValidateFunction {
    let validate = this.compiled.get(key);
    if (!validate) {
      const rooted = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'));
      validate = this.ajv.compile(rooted);
      this.compiled.set(key, validate);
    }
    return validate;
  }
}
