/**
 * OpenAPI helpers a route uses in its schema: its own error responses, and responses with
 * headers or without a body. What every route shares (security, access and input errors,
 * operationId, tag, Retry-After) is added from the route's registration by `openapi-route.ts`.
 */
import { z } from 'zod';
import { ERROR_CODES, ERROR_TABLE, type ErrorCode, type ErrorSpec } from '../../contract/errors.js';

/**
 * Codes every keyed /v1 route can answer. The route documentation adds them by itself from
 * `config.access`; a route may still list them.
 */
export const AUTH_ERRORS: ErrorCode[] = [
  'missing_api_key',
  'invalid_api_key',
  'too_many_failed_auth',
  'ip_not_allowed',
  'rate_limit_exceeded',
];

/** The codes behind each error response schema {@link errorResponses} made. */
const codesOfResponse = new WeakMap<z.ZodType, ErrorCode[]>();

/** The error codes a response schema made by {@link errorResponses} stands for (undefined for others). */
export function errorCodesOf(response: unknown): ErrorCode[] | undefined {
  return response instanceof z.ZodType ? codesOfResponse.get(response) : undefined;
}

/**
 * Response schemas per status for the given codes (plus the generic 500), for a route's
 * `schema.response`.
 * @example response: { 200: orderSchema, ...errorResponses('not_found') }
 */
export function errorResponses(...codes: ErrorCode[]): Record<number, z.ZodType> {
  const byStatus = new Map<number, ErrorCode[]>();
  // In the table's order, whatever order the route and its access checks list them in.
  const listed = new Set<ErrorCode>([...codes, 'internal_error']);
  for (const code of ERROR_CODES.filter((c) => listed.has(c))) {
    const status = ERROR_TABLE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<number, z.ZodType> = {};
  for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b)) {
    const extra: z.ZodRawShape = {};
    for (const code of group) Object.assign(extra, (ERROR_TABLE[code] as ErrorSpec).extra);
    const schema = z
      .looseObject({
        code: z.enum(group as [ErrorCode, ...ErrorCode[]]),
        detail: z.string(),
        ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, (v as z.ZodType).optional()])),
      })
      .meta({ description: group.map((c) => `${c}: ${ERROR_TABLE[c].condition}`).join('; ') });
    codesOfResponse.set(schema, group);
    responses[status] = schema;
  }
  return responses;
}

/** Response headers by name: each value's schema, with a `description` in its meta; `.optional()` when not always sent. */
export type ResponseHeaders = Record<string, z.ZodType>;

/**
 * A response with headers, or without a body (no `body`), in the form Fastify and the document
 * both read: `{ description, content, headers }`.
 * @example 304: documentedResponse({ description: 'not modified', headers: { ETag: etagHeader } })
 */
export function documentedResponse(options: {
  description: string;
  /** The body: a JSON schema, or the schema of another media type. */
  body?: z.ZodType | { mediaType: string; schema: z.ZodType };
  headers?: ResponseHeaders;
}): { description: string; content: Record<string, { schema: z.ZodType }>; headers: ResponseHeaders } {
  const { body } = options;
  const content =
    body === undefined
      ? {}
      : body instanceof z.ZodType
        ? { 'application/json': { schema: body } }
        : { [body.mediaType]: { schema: body.schema } };
  return { description: options.description, content, headers: options.headers ?? {} };
}

/** The whole error table as the `x-error-codes` extension of the document. */
export function errorCodesExtension(): {
  'x-error-codes': { code: string; status: number; condition: string }[];
} {
  return {
    'x-error-codes': ERROR_CODES.map((code) => ({
      code,
      status: ERROR_TABLE[code].status,
      condition: ERROR_TABLE[code].condition,
    })),
  };
}
