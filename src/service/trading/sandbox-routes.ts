/**
 * Sandbox controls of trading (only with --sandbox, no key): account settings the website and the
 * simulated platform user would change, the offers sent to an account, and the faults that the
 * next orders meet.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { centsToUsd, usdToCents } from '../../contract/common.js';
import { faultsBodySchema, patchAccountBodySchema } from '../../contract/sandbox.js';
import type { Account } from '../core/caller.js';
import { refuse } from '../core/refuse.js';
import type { UnitOfWorkRunner } from '../core/unit-of-work.js';
import type { Faults } from './faults.js';
import type { AccountSettings, AccountSettingsChange, SandboxPlatform } from './ports.js';
import type { TradingSettings } from './trading-settings.js';

const accountParams = z.object({ id: z.string().max(64) });

/** What the trading sandbox routes use. */
export interface TradingSandboxDeps {
  units: UnitOfWorkRunner;
  tradingSettings: TradingSettings;
  faults: Faults;
  accounts: AccountSettings;
  platform: SandboxPlatform;
}

/** Registers the trading sandbox routes under /sandbox. */
export function registerTradingSandboxRoutes(app: FastifyInstance, deps: TradingSandboxDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const hidden = { hide: true };
  const { tradingSettings, faults } = deps;

  api.get('/faults', { schema: hidden }, async () => faults.view());
  api.post('/faults', { schema: { ...hidden, body: faultsBodySchema } }, async (request) =>
    faults.configure(request.body),
  );

  api.patch(
    '/accounts/:id',
    { schema: { ...hidden, params: accountParams, body: patchAccountBodySchema } },
    async (request) => {
      const body = request.body;
      const current = requireAccount(deps.accounts, request.params.id);
      const updated = await deps.units.run(async (uow) => {
        const account = await deps.accounts.update(uow, current.id, settingsOf(body));
        if (body.kyc_threshold_usd !== undefined)
          await tradingSettings.setKycThreshold(
            uow,
            account.id,
            body.kyc_threshold_usd === null ? null : usdToCents(body.kyc_threshold_usd),
          );
        if (
          (body.offers !== undefined || body.accept_after_seconds !== undefined) &&
          account.steamId !== null
        )
          await deps.platform.setUserBehaviour(uow, account.steamId, {
            ...(body.offers === undefined ? {} : { offers: body.offers }),
            ...(body.accept_after_seconds === undefined
              ? {}
              : { acceptAfterSeconds: body.accept_after_seconds }),
          });
        if (body.inventory !== undefined && account.steamId !== null)
          await deps.platform.setInventoryVisibility(uow, account.steamId, body.inventory);
        return account;
      });
      return accountView(updated, tradingSettings.kycThresholdCents(updated.id));
    },
  );

  api.get('/accounts/:id/inventory', { schema: { ...hidden, params: accountParams } }, async (request) => {
    const account = requireAccount(deps.accounts, request.params.id);
    return { data: account.steamId === null ? [] : await deps.platform.inventoryOf(account.steamId) };
  });

  api.get('/accounts/:id/offers', { schema: { ...hidden, params: accountParams } }, async (request) => {
    const account = requireAccount(deps.accounts, request.params.id);
    return { data: account.steamId === null ? [] : await deps.platform.offersOf(account.steamId) };
  });
}

function requireAccount(accounts: AccountSettings, id: string): Account {
  const account = accounts.account(id);
  if (!account) throw refuse('not_found', `no account ${id}`);
  return account;
}

function settingsOf(body: z.infer<typeof patchAccountBodySchema>): AccountSettingsChange {
  const change: AccountSettingsChange = {};
  if (body.status !== undefined) change.status = body.status;
  if (body.steam_id !== undefined) change.steamId = body.steam_id;
  if (body.autoclaim !== undefined) change.autoclaim = body.autoclaim;
  if (body.external_buy !== undefined) change.externalBuy = body.external_buy;
  if (body.instant_sell !== undefined) change.instantSell = body.instant_sell;
  return change;
}

function accountView(account: Account, kycCents: number | null) {
  return {
    account_id: account.id,
    status: account.status,
    balance_usd: centsToUsd(account.balanceCents),
    settled_usd: centsToUsd(account.settledCents),
    steam_id: account.steamId,
    autoclaim: account.autoclaim,
    external_buy: account.externalBuy,
    instant_sell: account.instantSell,
    kyc_threshold_usd: kycCents === null ? null : centsToUsd(kycCents),
    app_ids: account.appIds,
  };
}
