/** A model file the runner refuses: the analyst's to fix, so it names the model, its file and why. */

/** A model's header or its references are wrong (a user's mistake, not a failure of the build). */
export class ModelFileError extends Error {
  override readonly name = 'ModelFileError';

  constructor(
    readonly model: string,
    readonly file: string,
    why: string,
  ) {
    super(`model ${model} (${file}): ${why}`);
  }
}

/** True when `error` is a {@link ModelFileError}. */
export function isModelFileError(error: unknown): error is ModelFileError {
  return error instanceof ModelFileError;
}
