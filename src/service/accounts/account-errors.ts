/** What the accounts feature refuses, as domain errors, and how each becomes an API error. */
import { ApiError } from '../../contract/api-error.js';
import { centsToUsd } from '../../contract/common.js';
import { DomainError } from '../core/domain-error.js';

/** Reasons the accounts feature refuses something. */
export type AccountRefusal =
  | 'unknown_account'
  | 'unknown_key'
  | 'insufficient_balance'
  | 'insufficient_settled_balance';

/** Money facts of a refused debit, in cents. */
export interface ShortfallFacts {
  balanceCents: number;
  settledCents: number;
  requiredCents: number;
}

/** The refusal for an unknown account id. */
export function unknownAccount(id: string): DomainError<AccountRefusal> {
  return new DomainError('unknown_account', `no account ${id}`);
}

/** The refusal for an unknown key id. */
export function unknownKey(id: string): DomainError<AccountRefusal> {
  return new DomainError('unknown_key', `no key ${id}`);
}

/** A debit the balance (or its settled part) cannot cover. */
export function shortfall(
  reason: 'insufficient_balance' | 'insufficient_settled_balance',
  facts: ShortfallFacts,
): DomainError<AccountRefusal> {
  const message =
    reason === 'insufficient_balance'
      ? 'the balance is below the order total; fund the account on the website'
      : 'part of the balance is still inside the reversal window and cannot fund this; wait for it to settle';
  return new DomainError(reason, message, { ...facts });
}

/** The API error of an accounts refusal, or undefined for another feature's error. */
export function accountApiError(error: DomainError): ApiError | undefined {
  switch (error.reason as AccountRefusal) {
    case 'unknown_account':
    case 'unknown_key':
      return new ApiError('not_found', error.message);
    case 'insufficient_balance':
    case 'insufficient_settled_balance': {
      const facts = error.facts as unknown as ShortfallFacts;
      return new ApiError(error.reason as 'insufficient_balance', error.message, {
        balance_usd: centsToUsd(facts.balanceCents),
        required_usd: centsToUsd(facts.requiredCents),
        settled_usd: centsToUsd(facts.settledCents),
      });
    }
    default:
      return undefined;
  }
}
