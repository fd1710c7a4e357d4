/** What Instant Sell refuses, as domain errors named by their API code, and how they become API errors. */
import type { ErrorCode } from '../../contract/errors.js';
import { codedRefusals } from '../core/coded-refusals.js';

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

const refusals = codedRefusals(SELL_CODES);

/** An Instant Sell refusal; `facts` are the error body's extra fields (snake_case). */
export const refuseSell = refusals.refuse;

/** The API error of an Instant Sell refusal. */
export const sellApiError = refusals.apiError;
