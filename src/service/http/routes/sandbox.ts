/**
 * Sandbox operator endpoints (only with --sandbox, outside /v1, no key): create accounts and keys,
 * fund balances, move the test clock, steer the simulator. They stand in for the website.
 */
import { randomInt } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../../contract/api-error.js';
import { centsToUsd, usdToCents } from '../../../contract/common.js';
import {
  advanceClockBodySchema,
  createAccountBodySchema,
  createKeyBodySchema,
  fundBodySchema,
  simulatorBodySchema,
} from '../../../contract/sandbox.js';
import { isCidr } from '../../auth/ip-allowlist.js';
import type { ServiceContext } from '../../context.js';
import { ALL_APP_IDS } from '../../market/games.js';
import type { Account, ApiKeyRecord } from '../../store/accounts.js';

const accountParams = z.object({ id: z.string().max(64) });
const keyParams = z.object({ keyId: z.string().max(64) });
const eventsQuery = z.object({
  app_id: z.coerce.number().int().default(730),
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(100_000).default(10_000),
});
const payloadQuery = z.object({ bytes: z.coerce.number().int().min(2).max(10_000_000) });

/** Registers the sandbox routes under /sandbox. */
export function registerSandboxRoutes(app: FastifyInstance, context: ServiceContext): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const hidden = { hide: true };
  const { accounts, clock } = context;

  api.post('/accounts', { schema: { ...hidden, body: createAccountBodySchema } }, async (request, reply) => {
    const body = request.body;
    const { account, key, rawKey } = await accounts.createAccount({
      label: body.label ?? 'sandbox account',
      keyLabel: body.key_label ?? 'default',
      balanceCents: usdToCents(body.balance_usd ?? 0),
      ...(body.settled_usd === undefined ? {} : { settledCents: usdToCents(body.settled_usd) }),
      trading: body.trading ?? false,
      ipAllowlist: checkedAllowlist(body.ip_allowlist),
      appIds: body.app_ids ?? ALL_APP_IDS,
      instantSell: body.instant_sell ?? false,
      externalBuy: body.external_buy ?? false,
      steamId: body.steam_id === undefined ? platformIdFor(randomInt(1_000_000_000)) : body.steam_id,
      autoclaim: body.autoclaim ?? false,
    });
    return reply.code(201).send({ account_id: account.id, api_key: rawKey, key_id: key.id });
  });

  api.get('/accounts/:id', { schema: { ...hidden, params: accountParams } }, async (request) =>
    accountView(accounts.requireAccount(request.params.id)),
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
    data: accounts.keysOf(accounts.requireAccount(request.params.id).id).map(keyView),
  }));

  api.delete('/keys/:keyId', { schema: { ...hidden, params: keyParams } }, async (request) =>
    keyView(await accounts.revokeKey(request.params.keyId)),
  );

  api.get('/streams', { schema: hidden }, async () => ({ open: Object.fromEntries(context.stream.open) }));

  // The retained event ids of a game, for auditing what a consumer landed.
  api.get('/events', { schema: { ...hidden, querystring: eventsQuery } }, async (request) => {
    const { app_id, after, limit } = request.query;
    const log = context.catalogue.log;
    const rows = await context.db.read<{ position: number }>(
      'SELECT position FROM listing_events WHERE app_id = $app AND position > $after AND position <= $head ORDER BY position LIMIT $limit',
      { app: app_id, after, head: log.head, limit },
    );
    const last = rows.at(-1);
    return {
      head: log.eventId(log.head),
      last: await log.lastEventIdOf(app_id),
      ids: rows.map((r) => log.eventId(Number(r.position))),
      next_after: rows.length === limit && last ? Number(last.position) : null,
    };
  });

  api.get('/clock', { schema: hidden }, async () => clockView(context));

  api.post('/clock', { schema: { ...hidden, body: advanceClockBodySchema } }, async (request) => {
    clock.advance(Math.round(request.body.advance_seconds * 1000));
    return clockView(context);
  });

  api.get('/simulator', { schema: hidden }, async () => context.churn.state());

  api.post('/simulator', { schema: { ...hidden, body: simulatorBodySchema } }, async (request) => {
    const { paused, rate_per_second } = request.body;
    await context.churn.configure({
      ...(paused === undefined ? {} : { paused }),
      ...(rate_per_second === undefined ? {} : { ratePerSecond: rate_per_second }),
    });
    return context.churn.state();
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

  api.post('/prices/rebuild', { schema: hidden }, async () => {
    await context.prices.rebuild();
    return {
      generated_at: new Date(context.prices.generatedAt()).toISOString(),
      groups: context.prices.groupCount(),
    };
  });
}

function checkedAllowlist(list: string[] | undefined): string[] {
  const bad = (list ?? []).find((cidr) => !isCidr(cidr));
  if (bad !== undefined)
    throw new ApiError('invalid_request', `ip_allowlist entry ${bad} is not an address or CIDR`);
  return list ?? [];
}

/** A platform id (17 digits, in the platform's individual-account range) for a new sandbox account. */
function platformIdFor(n: number): string {
  return String(76_561_197_960_265_728n + BigInt(n));
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

function clockView(context: ServiceContext) {
  return { now: new Date(context.clock.now()).toISOString(), offset_seconds: context.clock.offsetMs / 1000 };
}
