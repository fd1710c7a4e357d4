/**
 * Sandbox operator endpoints of the simulated platform (only with --sandbox, outside /v1, no key):
 * act on a trade offer as its recipient would, grant and take away inventory copies, and get the
 * trade URL the platform issues for a partner.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { grantInventoryBodySchema } from '../../contract/sandbox.js';
import { steamIdOf } from '../core/platform-ids.js';
import { refuse } from '../core/refuse.js';
import type { Platform } from './platform.js';
import type { ItemDescriptions, PlatformAccounts } from './ports.js';

const offerParams = z.object({ offer_id: z.string().min(1).max(64) });
const offerActionBody = z.strictObject({ action: z.enum(['accept', 'decline', 'rollback']) });
const partnerParams = z.object({
  partner: z
    .string()
    .regex(/^[1-9][0-9]{0,9}$/, 'partner must be a positive 32-bit account id')
    .transform(Number)
    .refine((n) => n <= 2 ** 32 - 1, 'partner must be a positive 32-bit account id'),
});
const accountParams = z.object({ id: z.string().max(64) });
const assetParams = z.object({ id: z.string().max(64), asset_id: z.string().min(1).max(64) });

/** What the platform sandbox routes use. */
export interface PlatformSandboxDeps {
  platform: Platform;
  accounts: PlatformAccounts;
  items: ItemDescriptions;
}

/** Registers the platform sandbox routes under /sandbox. */
export function registerPlatformSandboxRoutes(app: FastifyInstance, deps: PlatformSandboxDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const hidden = { hide: true };
  const { platform } = deps;

  api.post(
    '/offers/:offer_id',
    { schema: { ...hidden, params: offerParams, body: offerActionBody } },
    async (request) => platform.act(request.params.offer_id, request.body.action),
  );

  api.get('/trade-urls/:partner', { schema: { ...hidden, params: partnerParams } }, async (request) => ({
    trade_url: platform.tradeUrlFor(request.params.partner),
    steam_id: steamIdOf(request.params.partner),
  }));

  api.post(
    '/accounts/:id/inventory',
    { schema: { ...hidden, params: accountParams, body: grantInventoryBodySchema } },
    async (request, reply) => {
      const steamId = linkedSteamId(deps.accounts, request.params.id);
      const item = await deps.items.describe(request.body.market_hash_name);
      if (!item)
        throw refuse(
          'invalid_request',
          `market_hash_name: no item named ${JSON.stringify(request.body.market_hash_name)} is listed in the catalogue; copy a name from GET /v1/listings`,
        );
      const assetIds = await platform.inventories.grant(steamId, item, request.body.count ?? 1);
      return reply.code(201).send({
        steam_id: steamId,
        app_id: item.appId,
        market_hash_name: item.marketHashName,
        asset_ids: assetIds,
      });
    },
  );

  api.delete(
    '/accounts/:id/inventory/:asset_id',
    { schema: { ...hidden, params: assetParams } },
    async (request) => {
      const steamId = linkedSteamId(deps.accounts, request.params.id);
      await platform.inventories.remove(steamId, request.params.asset_id);
      return { asset_id: request.params.asset_id, removed: true };
    },
  );
}

/** The account's linked platform id; 404 for no such account, 400 when none is linked. */
function linkedSteamId(accounts: PlatformAccounts, accountId: string): string {
  const steamId = accounts.steamIdOf(accountId);
  if (steamId === undefined) throw refuse('not_found', `no account ${accountId}`);
  if (steamId === null)
    throw refuse(
      'invalid_request',
      `account ${accountId} has no linked platform account; link one with PATCH /sandbox/accounts/${accountId}`,
    );
  return steamId;
}
