/** What a feature folder hands the server: its /v1 routes and its sandbox routes, each a Fastify plugin. */
import type { FastifyInstance } from 'fastify';
import type { DomainErrorMapper } from './error-handler.js';

/** A feature's plugins; each registers its routes on the scope it is given. */
export interface Feature {
  /** Registers routes under /v1 (the access checks run before them). */
  v1?(app: FastifyInstance): void | Promise<void>;
  /** Registers operator routes under /sandbox (only with --sandbox; no key). */
  sandbox?(app: FastifyInstance): void | Promise<void>;
  /** Maps the feature's domain errors to API errors. */
  errors?: DomainErrorMapper;
}
