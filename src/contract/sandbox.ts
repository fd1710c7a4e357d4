/** Sandbox operator endpoints (outside /v1, only with --sandbox): what the website would do. */
import { z } from 'zod';

const cidrList = z
  .array(z.string().max(64))
  .max(50)
  .meta({ description: 'IP allowlist: CIDRs or addresses' });

/**
 * A sandbox amount in whole cents, as an order's cap is: a fraction of a cent would be rounded
 * into money (0.005 up to a cent) or out of it (0.001 to nothing, with no ledger row).
 */
const wholeCents = z.number().min(0).max(1e9).multipleOf(0.01);

/** Body of `POST /sandbox/accounts`. */
export const createAccountBodySchema = z.strictObject({
  balance_usd: wholeCents
    .optional()
    .meta({ description: 'opening deposit in whole cents (12.34; 0.001 is refused with 400); default 0' }),
  settled_usd: wholeCents
    .optional()
    .meta({ description: 'part of the opening deposit already settled, in whole cents; default all of it' }),
  trading: z.boolean().optional().meta({ description: 'trading flag of the first key; default false' }),
  label: z.string().max(100).optional(),
  key_label: z.string().max(100).optional(),
  ip_allowlist: cidrList.optional(),
  app_ids: z
    .array(z.number().int())
    .max(10)
    .optional()
    .meta({ description: 'games the keys may read; default all' }),
  instant_sell: z.boolean().optional(),
  external_buy: z.boolean().optional(),
  steam_id: z
    .string()
    .max(32)
    .nullable()
    .optional()
    .meta({ description: 'linked platform account; default one is made' }),
  autoclaim: z.boolean().optional(),
});
export type CreateAccountBody = z.infer<typeof createAccountBodySchema>;

/** Body of `POST /sandbox/accounts/{id}/keys`. */
export const createKeyBodySchema = z.strictObject({
  label: z.string().min(1).max(100).optional(),
  trading: z.boolean().optional(),
  ip_allowlist: cidrList.optional(),
});

/** Body of `POST /sandbox/accounts/{id}/fund`. */
export const fundBodySchema = z.strictObject({
  amount_usd: wholeCents
    .positive()
    .meta({ description: 'the deposit in whole cents (12.34; 0.005 is refused with 400, not rounded)' }),
  settled: z
    .boolean()
    .optional()
    .meta({ description: 'false keeps it inside the reversal window; default true' }),
});

/** Body of `POST /sandbox/clock`. */
export const advanceClockBodySchema = z.strictObject({
  advance_seconds: z
    .number()
    .min(0)
    .max(10 * 365 * 86_400),
});

/** Body of `POST /sandbox/simulator`. */
export const simulatorBodySchema = z.strictObject({
  paused: z.boolean().optional(),
  rate_per_second: z.number().min(0).max(10_000).optional(),
});

/** Body of `PATCH /sandbox/accounts/{id}`: what the website and the simulated platform user would change. */
export const patchAccountBodySchema = z.strictObject({
  status: z.enum(['active', 'restricted']).optional(),
  steam_id: z
    .string()
    .regex(/^\d{17}$/)
    .nullable()
    .optional()
    .meta({ description: 'the linked platform account (17 digits), or null to unlink' }),
  autoclaim: z.boolean().optional(),
  external_buy: z.boolean().optional(),
  instant_sell: z.boolean().optional(),
  kyc_threshold_usd: wholeCents
    .nullable()
    .optional()
    .meta({ description: 'cumulative purchases above it answer 403 kyc_required; null: no threshold' }),
  offers: z
    .enum(['accept', 'decline', 'ignore'])
    .optional()
    .meta({ description: "what the account's platform user does with trade offers sent to it" }),
  accept_after_seconds: z.number().int().min(0).max(86_400).optional().meta({
    description: 'how long the platform user takes to accept (or decline) an offer; default 30',
  }),
  inventory: z.enum(['ready', 'private', 'trade_banned']).optional().meta({
    description:
      "how the platform shows the account's inventory: private or trade_banned make the inventory proof blocked with that code; a change makes the inventory fresh (its next read is pending)",
  }),
});

/** Body of `PATCH /sandbox/accounts/{id}`. */
export type PatchAccountBody = z.infer<typeof patchAccountBodySchema>;

/** Body of `POST /sandbox/faults`: the next N orders meet the fault, or the fault stays on until turned off. */
export const faultsBodySchema = z.strictObject({
  market_unavailable: z.boolean().optional(),
  price_updating: z.boolean().optional(),
  upstream_timeout_next: z.number().int().min(0).max(1_000_000).optional(),
  order_failed_next: z.number().int().min(0).max(1_000_000).optional(),
  concurrent_update_next: z.number().int().min(0).max(1_000_000).optional(),
});

/** Most copies one sandbox grant may add. */
export const MAX_GRANT_COUNT = 100;

/** Body of `POST /sandbox/accounts/{id}/inventory`: grants copies of an item listed in the catalogue. */
export const grantInventoryBodySchema = z.strictObject({
  market_hash_name: z
    .string()
    .min(1)
    .max(300)
    .meta({ description: 'exact name of an item the catalogue lists' }),
  count: z
    .number()
    .int()
    .min(1)
    .max(MAX_GRANT_COUNT)
    .optional()
    .meta({ description: `copies to grant, 1-${MAX_GRANT_COUNT}; default 1` }),
});

/** Body of `POST /sandbox/accounts/{id}/inventory`. */
export type GrantInventoryBody = z.infer<typeof grantInventoryBodySchema>;
