/** The base of errors that stores and domain logic throw; each feature maps its own to API errors. */

/** A refusal by the domain (not a bug): carries a stable reason and the facts a response needs. */
export class DomainError<Reason extends string = string> extends Error {
  constructor(
    readonly reason: Reason,
    message: string,
    readonly facts: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/** True when `error` is a {@link DomainError}. */
export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
