/** What P2P refuses, as domain errors named by their API code, and how they become API errors. */
import { ApiError } from '../../contract/api-error.js';
import type { ErrorCode } from '../../contract/errors.js';
import { codedRefusals } from '../core/coded-refusals.js';
import type { DomainError } from '../core/domain-error.js';

/** The API codes P2P refuses with. */
export const P2P_CODES = [
  'not_found',
  'invalid_request',
  'unsupported_item',
  'steam_account_required',
  'idempotency_in_progress',
  'idempotency_key_mismatch',
  'idempotency_key_consumed',
  'asset_revision_changed',
  'already_listed',
  'listing_not_active',
  'inventory_pending',
  'inventory_blocked',
  'price_below_market',
] as const satisfies readonly ErrorCode[];

/** An API code P2P refuses with. */
export type P2PRefusal = (typeof P2P_CODES)[number];

const refusals = codedRefusals(P2P_CODES);

/** A P2P refusal; `facts` are the error body's extra fields (snake_case). */
export const refuseP2P = refusals.refuse;

/** The API error of a P2P refusal; a listing that cannot take a step is `listing_not_active`. */
export function p2pApiError(error: DomainError): ApiError | undefined {
  if (error.reason === 'listing_state')
    return new ApiError('listing_not_active', error.message, { status: error.facts.status });
  return refusals.apiError(error);
}
