/**
 * Who reads the history, checked before anything else as on the service: an address banned for
 * too many bad keys is refused; a missing key is 401 `missing_api_key`, an unknown one 401
 * `invalid_api_key`, both counting towards the ban; then each key's rolling-minute budget, past
 * which 429 `rate_limit_exceeded` says when to retry.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../contract/api-error.js';
import { bearerTokenOf } from '../../shared/bearer-token.js';
import { FailedAuthGuard } from '../../shared/failed-auth.js';
import { RollingWindowCounter } from '../../shared/rolling-window.js';
import { digestKey } from './keys-file.js';

/** Limits of the access checks. */
export interface HistoryAccessOptions {
  /** Digests of the accepted keys (see keys-file.ts). */
  keys: ReadonlySet<string>;
  /** Requests per key and rolling minute. @default 120 */
  ratePerMinute?: number;
  /** The clock of the windows and bans (epoch ms). @default Date.now */
  now?: () => number;
}

/** Paths open without a key: the document that says how to use the rest. */
const PUBLIC_PATHS = new Set(['/v1/history/openapi.json']);

/** The checks, ready to install; `refusal` answers a banned address even on a path no route serves. */
export function createHistoryAccess(options: HistoryAccessOptions) {
  const now = options.now ?? Date.now;
  const guard = new FailedAuthGuard();
  const limit = options.ratePerMinute ?? 120;
  const window = new RollingWindowCounter(limit, 60_000);
  const banRefusal = (request: FastifyRequest): ApiError | undefined => {
    const at = now();
    const until = guard.bannedUntil(request.ip, at);
    return until === null ? undefined : banned(until, at);
  };
  const check = (request: FastifyRequest): void => {
    const refused = banRefusal(request);
    if (refused) throw refused;
    // CORS preflights carry no key; the CORS plugin answers them.
    if (request.method === 'OPTIONS' || PUBLIC_PATHS.has(request.url.split('?')[0] ?? '')) return;
    const key = bearerTokenOf(request.headers.authorization);
    const at = now();
    if (key === undefined || !options.keys.has(digestKey(key))) {
      const until = guard.recordFailure(request.ip, at);
      if (until !== null) throw banned(until, at);
      throw key === undefined
        ? new ApiError('missing_api_key', 'send a history key as Authorization: Bearer <key>')
        : new ApiError('invalid_api_key', 'this key is not in the collector’s history keys file');
    }
    const subject = digestKey(key);
    if (window.tryAcquire(subject, at)) return;
    const seconds = Math.max(1, Math.ceil(window.retryAfter(subject, at) / 1000));
    throw new ApiError(
      'rate_limit_exceeded',
      `more than ${limit} requests in a rolling minute on this key; retry in ${seconds} s`,
      { limit, retry_after_seconds: seconds },
      { headers: { 'retry-after': String(seconds) } },
    );
  };
  return {
    banRefusal,
    /** Installs the checks as the first onRequest hook. */
    register(app: FastifyInstance): void {
      app.addHook('onRequest', (request, _reply, done) => {
        try {
          check(request);
        } catch (error) {
          done(error as Error);
          return;
        }
        done();
      });
    },
  };
}

function banned(until: number, now: number): ApiError {
  const seconds = Math.max(1, Math.ceil((until - now) / 1000));
  return new ApiError(
    'too_many_failed_auth',
    `too many invalid or missing keys from this address; banned for ${seconds} more seconds`,
    { banned_until: new Date(until).toISOString() },
    { headers: { 'retry-after': String(seconds) } },
  );
}
