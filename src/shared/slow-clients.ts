/**
 * How long an HTTP server of ours waits for a client: a connection that trickles its headers or its
 * body (slowloris) is cut, so a few hundred of them cannot hold every socket.
 */
import type { Server } from 'node:http';
import type { FastifyHttpOptions } from 'fastify';

/** Deadlines of a client's request, in milliseconds. */
export interface ClientTimeouts {
  /** The request line and headers must be in within this. @default 25_000 */
  headersMs?: number;
  /** The whole request, body included, must be in within this (at least `headersMs`). @default 40_000 */
  requestMs?: number;
  /** An idle keep-alive connection is closed after this. @default 30_000 */
  keepAliveMs?: number;
  /**
   * How often the server looks for connections past a deadline, so a deadline is enforced within
   * this much. @default 5_000
   */
  checkEveryMs?: number;
}

const DEFAULTS: Required<ClientTimeouts> = {
  headersMs: 25_000,
  requestMs: 40_000,
  keepAliveMs: 30_000,
  checkEveryMs: 5_000,
};

/**
 * The Fastify options that enforce `timeouts`. Node's own server cuts a request whose headers or
 * whole body are late (`headersTimeout`, `requestTimeout`), but looks only every 30 s by default
 * and Fastify turns the request deadline off; so both are set here, with the checking interval
 * (an option of the server's creation only) short. A late request is cut within its deadline plus
 * that interval: with the defaults, headers within 30 s and a whole request within 45 s.
 *
 * @example
 * const app = Fastify({ bodyLimit: 1024 * 1024, ...slowClientOptions() });
 */
export function slowClientOptions(timeouts: ClientTimeouts = {}): FastifyHttpOptions<Server> {
  const { headersMs, requestMs, keepAliveMs, checkEveryMs } = { ...DEFAULTS, ...timeouts };
  return {
    requestTimeout: Math.max(requestMs, headersMs),
    keepAliveTimeout: keepAliveMs,
    http: {
      headersTimeout: headersMs,
      requestTimeout: Math.max(requestMs, headersMs),
      connectionsCheckingInterval: checkEveryMs,
    },
  };
}
