/**
 * A service on an in-memory database whose routes are called in-process through `app.inject`:
 * for route-level tests where a socket adds nothing. It answers like {@link startTestService}.
 */
import { type AdjustableClock, createClock } from '../../src/service/core/clock.js';
import { openService } from '../../src/service/service.js';
import type { ServiceOptions } from '../../src/service/service-options.js';
import type { TestResponse, TestService } from './service.js';

/** The calls of a test service that need no socket. */
export type InjectedService = Pick<TestService, 'call' | 'sandbox' | 'account' | 'close'> & {
  clock: AdjustableClock;
};

/** Opens a service on `:memory:` (sandbox on, churn paused) and calls it in-process. */
export async function openInjectedService(options: ServiceOptions = {}): Promise<InjectedService> {
  const clock = options.clock ?? createClock();
  const service = await openService({
    dbPath: ':memory:',
    sandbox: true,
    listings: 500,
    churnPaused: true,
    ...options,
    clock,
  });
  const inject = async (
    url: string,
    method: string,
    body: unknown,
    headers: Record<string, string>,
  ): Promise<TestResponse> => {
    const response = await service.app.inject({
      method: method as 'GET',
      url,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    const text = response.body;
    const json = String(response.headers['content-type'] ?? '').includes('json') && text.length > 0;
    const fetchHeaders = new Headers();
    for (const [name, value] of Object.entries(response.headers))
      if (value !== undefined) fetchHeaders.set(name, String(value));
    return { status: response.statusCode, headers: fetchHeaders, body: json ? JSON.parse(text) : text, text };
  };
  const sandbox: TestService['sandbox'] = (path, body, method) =>
    inject(`/sandbox${path}`, method ?? (body === undefined ? 'GET' : 'POST'), body, {});
  return {
    clock,
    call: (path, init = {}) =>
      inject(`/v1${path}`, init.method ?? 'GET', init.body, {
        ...init.headers,
        ...(init.key === undefined ? {} : { authorization: `Bearer ${init.key}` }),
      }),
    sandbox,
    async account(body = { balance_usd: 100, trading: true }) {
      const created = await sandbox('/accounts', body);
      if (created.status !== 201) throw new Error(`account creation failed: ${created.text}`);
      return { accountId: created.body.account_id, key: created.body.api_key, keyId: created.body.key_id };
    },
    close: () => service.close(),
  };
}
