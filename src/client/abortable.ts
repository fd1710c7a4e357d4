/** Waits a caller can give up on: an AbortSignal ends them at once, whatever they wait for. */

/**
 * Settles like `promise`, or rejects with `signal.reason` as soon as `signal` aborts. What
 * `promise` resolves to after the abort is handed to `onLate` (e.g. to give back a slot nobody
 * will use).
 * @example const slot = await untilAborted(window.acquire(), signal, (late) => late.release());
 */
export function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  onLate?: (value: T) => void,
): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const abort = () => {
      if (settled) return;
      settled = true;
      reject(signal.reason);
    };
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        if (settled) onLate?.(value);
        else {
          settled = true;
          resolve(value);
        }
      },
      (error: unknown) => {
        signal.removeEventListener('abort', abort);
        if (settled) return;
        settled = true;
        reject(error);
      },
    );
  });
}
