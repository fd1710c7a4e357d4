/**
 * Sandbox operator endpoints of accounts (only with --sandbox, outside /v1, no key): create
 * accounts and keys, fund balances. They stand in for the website.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { centsToUsd, usdToCents } from '../../contract/common.js';
import { createAccountBodySchema, createKeyBodySchema, fundBodySchema } from '../../contract/sandbox.js';
import type { Account, ApiKeyRecord } from '../core/caller.js';
import { isCidr } from '../core/ip-allowlist.js';
import { newPlatformId } from '../core/platform-ids.js';
import { refuse } from '../core/refuse.js';
import type { Accounts } from './accounts.js';

const accountParams = z.object({ id: z.string().max(64) });
const keyParams = z.object({ keyId: z.string().max(64) });
/** Registers the account sandbox routes under /sandbox. */
export function registerAccountSandboxRoutes(
  app: FastifyInstance,
  accounts: Accounts,
  allAppIds: readonly number[],
): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const hidden = { hide: true };

  api.post('/accounts', { schema: { ...hidden, body: createAccountBodySchema } }, async (request, reply) => {
    const body = request.body;
    const { account, key, rawKey } = await accounts.createAccount({
      label: body.label ?? 'sandbox account',
      keyLabel: body.key_label ?? 'default',
      balanceCents: usdToCents(body.balance_usd ?? 0),
      ...(body.settled_usd === undefined ? {} : { settledCents: usdToCents(body.settled_usd) }),
      trading: body.trading ?? false,
      ipAllowlist: checkedAllowlist(body.ip_allowlist),
      appIds: body.app_ids ?? [...allAppIds],
      instantSell: body.instant_sell ?? false,
      externalBuy: body.external_buy ?? false,
      steamId: body.steam_id === undefined ? newPlatformId() : body.steam_id,
      autoclaim: body.autoclaim ?? false,
    });
    return reply.code(201).send({ account_id: account.id, api_key: rawKey, key_id: key.id });
  });

  api.get('/accounts/:id', { schema: { ...hidden, params: accountParams } }, async (request) =>
    accountView(accounts.store.require(request.params.id)),
  );

  api.post(
    '/accounts/:id/fund',
    { schema: { ...hidden, params: accountParams, body: fundBodySchema } },
    async (request) =>
      accountView(
        await accounts.fund(
          request.params.id,
          usdToCents(request.body.amount_usd),
          request.body.settled ?? true,
        ),
      ),
  );

  api.post(
    '/accounts/:id/keys',
    { schema: { ...hidden, params: accountParams, body: createKeyBodySchema } },
    async (request, reply) => {
      const { key, rawKey } = await accounts.createKey(request.params.id, {
        label: request.body.label ?? 'sandbox key',
        trading: request.body.trading ?? false,
        ipAllowlist: checkedAllowlist(request.body.ip_allowlist),
      });
      return reply.code(201).send({ ...keyView(key), api_key: rawKey });
    },
  );

  api.get('/accounts/:id/keys', { schema: { ...hidden, params: accountParams } }, async (request) => ({
    data: accounts.keys.keysOf(accounts.store.require(request.params.id).id).map(keyView),
  }));

  api.delete('/keys/:keyId', { schema: { ...hidden, params: keyParams } }, async (request) =>
    keyView(await accounts.revokeKey(request.params.keyId)),
  );
}

function checkedAllowlist(list: string[] | undefined): string[] {
  const bad = (list ?? []).find((cidr) => !isCidr(cidr));
  if (bad !== undefined)
    throw refuse('invalid_request', `ip_allowlist entry ${bad} is not an address or CIDR`);
  return list ?? [];
}

function accountView(account: Account) {
  return {
    account_id: account.id,
    balance_usd: centsToUsd(account.balanceCents),
    settled_usd: centsToUsd(account.settledCents),
    steam_id: account.steamId,
    app_ids: account.appIds,
  };
}

function keyView(key: ApiKeyRecord) {
  return {
    key_id: key.id,
    account_id: key.accountId,
    label: key.label,
    trading: key.trading,
    ip_allowlist: key.ipAllowlist,
    created_at: new Date(key.createdAt).toISOString(),
    revoked_at: key.revokedAt === null ? null : new Date(key.revokedAt).toISOString(),
  };
}
