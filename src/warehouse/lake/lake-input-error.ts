/** A move the lake cannot make as asked: nothing was written. */

/** Bad input to a move (an instant not given as ISO 8601, or one still to come); the message says which. */
export class LakeInputError extends Error {
  override readonly name = 'LakeInputError';
}

/** True when `error` is a {@link LakeInputError}. */
export function isLakeInputError(error: unknown): error is LakeInputError {
  return error instanceof LakeInputError;
}
