/**
 * The history endpoint's OpenAPI 3.1 document, served at `/v1/history/openapi.json`: built from the
 * same zod schemas the routes parse and answer with (history-schemas.ts), read as the service's
 * document reads them (src/shared/openapi-json-schema.ts).
 */
import { z } from 'zod';
import { ERROR_TABLE, type ErrorCode } from '../../contract/errors.js';
import {
  candlesAnswerSchema,
  candlesQuerySchema,
  historyErrorSchema,
  itemsAnswerSchema,
  itemsQuerySchema,
  moversAnswerSchema,
  moversQuerySchema,
  statsAnswerSchema,
  statsQuerySchema,
} from '../../contract/history.js';
import { documentJsonSchema } from '../../shared/openapi-json-schema.js';

/** Paths of the endpoint. */
export const HISTORY_PATHS = {
  candles: '/v1/history/candles',
  items: '/v1/history/items',
  stats: '/v1/history/stats',
  movers: '/v1/history/movers',
  openapi: '/v1/history/openapi.json',
} as const;

/** Error codes any keyed route may answer, besides its own. */
const ACCESS_ERRORS: ErrorCode[] = [
  'missing_api_key',
  'invalid_api_key',
  'too_many_failed_auth',
  'rate_limit_exceeded',
  'market_unavailable',
];

function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _, ...json } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    override: documentJsonSchema,
  }) as Record<string, unknown>;
  return json;
}

function parametersOf(schema: z.ZodObject): unknown[] {
  const json = jsonSchemaOf(schema, 'input') as { properties: Record<string, unknown>; required?: string[] };
  return Object.entries(json.properties).map(([name, property]) => ({
    name,
    in: 'query',
    required: json.required?.includes(name) ?? false,
    schema: property,
  }));
}

function errorResponses(codes: ErrorCode[]): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_TABLE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      String(status),
      {
        description: list.join(', '),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    ]),
  );
}

function okResponse(schema: z.ZodType, description: string): Record<string, unknown> {
  return { description, content: { 'application/json': { schema: jsonSchemaOf(schema, 'output') } } };
}

/** The document, built once. */
export function buildHistoryDocument(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Price history of the market-data collector',
      version: '1.0.0',
      description:
        'Candles and item groups from the collector’s warehouse (the file and the lake as one history). A candle whose bucket is still open, or overlaps a span where collection was down, says `complete: false` with that span.',
    },
    components: {
      securitySchemes: { key: { type: 'http', scheme: 'bearer' } },
      schemas: { Error: jsonSchemaOf(historyErrorSchema, 'output') },
    },
    security: [{ key: [] }],
    paths: {
      [HISTORY_PATHS.candles]: {
        get: {
          operationId: 'getCandles',
          summary:
            'OHLC of the cheapest ask per bucket, with the listed count and listings that came and went',
          parameters: parametersOf(candlesQuerySchema),
          responses: {
            '200': okResponse(candlesAnswerSchema, 'one page of buckets; ETag when every bucket is complete'),
            '304': { description: 'the range is closed and If-None-Match names its ETag' },
            ...errorResponses(['invalid_param', 'not_found', ...ACCESS_ERRORS]),
          },
        },
      },
      [HISTORY_PATHS.items]: {
        get: {
          operationId: 'listItems',
          summary: 'item groups with a price history',
          parameters: parametersOf(itemsQuerySchema),
          responses: {
            '200': okResponse(itemsAnswerSchema, 'one page of item groups'),
            ...errorResponses(['invalid_param', ...ACCESS_ERRORS]),
          },
        },
      },
      [HISTORY_PATHS.stats]: {
        get: {
          operationId: 'getStats',
          summary: 'figures of the cheapest ask and the listings of one item group over a window ending now',
          parameters: parametersOf(statsQuerySchema),
          responses: {
            '200': okResponse(statsAnswerSchema, 'the figures'),
            ...errorResponses(['invalid_param', 'not_found', ...ACCESS_ERRORS]),
          },
        },
      },
      [HISTORY_PATHS.movers]: {
        get: {
          operationId: 'listMovers',
          summary: 'item groups ranked by the change of their hourly close or by listings that came and went',
          parameters: parametersOf(moversQuerySchema),
          responses: {
            '200': okResponse(moversAnswerSchema, 'the ranking'),
            ...errorResponses(['invalid_param', ...ACCESS_ERRORS]),
          },
        },
      },
      [HISTORY_PATHS.openapi]: {
        get: {
          operationId: 'getHistoryOpenApi',
          summary: 'this document',
          security: [],
          responses: {
            '200': { description: 'the OpenAPI 3.1 document', content: { 'application/json': {} } },
          },
        },
      },
    },
  };
}
