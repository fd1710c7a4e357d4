/** A call of the client made with a missing or mistyped argument: thrown before any request is sent. */
export class ClientArgumentError extends TypeError {
  override readonly name = 'ClientArgumentError';
}

/** True for a {@link ClientArgumentError}. */
export function isClientArgumentError(error: unknown): error is ClientArgumentError {
  return error instanceof ClientArgumentError;
}
