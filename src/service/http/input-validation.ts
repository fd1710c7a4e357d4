/**
 * Validation of a route's inputs (path, query, headers, body) against its zod schema, refusing with
 * a detail that names the field, what was sent and what is accepted, e.g.
 * `body price_usd: must be a number (USD, 0.10 to 100000, multiple of 0.01); got the string "9.00"`.
 */
import type { FastifySchemaCompiler } from 'fastify';
import { z } from 'zod';
import { ApiError } from '../../contract/api-error.js';

type Issue = z.core.$ZodIssue;
type Path = readonly PropertyKey[];

/** Where an input was read from, as Fastify names it. */
export type HttpPart = 'body' | 'querystring' | 'params' | 'headers';

/** The validator compiler of every route: zod parses, a refusal is an ApiError with a precise detail. */
export const validateInput: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  const part = (httpPart ?? 'body') as HttpPart;
  return (data) => {
    const result = schema.safeParse(data);
    if (result.success) return { value: result.data };
    return { error: inputError(part, schema, result.error.issues, data) };
  };
};

/**
 * The refusal of an input: 400 invalid_param for a query or path parameter, else 400
 * invalid_request, with the detail of the issue that matters most.
 */
export function inputError(
  part: HttpPart,
  schema: z.ZodType,
  issues: readonly Issue[],
  data: unknown,
): ApiError {
  const code = part === 'querystring' || part === 'params' ? 'invalid_param' : 'invalid_request';
  return new ApiError(code, inputDetail(part, schema, issues, data));
}

/** The detail of a refused input: the field, what is accepted, and what was sent. */
export function inputDetail(
  part: HttpPart,
  schema: z.ZodType,
  issues: readonly Issue[],
  data: unknown,
): string {
  const { issue, path } = mainIssue(issues, [], data);
  const label = LABELS[part];
  const where = path.length === 0 ? `${label}:` : `${label} ${path.map(String).join('.')}:`;
  if (issue.code === 'unrecognized_keys') {
    const fields = issue.keys.join(', ');
    const accepted = acceptedFields(schema, path);
    return `${where} unknown field${issue.keys.length === 1 ? '' : 's'} ${fields}${
      accepted ? `; the fields are ${accepted}` : ''
    }`;
  }
  const sent = valueAt(data, path);
  const description = descriptionAt(schema, path);
  // Query and header values are text; a repeated one arrives as an array.
  const text = part !== 'body';
  const requirement = text && Array.isArray(sent) ? 'must be given once' : requirementOf(issue, sent);
  return `${where} ${requirement}${description ? ` (${description})` : ''}; got ${sentText(sent, text)}`;
}

const LABELS: Record<HttpPart, string> = {
  body: 'body',
  querystring: 'query parameter',
  params: 'path parameter',
  headers: 'header',
};

/**
 * The issue to report, with its full path: the first field's most telling issue, and for a body
 * that matches no branch of a union, the issue of the branch it was meant for (the one whose
 * fields it has: fewest missing and unknown fields).
 */
function mainIssue(issues: readonly Issue[], base: Path, data: unknown): { issue: Issue; path: Path } {
  const first = issues[0];
  if (!first) throw new Error('a refused input without an issue');
  const atFirst = issues.filter((i) => samePath(i.path, first.path));
  const issue = atFirst.reduce((best, i) => (rank(i) < rank(best) ? i : best), first);
  const path = [...base, ...issue.path];
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return { issue, path };
  const branches = issue.errors.filter((errors) => errors.length > 0);
  const meant = branches.reduce((best, errors) =>
    shapeMisses(errors, path, data) < shapeMisses(best, path, data) ? errors : best,
  );
  return meant ? mainIssue(meant, path, data) : { issue, path };
}

/** Which issue of one field tells most: a wrong type first, then a wrong value, then a size. */
function rank(issue: Issue): number {
  if (issue.code === 'invalid_type') return 0;
  if (issue.code === 'too_big' || issue.code === 'too_small') return 2;
  return 1;
}

/** How far an input is from a branch's shape: its missing and its unknown fields. */
function shapeMisses(errors: readonly Issue[], base: Path, data: unknown): number {
  return errors.filter(
    (i) =>
      i.code === 'unrecognized_keys' ||
      (i.code === 'invalid_type' && valueAt(data, [...base, ...i.path]) === undefined),
  ).length;
}

