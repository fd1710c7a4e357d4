/**
 * The error table of the specification, as data: every code with its HTTP status, the condition
 * it stands for and the extra fields its body carries. Service, client, OpenAPI and README all
 * derive from this one table.
 */
import { z } from 'zod';

const usd = z.number();

/** One row of the error table. */
export interface ErrorSpec {
  /** HTTP status the code is answered with. */
  status: number;
  /** When the code is answered, in the words of the specification. */
  condition: string;
  /** Extra body fields beside `code` and `detail`. */
  extra?: z.ZodRawShape;
  /** The response carries a `Retry-After` header (integer seconds). @default false */
  retryAfter?: boolean;
}

/** Every error code of the API. Order follows the specification's table. */
export const ERROR_TABLE = {
  invalid_param: {
    status: 400,
    condition:
      'malformed query parameter, CS2-only parameter with another appId, bad available_after, delivery outside its three values, min_refund_percent outside 0-100',
  },
  unsupported_game: {
    status: 400,
    condition: 'appId not usable by the key',
    extra: { supported_app_ids: z.array(z.number().int()) },
  },
  invalid_request: { status: 400, condition: 'malformed body or parameters; unknown webhook event type' },
  unsupported_item: {
    status: 400,
    condition: 'item cannot be bought through the API',
    extra: { unsupported_ids: z.array(z.string()) },
  },
  invalid_trade_url: { status: 400, condition: 'trade URL on POST /market/buy malformed or private' },
  cannot_mix_sources: { status: 400, condition: 'one order mixes external-market and platform items' },
  one_external_per_order: { status: 400, condition: 'more than one external-market item in an order' },
  invalid_webhook_url: {
    status: 400,
    condition: 'not absolute HTTPS, embeds credentials, or resolves to a private address',
  },
  missing_api_key: { status: 401, condition: 'no key, or it does not start with svc_pub_' },
  invalid_api_key: { status: 401, condition: 'unknown or revoked key' },
  too_many_failed_auth: {
    status: 401,
    condition: 'IP ban after more than 30 bad keys in a minute (5 minutes)',
    extra: { banned_until: z.string() },
    retryAfter: true,
  },
  insufficient_balance: {
    status: 402,
    condition: 'balance below the order total',
    extra: { balance_usd: usd, required_usd: usd, settled_usd: usd },
  },
  insufficient_settled_balance: {
    status: 402,
    condition:
      'balance covers the total but part is still in the reversal window and cannot fund external delivery; also the price feed requires a funded account',
    extra: { balance_usd: usd, required_usd: usd, settled_usd: usd },
  },
  ip_not_allowed: { status: 403, condition: 'key IP allowlist', extra: { ip: z.string() } },
  trading_not_enabled: { status: 403, condition: 'trading not enabled on the key' },
  account_restricted: { status: 403, condition: 'account restricted' },
  steam_account_required: {
    status: 403,
    condition: 'no platform account linked and the order delivers to the key owner',
  },
  external_buy_disabled: { status: 403, condition: 'deliver-to-any-trade-URL buying not enabled' },
  instant_sell_not_enabled: {
    status: 403,
    condition:
      'Instant Sell is invite-only and not granted to this account (every /sell endpoint but GET /sell/status; added: the specification shows no Instant Sell codes)',
  },
  kyc_required: {
    status: 403,
    condition: 'purchase tripped a verification threshold',
    extra: { threshold_usd: usd },
  },
  not_found: {
    status: 404,
    condition: 'no such webhook or delivery on the account; unknown path or resource',
  },
  price_moved: {
    status: 409,
    condition: 'live price rose above max_price_usd; nothing charged',
    extra: { current_total_usd: usd, max_price_usd: usd },
  },
  item_unavailable: {
    status: 409,
    condition: 'listing sold before the order landed',
    extra: { unavailable_ids: z.array(z.string()) },
  },
  pending_trades_limit: {
    status: 409,
    condition: 'recipient has too many unaccepted offers',
    extra: { limit: z.number().int() },
  },
  idempotency_in_progress: {
    status: 409,
    condition: 'a request with the same Idempotency-Key / custom_id is still running',
  },
  price_updating: { status: 409, condition: 'prices mid-refresh' },
  not_claimable: { status: 409, condition: 'order not in a claimable state' },
  concurrent_update: {
    status: 409,
    condition:
      'lost a race on the same items; transaction rolled back whole, nothing charged or reserved; carries Retry-After',
    extra: { retry_after_seconds: z.number().int() },
    retryAfter: true,
  },
  too_many_webhooks: { status: 409, condition: '5 endpoints already registered' },
  already_delivered: { status: 409, condition: 'retry of a delivery that already succeeded' },
  idempotency_key_mismatch: {
    status: 409,
    condition:
      'P2P key reused with a different price or revision; also (designed) an Instant Sell external_id reused with another quote_id or min_total_usd',
  },
  idempotency_key_consumed: {
    status: 409,
    condition: 'an earlier P2P attempt failed part-way; retry with a new key',
  },
  asset_revision_changed: {
    status: 409,
    condition: 'the item changed since the inventory was read; read it again',
  },
  already_listed: {
    status: 409,
    condition:
      'P2P: the copy already has a listing on the shelf or mid-sale (added: a designed P2P code); carries listing_id',
    extra: { listing_id: z.string() },
  },
  listing_not_active: {
    status: 409,
    condition:
      'P2P: only an active listing can be repriced, and only an active or reconciliation_required one delisted; any other answers this (added: a designed P2P code); carries status, one of the five; an ended listing is 404 not_found',
    extra: { status: z.string() },
  },
  inventory_pending: {
    status: 409,
    condition:
      'P2P and Instant Sell quotes: the platform is still reading a fresh inventory; call again after retry_after_ms (added: a designed code); does not consume the Idempotency-Key',
    extra: { retry_after_ms: z.number().int() },
  },
  inventory_blocked: {
    status: 409,
    condition:
      'P2P and Instant Sell quotes: the inventory proof is blocked; proof_code says what to fix on the platform (added: a designed code); does not consume the Idempotency-Key',
    extra: { proof_code: z.string() },
  },
  sell_quote_expired: {
    status: 409,
    condition: 'the Instant Sell quote is past its expires_at; ask for a new quote (added)',
    extra: { expired_at: z.string() },
  },
  sell_quote_used: {
    status: 409,
    condition:
      'the Instant Sell quote already became an order (its id is in order_id); a quote sells once (added)',
    extra: { order_id: z.string() },
  },
  sell_total_below_minimum: {
    status: 409,
    condition:
      'the total an Instant Sell order would credit is below min_total_usd; nothing was sent (added)',
    extra: { total_usd: usd, min_total_usd: usd },
  },
  sell_nothing_to_sell: {
    status: 409,
    condition: 'no item of the Instant Sell quote is eligible and still in the inventory (added)',
  },
  price_below_market: {
    status: 422,
    condition:
      'P2P price under half the market price (no floor when no market price exists); does not consume the Idempotency-Key',
    extra: { market_usd: usd, floor_usd: usd },
  },
  method_not_allowed: {
    status: 405,
    condition:
      'the path exists but not with this method; the Allow header lists the methods it takes (added: not in the specification table)',
  },
  body_too_large: {
    status: 413,
    condition:
      'the request body is over 1 MiB, on any POST, PATCH or DELETE, whether it takes a body or not (added: not in the specification table)',
  },
  unsupported_media_type: {
    status: 415,
    condition:
      'a request body that is not application/json (text/plain included), on any POST, PATCH or DELETE, whether it takes a body or not (added: not in the specification table)',
  },
  rate_limit_exceeded: {
    status: 429,
    condition: 'per-key limit; Retry-After header gives integer seconds',
    extra: { limit: z.number().int(), retry_after_seconds: z.number().int() },
    retryAfter: true,
  },
  snapshot_rate_limited: {
    status: 429,
    condition: 'snapshot polled more than once a minute',
    extra: { retry_after_seconds: z.number().int() },
    retryAfter: true,
  },
  too_many_streams: {
    status: 429,
    condition:
      'more than 3 concurrent streams on one key; carries Retry-After, and the refused attempt does not count against the rate limit',
    extra: { limit: z.number().int(), retry_after_seconds: z.number().int() },
    retryAfter: true,
  },
  headers_too_large: {
    status: 431,
    condition:
      'the request line and headers exceed 16 KiB, refused before any route (added: not in the specification table)',
  },
  internal_error: {
    status: 500,
    condition:
      'unexpected failure outside order placement; no internals are disclosed (added: not in the specification table)',
  },
  order_failed: { status: 500, condition: 'unexpected failure; the order may exist, check by custom_id' },
  not_implemented: { status: 501, condition: 'withdrawals are website-only' },
  market_unavailable: { status: 503, condition: 'upstream source down; no charge' },
  upstream_timeout: {
    status: 504,
    condition:
      'purchase outcome unknown (POST /orders, POST /market/buy); the idempotency claim is held, so resending the same custom_id replays the original outcome',
  },
} as const satisfies Record<string, ErrorSpec>;

/** One of the API's error codes. */
export type ErrorCode = keyof typeof ERROR_TABLE;

/** Every error code, in table order. */
export const ERROR_CODES = Object.keys(ERROR_TABLE) as ErrorCode[];

/** The body every error response has: `{ code, detail, ...extra }`; clients ignore unknown fields. */
export const errorBodySchema = z
  .looseObject({
    code: z.string().meta({ description: 'machine-readable code; branch on it' }),
    detail: z.string().meta({ description: 'human-readable explanation' }),
  })
  .meta({ id: 'Error', description: 'Error body; some codes add fields (see the error table).' });

/** An error body as received. */
export type ErrorBody = z.infer<typeof errorBodySchema>;
