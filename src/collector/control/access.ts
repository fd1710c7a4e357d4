/**
 * Who may use the control endpoint: the owner of the daemon alone. Every request carries the
 * per-run token of the control file (readable by the owner only), names the endpoint's own
 * loopback address as its Host (a rebound DNS name does not), and comes from no web page (no
 * Origin). Anything else is refused before its body is read, let alone parsed as SQL. A scraper
 * may also be given a metrics token that lasts across runs: it opens `GET /metrics` and nothing else.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerTokenOf, isSameToken } from '../../shared/bearer-token.js';
import { ControlError } from './errors.js';
import { CONTROL_PATHS } from './protocol.js';

/** A fresh random token for one run of the daemon. */
export function createControlToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The tokens the endpoint accepts. */
export interface ControlTokens {
  /** The per-run token of the control file: every route. */
  run: string;
  /** A token that outlives runs, for a scraper: `GET /metrics` alone. */
  metrics?: string | undefined;
}

/**
 * Refuses, in the first hook of every request: an `Origin` header or a `Host` other than
 * `host()` with 403 `forbidden`, a missing or wrong `Authorization: Bearer <token>` with 401
 * `unauthorized`.
 */
export function registerControlAccess(app: FastifyInstance, tokens: ControlTokens, host: () => string): void {
  app.addHook('onRequest', async (request) => {
    if (request.headers.origin !== undefined)
      throw new ControlError('forbidden', 'the control endpoint does not answer web pages (Origin header)');
    if (request.headers.host !== host())
      throw new ControlError('forbidden', `the control endpoint answers only to the Host ${host()}`);
    const given = bearerTokenOf(request.headers.authorization);
    if (given === undefined)
      throw new ControlError(
        'unauthorized',
        'send the token of the control file as Authorization: Bearer <token> (the market command does)',
      );
    if (isSameToken(given, tokens.run)) return;
    if (tokens.metrics !== undefined && isMetricsScrape(request) && isSameToken(given, tokens.metrics))
      return;
    throw new ControlError('unauthorized', 'the token is not the one of this run of the collector');
  });
}

/** `GET /metrics` as routed, so that a query string changes nothing. */
function isMetricsScrape(request: FastifyRequest): boolean {
  return request.method === 'GET' && request.routeOptions.url === CONTROL_PATHS.metrics;
}
