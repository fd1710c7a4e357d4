/**
 * Refusals named by the API code they answer with: a feature lists its codes once and gets the
 * function that makes a refusal and the one that turns it into its API error.
 */
import { ApiError } from '../../contract/api-error.js';
import type { ErrorCode } from '../../contract/errors.js';
import { DomainError } from './domain-error.js';

/** Making and answering the refusals of one feature. */
export interface CodedRefusals<Code extends ErrorCode> {
  /** A refusal; `facts` are the error body's extra fields (snake_case). */
  refuse(code: Code, message: string, facts?: Record<string, unknown>): DomainError<Code>;
  /**
   * The API error of one of these refusals, or undefined for another feature's; a
   * `retry_after_seconds` fact is also sent as Retry-After.
   */
  apiError(error: DomainError): ApiError | undefined;
}

/** The refusals of the codes `codes`. */
export function codedRefusals<Code extends ErrorCode>(codes: readonly Code[]): CodedRefusals<Code> {
  const known = new Set<string>(codes);
  return {
    refuse: (code, message, facts = {}) => new DomainError(code, message, facts),
    apiError(error) {
      if (!known.has(error.reason)) return undefined;
      const retry = error.facts.retry_after_seconds;
      return new ApiError(
        error.reason as Code,
        error.message,
        error.facts as never,
        retry === undefined ? {} : { headers: { 'retry-after': String(retry) } },
      );
    },
  };
}
