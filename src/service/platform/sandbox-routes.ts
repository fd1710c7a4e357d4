/**
 * Sandbox operator endpoints of the simulated platform (only with --sandbox, outside /v1, no key):
 * act on a trade offer as its recipient would, and get the trade URL the platform issues for a partner.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { steamIdOf } from '../core/platform-ids.js';
import type { Platform } from './platform.js';

const offerParams = z.object({ offer_id: z.string().min(1).max(64) });
const offerActionBody = z.object({ action: z.enum(['accept', 'decline', 'rollback']) });
const partnerParams = z.object({
  partner: z
    .string()
    .regex(/^[1-9][0-9]{0,9}$/, 'partner must be a positive 32-bit account id')
    .transform(Number)
    .refine((n) => n <= 2 ** 32 - 1, 'partner must be a positive 32-bit account id'),
});

/** Registers the platform sandbox routes under /sandbox. */
export function registerPlatformSandboxRoutes(app: FastifyInstance, platform: Platform): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const hidden = { hide: true };

  api.post(
    '/offers/:offer_id',
    { schema: { ...hidden, params: offerParams, body: offerActionBody } },
    async (request) => platform.act(request.params.offer_id, request.body.action),
  );

  api.get('/trade-urls/:partner', { schema: { ...hidden, params: partnerParams } }, async (request) => ({
    trade_url: platform.tradeUrlFor(request.params.partner),
    steam_id: steamIdOf(request.params.partner),
  }));
}
