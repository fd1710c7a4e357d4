/**
 * What a route needs of the caller's account beyond a valid key, checked with the access checks,
 * before the request's input is read: a caller that may not use a route is told so first, not
 * after fixing a body it could never send.
 */
import { ApiError } from '../../contract/api-error.js';
import { APP_IDS, centsToUsd } from '../../contract/common.js';
import type { ErrorCode } from '../../contract/errors.js';
import type { Account } from '../core/caller.js';

/** A capability a route may require (`config.requires`), checked in the order the route lists them. */
export type Capability =
  | 'instant_sell'
  | 'active_account'
  | 'platform_account'
  | 'cs2'
  | 'external_buy'
  | 'funded';

interface CapabilityCheck {
  /** The code a caller without the capability gets. */
  code: ErrorCode;
  allows(account: Account): boolean;
  refusal(account: Account): ApiError;
}

const CHECKS: Record<Capability, CapabilityCheck> = {
  instant_sell: {
    code: 'instant_sell_not_enabled',
    allows: (account) => account.instantSell,
    refusal: () =>
      new ApiError(
        'instant_sell_not_enabled',
        'Instant Sell is invite-only and not enabled for this account; GET /sell/status tells when it is',
      ),
  },
  active_account: {
    code: 'account_restricted',
    allows: (account) => account.status !== 'restricted',
    refusal: () =>
      new ApiError('account_restricted', 'this account is restricted; contact support on the website'),
  },
  platform_account: {
    code: 'steam_account_required',
    allows: (account) => account.steamId !== null,
    refusal: () =>
      new ApiError(
        'steam_account_required',
        'link a platform account on the profile page; this endpoint works with the key owner’s own account',
      ),
  },
  cs2: {
    code: 'unsupported_game',
    allows: (account) => account.appIds.includes(APP_IDS.cs2),
    refusal: (account) =>
      new ApiError(
        'unsupported_game',
        `this endpoint serves CS2 (appId ${APP_IDS.cs2}) only, which is not available to this key`,
        { supported_app_ids: Object.values(APP_IDS).filter((id) => account.appIds.includes(id)) },
      ),
  },
  external_buy: {
    code: 'external_buy_disabled',
    allows: (account) => account.externalBuy,
    refusal: () =>
      new ApiError(
        'external_buy_disabled',
        'buying for another trade URL is not enabled on this account; ask for it on the website',
      ),
  },
  funded: {
    code: 'insufficient_settled_balance',
    allows: (account) => account.settledCents > 0,
    refusal: (account) =>
      new ApiError(
        'insufficient_settled_balance',
        'the price feed needs a funded account with settled funds',
        {
          balance_usd: centsToUsd(account.balanceCents),
          required_usd: 0.01,
          settled_usd: centsToUsd(account.settledCents),
        },
      ),
  },
};

/** Throws the refusal of the first capability the account lacks. */
export function checkCapabilities(account: Account, required: readonly Capability[]): void {
  for (const capability of required) {
    const check = CHECKS[capability];
    if (!check.allows(account)) throw check.refusal(account);
  }
}

/** The error codes the capabilities can answer, for the route's document. */
export function capabilityErrors(required: readonly Capability[]): ErrorCode[] {
  return required.map((capability) => CHECKS[capability].code);
}
