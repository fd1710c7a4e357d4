/** What Instant Sell refuses, as domain errors named by their API code, and how they become API errors. */
import { ApiError } from '../../contract/api-error.js';
import type { ErrorCode } from '../../contract/errors.js';
import { DomainError } from '../core/domain-error.js';

/** The API codes Instant Sell refuses with. */
const SELL_CODES = [
  'not_found',
  'invalid_request',
  'invalid_trade_url',
  'unsupported_game',
  'instant_sell_not_enabled',
  'account_restricted',
  'idempotency_key_mismatch',
  'sell_quote_expired',
  'sell_quote_used',
  'sell_total_below_minimum',
  'sell_nothing_to_sell',
  'inventory_blocked',
] as const satisfies readonly ErrorCode[];

/** An API code Instant Sell refuses with. */
export type SellRefusal = (typeof SELL_CODES)[number];

const CODES = new Set<string>(SELL_CODES);

/** An Instant Sell refusal; `facts` are the error body's extra fields (snake_case). */
export function refuseSell(
  code: SellRefusal,
  message: string,
  facts: Record<string, unknown> = {},
): DomainError<SellRefusal> {
  return new DomainError(code, message, facts);
}

/** The API error of an Instant Sell refusal. */
export function sellApiError(error: DomainError): ApiError | undefined {
  if (!CODES.has(error.reason)) return undefined;
  return new ApiError(error.reason as SellRefusal, error.message, error.facts);
}
