/** A request to export that cannot be served as asked: nothing was written. */

/**
 * Bad input to an export: an unknown or unexported model, a model not built yet, a malformed day
 * or an empty range. The message says how to fix it; no file was touched.
 */
export class ExportInputError extends Error {
  override readonly name = 'ExportInputError';
}

/** True when `error` is an {@link ExportInputError}. */
export function isExportInputError(error: unknown): error is ExportInputError {
  return error instanceof ExportInputError;
}