function samePath(a: Path, b: Path): boolean {
  return a.length === b.length && a.every((key, i) => key === b[i]);
}

/** What the field must be, in words a caller can act on. */
function requirementOf(issue: Issue, sent: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      return sent === undefined ? 'is required' : `must be ${withArticle(issue.expected)}`;
    case 'too_small':
      return sizeRequirement('at least', issue.origin, issue.minimum, issue.inclusive ?? true);
    case 'too_big':
      return sizeRequirement('at most', issue.origin, issue.maximum, issue.inclusive ?? true);
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_format':
      // A schema's own message (`must be an integer`) says it best; zod's default starts "Invalid".
      if (!/^Invalid/.test(issue.message)) return issue.message;
      return issue.format === 'regex' && issue.pattern
        ? `must match ${issue.pattern}`
        : `must be a valid ${issue.format}`;
    case 'invalid_union':
      return 'matches none of the accepted forms';
    default:
      return issue.message;
  }
}

function sizeRequirement(bound: string, origin: string, limit: number | bigint, inclusive: boolean): string {
  const value = String(limit);
  if (origin === 'string') return `must have ${bound} ${plural(Number(limit), 'character')}`;
  if (origin === 'array' || origin === 'set') return `must hold ${bound} ${plural(Number(limit), 'item')}`;
  if (inclusive) return `must be ${bound} ${value}`;
  return `must be ${bound === 'at least' ? 'greater' : 'less'} than ${value}`;
}

function withArticle(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/**
 * What was sent, short enough for a detail: values quoted with their JSON type (for text inputs,
 * the quoted text), arrays and objects by their size.
 */
function sentText(value: unknown, text: boolean): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value))
    return text ? `${value.length} values` : `an array of ${plural(value.length, 'item')}`;
  if (value !== null && typeof value === 'object') return 'an object';
  const json = JSON.stringify(value);
  const shown = json.length > 80 ? `${json.slice(0, 77)}…"` : json;
  if (text) return shown;
  return typeof value === 'string' ? `the string ${shown}` : `the ${typeof value} ${shown}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** The value at a path of the input (undefined when absent). */
function valueAt(data: unknown, path: Path): unknown {
  let value = data;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** The schema nodes of the field at a path: the field's node and the nodes it wraps. */
function nodesAt(schema: z.core.$ZodType, path: Path): z.core.$ZodType[] {
  let nodes = unwrapped(schema);
  for (const key of path) {
    const next = childOf(nodes.at(-1), key);
    if (!next) return [];
    nodes = unwrapped(next);
  }
  return nodes;
}

/** The schema of a field or element; inside a union, of the first branch that has it. */
function childOf(node: z.core.$ZodType | undefined, key: PropertyKey): z.core.$ZodType | undefined {
  const def = node?._zod.def;
  if (def?.type === 'object') return (def as z.core.$ZodObjectDef).shape[String(key)];
  if (def?.type === 'array') return (def as z.core.$ZodArrayDef).element;
  if (def?.type !== 'union') return undefined;
  for (const option of (def as z.core.$ZodUnionDef).options) {
    const child = childOf(unwrapped(option).at(-1), key);
    if (child) return child;
  }
  return undefined;
}

/** A node and the nodes it wraps: optional, nullable, default, readonly, the input side of a pipe. */
function unwrapped(schema: z.core.$ZodType): z.core.$ZodType[] {
  const chain = [schema];
  for (let node = schema; ; ) {
    const def = node._zod.def as z.core.$ZodTypeDef & { innerType?: z.core.$ZodType; in?: z.core.$ZodType };
    const next = def.type === 'pipe' ? def.in : def.innerType;
    if (!next) return chain;
    chain.push(next);
    node = next;
  }
}

/** The description the document gives the field at a path, if any. */
function descriptionAt(schema: z.ZodType, path: Path): string | undefined {
  if (path.length === 0) return undefined;
  for (const node of nodesAt(schema, path)) {
    const description = z.globalRegistry.get(node as z.ZodType)?.description;
    if (description) return description;
  }
  return undefined;
}

/** The fields an object at a path takes, for a detail about unknown ones. */
function acceptedFields(schema: z.ZodType, path: Path): string | undefined {
  const node = nodesAt(schema, path).at(-1);
  const def = node?._zod.def;
  if (def?.type !== 'object') return undefined;
  return Object.keys((def as z.core.$ZodObjectDef).shape).join(', ');
}
