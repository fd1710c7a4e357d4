/** The warehouse's errors: the file is held by another process, or a write was rolled back. */

/** The warehouse file is open for writing elsewhere: another collector, or another process. */
export class WarehouseLockedError extends Error {
  override readonly name = 'WarehouseLockedError';

  constructor(
    readonly path: string,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(
      `the warehouse file ${path} is in use by another collector (or process): ${reason}. ` +
        'DuckDB lets one process write a file at a time; stop the other one, or give this one its own file.',
      options,
    );
  }
}

/** A `write` failed; its transaction was rolled back, so none of its rows or state landed. */
export class WarehouseWriteError extends Error {
  override readonly name = 'WarehouseWriteError';
}

/** True when `error` is a {@link WarehouseLockedError}. */
export function isWarehouseLockedError(error: unknown): error is WarehouseLockedError {
  return error instanceof WarehouseLockedError;
}

/** True when `error` is a {@link WarehouseWriteError}. */
export function isWarehouseWriteError(error: unknown): error is WarehouseWriteError {
  return error instanceof WarehouseWriteError;
}
