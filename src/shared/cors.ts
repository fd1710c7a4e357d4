/**
 * Cross-origin access for browser dashboards: only the configured origins get the CORS headers
 * (on every route, the listing stream and preflights included); with none configured, none do.
 */
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** Headers a browser client may send, and headers it may read. */
const ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'Last-Event-ID',
  'If-None-Match',
];
const EXPOSED_HEADERS = ['ETag', 'Last-Modified', 'Retry-After', 'X-Generated-At', 'Allow'];

/** Registers CORS for exactly `origins` (nothing when the list is empty). */
export async function registerCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  const allowed = new Set(origins);
  await app.register(cors, {
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin)),
    methods: ['GET', 'POST', 'PATCH', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
}
