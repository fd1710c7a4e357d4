/**
 * How an HTTP server of ours stops: no new connection, answers under way get a short grace, then
 * every connection left is cut, so no client (an open stream, a reader that stopped reading, a
 * request that trickles in) can hold a stop, a deploy or the database file.
 */
import type { FastifyInstance } from 'fastify';

/** How long answers under way may still take once a server closes, in milliseconds. */
export const CLOSE_GRACE_MS = 2_000;

/**
 * Closes `app` (its close hooks run first, so open streams end cleanly and idle keep-alive
 * connections are closed) and cuts every connection still open `graceMs` later.
 *
 * @example
 * await closeWithin(app); // at most about 2 s, whatever the clients do
 */
export async function closeWithin(app: FastifyInstance, graceMs = CLOSE_GRACE_MS): Promise<void> {
  const cut = setTimeout(() => app.server.closeAllConnections(), graceMs);
  try {
    await app.close();
  } finally {
    clearTimeout(cut);
  }
}
