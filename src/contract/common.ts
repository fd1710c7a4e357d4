/** Shared building blocks of the contract: games, money, timestamps, query-string scalars, pages. */
import { z } from 'zod';

/** The platform's app ids of the games the marketplace knows. */
export const APP_IDS = { cs2: 730, dota2: 570, rust: 252490 } as const;

/** The app id every endpoint assumes when `appId` is left out. @default 730 */
export const DEFAULT_APP_ID = APP_IDS.cs2;

/** Every game's app id, CS2 first. */
export const GAME_APP_IDS: readonly number[] = [APP_IDS.cs2, APP_IDS.dota2, APP_IDS.rust];

/** The games whose items can be bought and sold through the API (Rust is readable only). */
export const TRADABLE_APP_IDS: readonly number[] = [APP_IDS.cs2, APP_IDS.dota2];

/** An ISO 8601 UTC timestamp with milliseconds, e.g. `2026-11-21T12:00:00.000Z`. */
export const timestampSchema = z.iso.datetime({ offset: false, precision: 3 }).meta({
  description: 'ISO 8601 UTC timestamp with milliseconds',
  example: '2026-11-21T12:00:00.000Z',
});

/**
 * The text of a query-string timestamp: an RFC 3339 date-time (T and Z in either case, any
 * fraction of a second), or the same without seconds.
 */
const QUERY_TIMESTAMP = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(:\d{2}(\.\d{1,20})?)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Epoch milliseconds of a query-string timestamp; undefined for text that is not one or not a real date. */
export function parseQueryTimestamp(text: string): number | undefined {
  if (text.length > 40 || !QUERY_TIMESTAMP.test(text)) return undefined;
  const ms = Date.parse(text.toUpperCase());
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * A query-string timestamp (RFC 3339 date-time, any offset; seconds optional), as epoch
 * milliseconds; documented as the string it is (`format: date-time`).
 */
export function timestampQuery() {
  return z
    .string()
    .max(40)
    .meta({ format: 'date-time' })
    .transform((text, ctx) => {
      const ms = parseQueryTimestamp(text);
      if (ms !== undefined) return ms;
      ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 timestamp such as 2026-11-21T12:00:00Z' });
      return z.NEVER;
    });
}

/** The change-feed filter of an account's list endpoints (`GET /orders`, `/p2p/listings`, `/sell/orders`). */
export const updatedAfterSchema = timestampQuery().meta({
  description:
    'Change feed: only rows whose updated_at is strictly later than this ISO 8601 instant, oldest change first (updated_at, then id) instead of newest first; next_cursor continues the feed. To follow it exactly, keep the greatest updated_at seen, ask again from it minus a few seconds of overlap, and dedupe on (id, updated_at). Example: 2026-11-21T12:00:00.000Z',
});

/** A USD amount as a number with at most 2 decimals. */
export const usdSchema = z.number().meta({ description: 'USD amount, 2 decimals', example: 12.34 });

/** Opaque keyset cursor: pass `next_cursor` back unchanged. */
export const cursorSchema = z.string().max(512).meta({
  description:
    'opaque cursor: next_cursor of the previous page, unchanged; any other value is 400 invalid_param',
});

/** The text of a query-string decimal number. */
export const QUERY_DECIMAL = /^-?(?:\d+(?:\.\d*)?|\.\d+)$/;
/** The text of a query-string integer. */
export const QUERY_INTEGER = /^-?\d+$/;

/** A query-string decimal number within bounds; empty, exponent and hex forms are refused. */
export function queryNumber(min: number, max: number) {
  return z
    .string()
    .max(32)
    .regex(QUERY_DECIMAL, 'must be a decimal number')
    .transform(Number)
    .pipe(z.number().min(min).max(max));
}

/** A query-string integer within bounds. */
export function queryInteger(min: number, max: number) {
  return z
    .string()
    .max(16)
    .regex(QUERY_INTEGER, 'must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
}

/** A short free-text query-string value (names, categories). */
export function queryText(max = 200) {
  return z.string().min(1).max(max);
}

/**
 * The `appId` query parameter: documented as the games; any other integer is 400
 * unsupported_game, as is a game the key may not use (checked by the service).
 */
export const appIdParam = queryInteger(0, 2 ** 31 - 1).meta({
  description: 'platform app id: 730 CS2 (default), 570 Dota 2, 252490 Rust',
  enum: [...GAME_APP_IDS],
});

/** A keyset page of `items`. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    next_cursor: z.string().nullable().meta({ description: 'null on the last page' }),
  });
}

/** Converts integer cents to a USD number with 2 decimals. */
export function centsToUsd(cents: number): number {
  return Math.round(cents) / 100;
}

/** Converts a USD number to integer cents, rounding half away from zero at the third decimal. */
export function usdToCents(usd: number): number {
  return Math.round(usd * 100 + (usd >= 0 ? 1e-7 : -1e-7));
}

/** True when a USD number is a whole number of cents (12.34 yes, 12.345 no). */
export function isWholeCents(usd: number): boolean {
  return Math.abs(usd * 100 - Math.round(usd * 100)) < 1e-6;
}

/** The page parameters of an account's list endpoints that follow changes: limit, cursor, updated_after. */
export const changeFeedQuery = {
  limit: queryInteger(1, 100).optional().meta({ description: '1-100, default 50' }),
  cursor: cursorSchema.optional(),
  updated_after: updatedAfterSchema.optional(),
};
