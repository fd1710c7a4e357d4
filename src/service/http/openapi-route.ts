/**
 * The documentation every /v1 route gets from its registration alone, applied when the OpenAPI
 * document is built (the routes themselves run unchanged):
 * - `security`: none with `config.access: 'public'`, else the bearer header or the `api_key` query;
 * - the error responses its access checks and its inputs can answer: 401 for the address ban on
 *   every route, 401 missing or invalid key and 403 ip_not_allowed on keyed routes, 403
 *   trading_not_enabled on trading routes, the codes of what the route requires of the account
 *   (`config.requires`), 429 rate_limit_exceeded unless `config.rate` is
 *   'none', 400 invalid_param with a query or path schema, 400 invalid_request with a body or header
 *   schema, what reading the body can answer on every method whose body is read, with a body
 *   schema or not (`request-body.ts`: 400 invalid_request, 413 body_too_large, 415
 *   unsupported_media_type), 431 headers_too_large on every route (refused before routing),
 *   500; merged with the codes of the route's own `errorResponses(...)`, and
 *   `Retry-After` documented on every status one of whose codes carries it;
 * - `operationId`: method and path in camelCase (`GET /orders/:id` is `getOrdersById`) unless set;
 * - `tags`: the first path segment unless set (its description comes from the feature's `tags`);
 * - a description ending with who may call the route and the rate limit it counts against.
 */
import { STATUS_CODES } from 'node:http';
import type { SwaggerTransform } from '@fastify/swagger';
import type { FastifySchema } from 'fastify';
import { createJsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ERROR_TABLE, type ErrorCode, type ErrorSpec } from '../../contract/errors.js';
import { documentJsonSchema, REQUIRED_HEADER } from '../../shared/openapi-json-schema.js';
import type { AccessConfig } from './authenticate.js';
import { capabilityErrors } from './capabilities.js';
import { errorCodesOf, errorResponses, type ResponseHeaders } from './openapi.js';
import { DEFAULT_RATE_LIMITS, type RateClass } from './rate-limiter.js';
import { bodyErrorsOf } from './request-body.js';

/** The security requirement of a keyed route: the bearer header, or else the `api_key` query parameter. */
const KEYED = [{ bearer: [] }, { apiKeyQuery: [] }];

const zodTransform = createJsonSchemaTransform({ zodToJsonConfig: { override: documentJsonSchema } });

type Json = Record<string, unknown>;
type RouteSchema = FastifySchema & { operationId?: string; tags?: string[]; description?: string };

/** The `transform` of @fastify/swagger that documents a route by the convention above. */
export const documentRoute: SwaggerTransform = (input) => {
  const schema = (input.schema ?? {}) as RouteSchema & { hide?: boolean };
  if (schema.hide) return zodTransform(input);
  const config: AccessConfig = input.route.config ?? {};
  const access = config.access ?? 'key';
  const rate = config.rate ?? 'read';
  const method = [input.route.method].flat()[0] ?? 'GET';
  const path = input.url.replace(/^\/v1(?=\/)/, '');

  const { codes, kept, headers, bodyless } = sortResponses(schema);
  codes.push(
    ...accessErrors(access, rate),
    ...capabilityErrors(config.requires ?? []),
    ...inputErrors(schema),
    ...bodyErrorsOf(method),
  );
  const errors = errorResponses(...codes);
  const result = zodTransform({ ...input, schema: { ...schema, response: { ...kept, ...errors } } });
  const out = result.schema as Json & { response: Record<string, Json> };

  for (const status of bodyless)
    out.response[status] = { type: 'null', description: descriptionOf(schema, status) };
  for (const [status, named] of headers) {
    if (Object.keys(named).length > 0)
      out.response[status] = { ...out.response[status], headers: headersJson(named) };
  }
  for (const [status, response] of Object.entries(errors)) {
    const retrying = (errorCodesOf(response) ?? []).filter((c) => (ERROR_TABLE[c] as ErrorSpec).retryAfter);
    if (retrying.length === 0) continue;
    out.response[status] = {
      ...out.response[status],
      headers: { 'Retry-After': retryAfterHeader(retrying) },
    };
  }
  out.operationId = schema.operationId ?? operationIdOf(method, path);
  out.tags = schema.tags ?? [path.split('/')[1] ?? 'default'];
  out.security = access === 'public' ? [] : KEYED;
  out.description = [schema.description, accessSentence(access, rate)].filter(Boolean).join('\n\n');
  return result;
};

