/** Calls of the sandbox operator endpoints (`/sandbox/…`) beside a service's `/v1`, over HTTP. */

/** A method of the operator endpoints. */
export type OperatorMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Calls `/sandbox<path>` and resolves to its JSON body; a refusal rejects with the status and body. */
export type OperatorCall = (method: OperatorMethod, path: string, body?: unknown) => Promise<unknown>;

/**
 * A caller of the sandbox endpoints beside `baseUrl` (`http://host:port/v1`).
 *
 * @example
 * const sandbox = sandboxOf('http://127.0.0.1:8080/v1');
 * await sandbox('POST', '/clock', { advance_seconds: 31 });
 */
export function sandboxOf(baseUrl: string, signal?: AbortSignal): OperatorCall {
  const root = new URL('/sandbox', baseUrl).toString();
  return async (method, path, body) => {
    const response = await fetch(`${root}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      ...(signal ? { signal } : {}),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} /sandbox${path} answered ${response.status}: ${text}`);
    return text.length === 0 ? undefined : (JSON.parse(text) as unknown);
  };
}
