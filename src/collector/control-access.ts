/**
 * Who may use the control endpoint: the owner of the daemon alone. Every request carries the
 * per-run token of the control file (readable by the owner only), names the endpoint's own
 * loopback address as its Host (a rebound DNS name does not), and comes from no web page (no
 * Origin). Anything else is refused before its body is read, let alone parsed as SQL.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ControlError } from './control-errors.js';

/** A fresh random token for one run of the daemon. */
export function createControlToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Refuses, in the first hook of every request: an `Origin` header or a `Host` other than
 * `host()` with 403 `forbidden`, a missing or wrong `Authorization: Bearer <token>` with 401
 * `unauthorized`.
 */
export function registerControlAccess(app: FastifyInstance, token: string, host: () => string): void {
  const expected = Buffer.from(token);
  app.addHook('onRequest', async (request) => {
    if (request.headers.origin !== undefined)
      throw new ControlError('forbidden', 'the control endpoint does not answer web pages (Origin header)');
    if (request.headers.host !== host())
      throw new ControlError('forbidden', `the control endpoint answers only to the Host ${host()}`);
    const given = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (given === undefined)
      throw new ControlError(
        'unauthorized',
        'send the token of the control file as Authorization: Bearer <token> (the market command does)',
      );
    const candidate = Buffer.from(given);
    if (candidate.length !== expected.length || !timingSafeEqual(candidate, expected))
      throw new ControlError('unauthorized', 'the token is not the one of this run of the collector');
  });
}
