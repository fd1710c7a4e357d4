/**
 * Sandbox operator endpoints that belong to no feature: the test clock (moving it walks every due
 * time inside the jump and answers once the work there is done) and a fixed payload that load
 * tests use as a baseline.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { advanceClockBodySchema } from '../../contract/sandbox.js';
import type { AdjustableClock } from '../core/clock.js';
import type { DueWork } from '../core/due-work.js';

const payloadQuery = z.object({ bytes: z.coerce.number().int().min(2).max(10_000_000) });

/** Registers the clock and payload routes under /sandbox. */
export function registerCoreSandboxRoutes(app: FastifyInstance, clock: AdjustableClock, due: DueWork): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const hidden = { hide: true };
  const clockView = () => ({
    now: new Date(clock.now()).toISOString(),
    offset_seconds: clock.offsetMs / 1000,
  });

  api.get('/clock', { schema: hidden }, async () => clockView());

  api.post('/clock', { schema: { ...hidden, body: advanceClockBodySchema } }, async (request) => {
    await due.advance(Math.round(request.body.advance_seconds * 1000));
    return clockView();
  });

  // A fixed JSON body of a chosen size, prepared once: the baseline for load tests of real routes.
  const payloads = new Map<number, Buffer>();
  api.get('/payload', { schema: { ...hidden, querystring: payloadQuery } }, async (request, reply) => {
    const bytes = request.query.bytes;
    let body = payloads.get(bytes);
    if (!body) {
      body = Buffer.from(JSON.stringify({ items: 'x'.repeat(Math.max(0, bytes - 12)) }));
      payloads.set(bytes, body);
    }
    return reply.type('application/json; charset=utf-8').send(body);
  });
}
