/** Route validators with a hand-written fast path in front of the zod schema. */
import type { FastifySchemaCompiler } from 'fastify';
import { validateInput } from './input-validation.js';

/**
 * A validator compiler for a route whose input is checked by `fast` first: its value is used when
 * it gives one, and the route's zod schema decides (and words the error) only when it gives
 * undefined. `fast` must accept nothing the schema refuses and give the schema's value.
 * @example
 * api.get('/listings', { schema: { querystring }, validatorCompiler: withFastPath(parseListingsQuery) }, handler);
 */
export function withFastPath<S>(fast: (data: unknown) => unknown): FastifySchemaCompiler<S> {
  return (route) => {
    // The route's schemas are zod schemas (the service's type provider).
    const slow = validateInput(route as Parameters<typeof validateInput>[0]);
    return (data) => {
      const value = fast(data);
      return value === undefined ? slow(data) : { value };
    };
  };
}
