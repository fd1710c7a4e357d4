/**
 * Example: a bot's own test suite (node:test) against a sandbox started in its process: one
 * sandbox per file, an account per suite, the clock moved instead of waiting, a fault armed to see
 * how the bot takes a refusal. The same works in vitest with beforeAll and afterAll.
 *
 * Run: npx tsx src/client/examples/sandbox-test.ts (no server needed). From another project,
 * import from 'skin-market/sandbox' and 'skin-market/client'.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { type Sandbox, startSandbox } from '../../sandbox/index.js';
import { isApiError, MarketClient } from '../index.js';

let sandbox: Sandbox;
let apiKey: string;
let client: MarketClient;

before(async () => {
  sandbox = await startSandbox({ listings: 300, seed: 7 });
  ({ apiKey } = await sandbox.createAccount({ balanceUsd: 500, trading: true }));
  client = new MarketClient({ baseUrl: sandbox.baseUrl, apiKey });
});
after(async () => {
  await client.close();
  await sandbox.close();
});

/** The cheapest CS2 listing delivered at once, as the bot under test would pick it. */
async function cheapestInstantListing() {
  const { items } = await client.listings.list({
    appId: 730,
    sort: 'price_asc',
    delivery: 'instant',
    limit: 20,
  });
  const listing = items.find((l) => l.tradable && l.api_purchasable !== false);
  assert.ok(listing, 'the sandbox catalogue has an instant CS2 listing');
  return listing;
}

test('an order completes once the platform user accepts the offer', async () => {
  const listing = await cheapestInstantListing();
  const order = await client.orders.create({ listing_ids: [listing.id] }, { idempotencyKey: randomUUID() });
  assert.equal(order.status, 'delivering');
  // The platform user accepts after 30 s of service time: move the clock, do not wait.
  await sandbox.advanceClock(31);
  assert.equal((await client.orders.get(order.order_id)).status, 'completed');
});

test('an armed fault reaches the bot as the API error it stands for', async () => {
  const listing = await cheapestInstantListing();
  await sandbox.faults.arm({ marketUnavailable: true });
  // The client retries a 503 by itself; a client that does not shows the bot the refusal at once.
  const noRetries = new MarketClient({ baseUrl: sandbox.baseUrl, apiKey, maxRetries: 0 });
  try {
    await assert.rejects(
      noRetries.orders.create({ listing_ids: [listing.id] }, { idempotencyKey: randomUUID() }),
      (error) => isApiError(error) && error.code === 'market_unavailable',
    );
  } finally {
    await noRetries.close();
    await sandbox.faults.clear();
  }
});
