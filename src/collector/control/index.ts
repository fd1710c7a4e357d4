/**
 * The control endpoint's work for a command that does it in its own process while no daemon holds
 * the warehouse: the same read-only query and export options as the routes. Loads DuckDB, not
 * Fastify or the daemon; the protocol itself is protocol.ts.
 */
export { exportOptionsOf } from './export.js';
export { streamQuery } from './read-only-query.js';