/** A route's responses sorted: error codes, responses for the type provider, headers, bodyless statuses. */
function sortResponses(schema: RouteSchema) {
  const codes: ErrorCode[] = [];
  const kept: Record<string, unknown> = {};
  const headers = new Map<string, ResponseHeaders>();
  const bodyless = new Set<string>();
  for (const [status, response] of Object.entries((schema.response ?? {}) as Json)) {
    const errorCodes = errorCodesOf(response);
    if (errorCodes) {
      codes.push(...errorCodes);
      continue;
    }
    if (!isDocumented(response)) {
      kept[status] = successResponse(status, response);
      continue;
    }
    headers.set(status, response.headers);
    if (Object.keys(response.content).length === 0) bodyless.add(status);
    else kept[status] = { description: response.description, content: response.content };
  }
  return { codes, kept, headers, bodyless };
}

/** Codes the access checks of a route can answer (the 500 is added by `errorResponses`). */
function accessErrors(access: NonNullable<AccessConfig['access']>, rate: AccessConfig['rate']): ErrorCode[] {
  const codes: ErrorCode[] = ['too_many_failed_auth'];
  if (access !== 'public') codes.push('missing_api_key', 'invalid_api_key', 'ip_not_allowed');
  if (access === 'trading') codes.push('trading_not_enabled');
  if (rate !== 'none') codes.push('rate_limit_exceeded');
  return codes;
}

/** Codes a route's input validation answers (its body's reading answers by its method). */
function inputErrors(schema: FastifySchema): ErrorCode[] {
  // Oversized request lines and headers are refused before routing, whatever the route.
  const codes: ErrorCode[] = ['headers_too_large'];
  if (schema.querystring || schema.params) codes.push('invalid_param');
  if (schema.body || schema.headers) codes.push('invalid_request');
  return codes;
}

/** How a rate class reads in a description (a class without a label reads as its name). */
const RATE_LABELS: Partial<Record<RateClass, string>> = {
  read: 'standard reads',
  orders: 'orders',
  p2p_write: 'P2P writes',
  sell_write: 'Instant Sell writes',
  snapshot: 'snapshots',
};

function accessSentence(
  access: NonNullable<AccessConfig['access']>,
  rate: NonNullable<AccessConfig['rate']>,
): string {
  const who =
    access === 'public'
      ? 'No API key needed.'
      : access === 'trading'
        ? 'Needs an API key with trading enabled (Authorization: Bearer, or the api_key query parameter).'
        : 'Needs an API key (Authorization: Bearer, or the api_key query parameter).';
  if (rate === 'none') return who;
  const subject = access === 'public' ? 'per client address' : 'per key';
  return `${who} Counts against the limit of ${RATE_LABELS[rate] ?? rate.replaceAll('_', ' ')}: ${DEFAULT_RATE_LIMITS[rate]} per rolling minute ${subject} (429 with Retry-After beyond it).`;
}

/** `GET /orders/:id/claim` → `getOrdersByIdClaim`. */
function operationIdOf(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? `by-${segment.slice(1)}` : segment));
  const camel = words
    .join('-')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]?.toUpperCase() + w.slice(1))
    .join('');
  return method.toLowerCase() + camel;
}

/** A JSON success response described by its status and the component it returns. */
function successResponse(status: string, response: unknown): unknown {
  if (!(response instanceof z.ZodType) || Number(status) >= 400) return response;
  const id = z.globalRegistry.get(response)?.id;
  return {
    description:
      id === undefined
        ? (STATUS_CODES[Number(status)] ?? 'Success')
        : `${STATUS_CODES[Number(status)] ?? 'Success'} (${id})`,
    content: { 'application/json': { schema: response } },
  };
}

function retryAfterHeader(codes: ErrorCode[]): Json {
  return {
    type: 'integer',
    minimum: 1,
    description: `seconds to wait before retrying (sent with ${codes.join(', ')})`,
  };
}

function headersJson(named: ResponseHeaders): Json {
  return Object.fromEntries(
    Object.entries(named).map(([name, schema]) => {
      const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'output', override: documentJsonSchema });
      // @fastify/swagger puts everything of a header into its schema; the document pass lifts this out.
      if (!schema.safeParse(undefined).success) json[REQUIRED_HEADER] = true;
      return [name, json];
    }),
  );
}

function descriptionOf(schema: RouteSchema, status: string): string {
  const response = (schema.response as Json | undefined)?.[status];
  return isDocumented(response) ? response.description : 'Default Response';
}

function isDocumented(
  response: unknown,
): response is { description: string; content: Json; headers: ResponseHeaders } {
  return (
    typeof response === 'object' &&
    response !== null &&
    !(response instanceof z.ZodType) &&
    'content' in response &&
    'headers' in response
  );
}
