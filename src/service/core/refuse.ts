/**
 * The one way the service refuses a request: the contract's `ApiError`, with a code of the
 * catalogue (`contract/errors.ts`) that gives its status. A module declares the codes it may
 * refuse with as one `as const` list, throws through `refuseOnly(list)`, and its routes document
 * that same list (`errorResponses(...list)`), so a code thrown is a code documented. A broken
 * invariant is a plain `Error` and answers 500.
 */
import { ApiError, type ErrorExtra } from '../../contract/api-error.js';
import { ERROR_TABLE, type ErrorCode, type ErrorSpec } from '../../contract/errors.js';

/** A refusal with the code `Code`. */
export type Refusal<Code extends ErrorCode = ErrorCode> = ApiError & { readonly code: Code };

/** Makes the refusal to throw; `facts` are the body's extra fields (snake_case, as the table names them). */
export type Refuse<Code extends ErrorCode = ErrorCode> = <C extends Code>(
  code: C,
  detail: string,
  facts?: ErrorExtra,
) => Refusal<C>;

/**
 * The refusal `code` with `detail`; a code the table marks `retryAfter` also sends its
 * `retry_after_seconds` fact as the Retry-After header.
 * @example throw refuse('not_found', `no order ${id} on this account`);
 */
export const refuse: Refuse = <C extends ErrorCode>(code: C, detail: string, facts: ErrorExtra = {}) => {
  const retry = (ERROR_TABLE[code] as ErrorSpec).retryAfter ? facts.retry_after_seconds : undefined;
  const headers = retry === undefined ? {} : { headers: { 'retry-after': String(retry) } };
  return new ApiError(code, detail, facts, headers) as Refusal<C>;
};

/**
 * {@link refuse} accepting only the codes of `codes`: the list a module's routes document.
 * @example
 * export const CLAIM_ERRORS = ['not_found', 'not_claimable'] as const;
 * const refuseClaim = refuseOnly(CLAIM_ERRORS);
 */
export function refuseOnly<const Code extends ErrorCode>(_codes: readonly Code[]): Refuse<Code> {
  return refuse;
}
