/** OpenAPI helpers: error responses of a route, and the error table as a document extension. */
import { z } from 'zod';
import { ERROR_CODES, ERROR_TABLE, type ErrorCode, type ErrorSpec } from '../../contract/errors.js';

/** Codes every authenticated /v1 route can answer. */
export const AUTH_ERRORS: ErrorCode[] = [
  'missing_api_key',
  'invalid_api_key',
  'too_many_failed_auth',
  'ip_not_allowed',
  'rate_limit_exceeded',
];

/** Response schemas per status for the given codes (plus the generic 500), for a route's `schema.response`. */
export function errorResponses(...codes: ErrorCode[]): Record<number, z.ZodType> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...new Set<ErrorCode>([...codes, 'internal_error'])]) {
    const status = ERROR_TABLE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<number, z.ZodType> = {};
  for (const [status, group] of byStatus) {
    const extra: z.ZodRawShape = {};
    for (const code of group) Object.assign(extra, (ERROR_TABLE[code] as ErrorSpec).extra);
    responses[status] = z
      .looseObject({
        code: z.enum(group as [ErrorCode, ...ErrorCode[]]),
        detail: z.string(),
        ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, (v as z.ZodType).optional()])),
      })
      .meta({ description: group.map((c) => `${c}: ${ERROR_TABLE[c].condition}`).join('; ') });
  }
  return responses;
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
