/** What trading refuses, as domain errors named by their API code, and how they become API errors. */
import type { ErrorCode } from '../../contract/errors.js';
import { codedRefusals } from '../core/coded-refusals.js';

/** The API codes trading refuses with. */
const TRADING_CODES = [
  'not_found',
  'invalid_request',
  'unsupported_game',
  'unsupported_item',
  'invalid_trade_url',
  'cannot_mix_sources',
  'one_external_per_order',
  'account_restricted',
  'steam_account_required',
  'external_buy_disabled',
  'kyc_required',
  'price_moved',
  'item_unavailable',
  'pending_trades_limit',
  'idempotency_in_progress',
  'idempotency_key_mismatch',
  'price_updating',
  'not_claimable',
  'concurrent_update',
  'order_failed',
  'market_unavailable',
  'upstream_timeout',
] as const satisfies readonly ErrorCode[];

/** An API code trading refuses with. */
export type TradingRefusal = (typeof TRADING_CODES)[number];

const refusals = codedRefusals(TRADING_CODES);

/** A trading refusal; `facts` are the error body's extra fields (snake_case). */
export const refuse = refusals.refuse;

/** The API error of a trading refusal (a `retry_after_seconds` fact also becomes Retry-After). */
export const tradingApiError = refusals.apiError;
