/**
 * The access checks every /v1 request passes, in the specification's order: the address ban,
 * the key (header or `api_key` query), the key's IP allowlist, the trading flag, what the route
 * requires of the account (capabilities), the rate limit. They run before the request's input is
 * read, so a caller learns what it may not do before what it sent wrong.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../contract/api-error.js';
import type { FailedAuthGuard } from '../../shared/failed-auth.js';
import { KEY_PREFIX, keyIdOf, keyMatches } from '../core/api-keys.js';
import type { Caller, CallerDirectory } from '../core/caller.js';
import type { Clock } from '../core/clock.js';
import { isAllowed, normalizeAddress } from '../core/ip-allowlist.js';
import { type Capability, checkCapabilities } from './capabilities.js';
import type { RateClass, RollingWindowLimiter } from './rate-limiter.js';

/** What a route needs: no key, any valid key, or a trading key; and which rate class it counts in. */
export interface AccessConfig {
  access?: 'public' | 'key' | 'trading';
  /** @default 'read' */
  rate?: RateClass | 'none';
  /** What the route needs of the account, checked in this order. @default [] */
  requires?: readonly Capability[];
}

declare module 'fastify' {
  interface FastifyContextConfig extends AccessConfig {}
  interface FastifyRequest {
    auth: Caller | null;
    clientIp: string;
  }
}

/** The dependencies of the checks. */
export interface AuthenticateOptions {
  accounts: CallerDirectory;
  guard: FailedAuthGuard;
  limiter: RollingWindowLimiter;
  clock: Clock;
}

/** Installs the checks as an onRequest hook of the /v1 scope. */
export function registerAuthentication(app: FastifyInstance, options: AuthenticateOptions): void {
  app.decorateRequest('auth', null);
  app.decorateRequest('clientIp', '');
  const addresses = new Map<string, string>();
  // A callback hook: an async one costs a promise and a turn of the microtask queue per request.
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      request.clientIp = normalizedOnce(addresses, request.ip);
      checkAccess(request, options);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });
}

/** The canonical text of an address, parsed once per distinct address (up to a few thousand kept). */
function normalizedOnce(known: Map<string, string>, ip: string): string {
  let address = known.get(ip);
  if (address !== undefined) return address;
  if (known.size >= 4096) known.clear();
  address = normalizeAddress(ip);
  known.set(ip, address);
  return address;
}

/** The authenticated caller of a keyed route. */
export function authOf(request: FastifyRequest): Caller {
  if (!request.auth) throw new Error('route reached without authentication');
  return request.auth;
}

/**
 * The ban's refusal when the request's address is banned, else undefined: asked of requests for
 * paths no route serves too, since a ban answers every request from its address.
 */
export function banRefusal(
  request: FastifyRequest,
  options: Pick<AuthenticateOptions, 'guard' | 'clock'>,
): ApiError | undefined {
  const now = options.clock.now();
  const until = options.guard.bannedUntil(normalizeAddress(request.ip), now);
  return until === null ? undefined : banned(until, now);
}

function checkAccess(request: FastifyRequest, options: AuthenticateOptions): void {
  const now = options.clock.now();
  const ip = request.clientIp;
  const bannedUntil = options.guard.bannedUntil(ip, now);
  if (bannedUntil !== null) throw banned(bannedUntil, now);

  const config = request.routeOptions.config;
  const access = config.access ?? 'key';
  const rateClass = config.rate ?? 'read';
  if (access === 'public') {
    if (rateClass !== 'none') enforceRateLimit(options.limiter, addressSubject(ip), rateClass, now);
    return;
  }
  const auth = resolveKey(request, options, now);
  if (!isAllowed(ip, auth.key.ipAllowlist)) {
    throw new ApiError('ip_not_allowed', `this key does not accept requests from ${ip}`, { ip });
  }
  if (access === 'trading' && !auth.key.trading) {
    throw new ApiError(
      'trading_not_enabled',
      'trading is not enabled on this key; enable it on the profile page',
    );
  }
  if (config.requires) checkCapabilities(auth.account, config.requires);
  if (rateClass !== 'none') enforceRateLimit(options.limiter, keySubject(auth.key.id), rateClass, now);
  request.auth = auth;
}

/**
 * Gives back the rate slot the access checks took for `request`, for a route's refusal that costs
 * the caller nothing (a stream refused for the key's open streams).
 */
