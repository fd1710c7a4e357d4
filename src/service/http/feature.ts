/**
 * What a feature folder hands the server: its /v1 routes and its sandbox routes, each a Fastify
 * plugin, and the descriptions of the OpenAPI tags its routes use.
 *
 * How a /v1 route is written so that the OpenAPI document describes it fully (checked by
 * `test/e2e/openapi-lint.int.test.ts` with Redocly and Spectral):
 * - `config: { access, rate }` says who may call it ('public', 'key' (default) or 'trading') and
 *   which rate limit it counts against ('read' (default), 'orders', 'p2p_write', 'sell_write' or 'none'). Its
 *   security, its 401/403/429 responses and a sentence of its description follow from these.
 * - `schema.summary` (one line) and, where there is more to say, `schema.description`.
 * - `schema.querystring`, `params`, `headers` and `body` as zod schemas from `src/contract`
 *   (400 invalid_param or invalid_request follow from them); query numbers with `queryInteger` /
 *   `queryNumber`, so they are documented as numbers with their bounds.
 * - `schema.response`: the success schemas, plus `...errorResponses(<the route's own codes>)`;
 *   `documentedResponse({ description, body?, headers })` for responses with headers or without
 *   a body (a 304). Retry-After on errors is documented from the error table.
 * - `schema.tags` and `schema.operationId` are optional: the first path segment and the method
 *   plus path in camelCase are used otherwise. A tag needs a description in the feature's `tags`.
 * See `openapi-route.ts` for exactly what is derived. A feature's register function reads as the
 * list of its routes, each registered by a function named for what it does (see `ZodApi`).
 */
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';

/**
 * The app with zod schemas typing each route's input: what a function that registers one named
 * route takes (`app.withTypeProvider<ZodTypeProvider>()`).
 */
export type ZodApi = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

/** A feature's plugins; each registers its routes on the scope it is given. */
export interface Feature {
  /** Registers routes under /v1 (the access checks run before them). */
  v1?(app: FastifyInstance): void | Promise<void>;
  /** Registers operator routes under /sandbox (only with --sandbox; no key). */
  sandbox?(app: FastifyInstance): void | Promise<void>;
  /**
   * Descriptions of the OpenAPI tags the feature's /v1 routes use.
   * @example { trading: 'Orders, market buys and claims' }
   */
  tags?: Readonly<Record<string, string>>;
}