export function refundRateSlot(request: FastifyRequest, limiter: RollingWindowLimiter): void {
  const rateClass = request.routeOptions.config.rate ?? 'read';
  if (rateClass === 'none') return;
  limiter.release(
    request.auth ? keySubject(request.auth.key.id) : addressSubject(request.clientIp),
    rateClass,
  );
}

/** The rate subject of a key: its budget is the key's, whatever the address. */
function keySubject(keyId: string): string {
  return `key:${keyId}`;
}

/** The rate subject of an address, for the public routes. */
function addressSubject(ip: string): string {
  return `ip:${ip}`;
}

function resolveKey(request: FastifyRequest, options: AuthenticateOptions, now: number): Caller {
  const raw = presentedKey(request);
  if (raw === null || !raw.startsWith(KEY_PREFIX)) {
    return failAuth(
      request,
      options,
      now,
      new ApiError(
        'missing_api_key',
        `send an API key starting with ${KEY_PREFIX} as Authorization: Bearer <key>`,
      ),
    );
  }
  const keyId = keyIdOf(raw);
  const key = keyId === null ? undefined : options.accounts.key(keyId);
  const account = key ? options.accounts.account(key.accountId) : undefined;
  if (!key || !account || !keyMatches(raw, key.hash) || key.revokedAt !== null) {
    return failAuth(
      request,
      options,
      now,
      new ApiError('invalid_api_key', 'this API key is unknown or revoked; generate a new one'),
    );
  }
  return { key, account };
}

/** Counts a failed authentication from the caller's address; throws `error`, or the ban it triggers. */
function failAuth(
  request: FastifyRequest,
  options: AuthenticateOptions,
  now: number,
  error: ApiError,
): never {
  const until = options.guard.recordFailure(request.clientIp, now);
  throw until === null ? error : banned(until, now);
}

/**
 * The ban's check and count for a token outside /v1 (the operator's metrics token), as for a key: a
 * banned address is refused, and a wrong token (`refusal`, thrown) counts towards the ban.
 */
export function checkToken(
  request: FastifyRequest,
  options: Pick<AuthenticateOptions, 'guard' | 'clock'>,
  valid: boolean,
  refusal: () => ApiError,
): void {
  const now = options.clock.now();
  const ip = normalizeAddress(request.ip);
  const bannedUntil = options.guard.bannedUntil(ip, now);
  if (bannedUntil !== null) throw banned(bannedUntil, now);
  if (valid) return;
  const until = options.guard.recordFailure(ip, now);
  throw until === null ? refusal() : banned(until, now);
}

/** The raw key from `Authorization: Bearer …` (preferred) or the `api_key` query parameter. */
function presentedKey(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header === 'string' && header.length > 0) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1] ?? null;
  }
  const query = request.query as Record<string, unknown> | undefined;
  const fromQuery = query?.api_key;
  return typeof fromQuery === 'string' ? fromQuery : null;
}

/** Takes a rate slot or throws the class's 429 with an exact Retry-After. */
export function enforceRateLimit(
  limiter: RollingWindowLimiter,
  subject: string,
  rateClass: RateClass,
  now: number,
) {
  const decision = limiter.take(subject, rateClass, now);
  if (decision.allowed) return;
  const headers = { 'retry-after': String(decision.retryAfterSeconds) };
  if (rateClass === 'snapshot') {
    throw new ApiError(
      'snapshot_rate_limited',
      `the snapshot may be downloaded once a minute; retry in ${decision.retryAfterSeconds} s`,
      { retry_after_seconds: decision.retryAfterSeconds },
      { headers },
    );
  }
  // Public routes count per client address (`ip:…`), every other route per key (`key:…`).
  const counted = subject.startsWith('ip:') ? 'from this address' : 'on this key';
  throw new ApiError(
    'rate_limit_exceeded',
    `more than ${decision.limit} requests in a rolling minute ${counted}; retry in ${decision.retryAfterSeconds} s`,
    { limit: decision.limit, retry_after_seconds: decision.retryAfterSeconds },
    { headers },
  );
}

function banned(until: number, now: number): ApiError {
  const seconds = Math.max(1, Math.ceil((until - now) / 1000));
  return new ApiError(
    'too_many_failed_auth',
    `too many invalid or missing API keys from this address; banned for ${seconds} more seconds`,
    { banned_until: new Date(until).toISOString() },
    { headers: { 'retry-after': String(seconds) } },
  );
}
