/**
 * P2P survives kill -9: a service process is killed mid-sale (offer out, then inside the
 * verification hold), restarted on the same database, and the sale goes on to pay the seller
 * exactly once; listings published before the kill are still on the shelf and under their keys.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnMarket, waitForLine } from '../helpers/cli.js';
import { listCopy, marketItem, p2pListing, publish, sellerWith } from '../helpers/p2p.js';
import { read, type TestService } from '../helpers/service.js';
import { advance, buy, cents, ledgerOf, ledgerProblems } from '../helpers/trading.js';

describe('P2P through kill -9 of the service', () => {
  let dir: string;
  let child: ChildProcess | undefined;
  let origin = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'market-p2p-crash-'));
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  async function start(): Promise<void> {
    const db = join(dir, 'market.duckdb');
    child = spawnMarket([
      'serve',
      '--port',
      '0',
      '--sandbox',
      '--db',
      db,
      '--listings',
      '800',
      '--churn-paused',
    ]);
    origin = (await waitForLine(child, /^http:\/\/.+\/v1$/)).replace(/\/v1$/, '');
  }

  async function kill(): Promise<void> {
    const exited = once(child as ChildProcess, 'exit');
    child?.kill('SIGKILL');
    await exited;
  }

  /** The running child as the test helpers see it. */
  const t = {
    call: async (
      path: string,
      init: { key?: string; method?: string; body?: unknown; headers?: Record<string, string> } = {},
    ) =>
      read(
        await fetch(`${origin}/v1${path}`, {
          method: init.method ?? 'GET',
          headers: {
            ...init.headers,
            ...(init.key === undefined ? {} : { authorization: `Bearer ${init.key}` }),
            ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        }),
      ),
    sandbox: async (path: string, body?: unknown, method?: string) =>
      read(
        await fetch(`${origin}/sandbox${path}`, {
          method: method ?? (body === undefined ? 'GET' : 'POST'),
          ...(body === undefined
            ? {}
            : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
        }),
      ),
    account: async (body: Record<string, unknown> = { balance_usd: 100, trading: true }) => {
      const created = await t.sandbox('/accounts', body);
      return { accountId: created.body.account_id, key: created.body.api_key, keyId: created.body.key_id };
    },
  } as unknown as TestService;

  it('pays the seller exactly once and keeps listings and keys', async () => {
    await start();
    const item = await marketItem(t, (await t.account({ balance_usd: 10 })).key);
    const seller = await sellerWith(t, item.name, 2);
    const sold = await listCopy(t, seller, seller.assetIds[0] as string, item.marketUsd);
    const inventory = (await t.call('/p2p/inventory', { key: seller.key })).body.data;
    const kept = inventory.find((r: any) => r.asset_id === seller.assetIds[1]);
    const keptBody = {
      operational_asset_id: kept.operational_asset_id,
      asset_revision: kept.asset_revision,
      price_usd: item.marketUsd,
    };
    const shelved = await publish(t, seller.key, keptBody, 'crash-kept-listing');
    expect(shelved.status).toBe(201);
    const buyer = await t.account({ balance_usd: 1000, trading: true });
    await t.sandbox(`/accounts/${buyer.accountId}`, { accept_after_seconds: 600 }, 'PATCH');
    expect((await buy(t, buyer.key, { listing_ids: [sold.id] })).status).toBe(201);
    await advance(t, 60);
    expect((await p2pListing(t, seller.key, sold.id)).status).toBe('trade_sent');
    await kill();
    // A restarted service's clock starts again from real time: the moves made before are made again.
    await start();
    await advance(t, 700);
    expect((await p2pListing(t, seller.key, sold.id)).status).toBe('verification_hold');
    await kill();
    await start();
    await advance(t, 8 * 86_400 + 800);
    expect((await p2pListing(t, seller.key, sold.id)).status).toBe('sold');
    const sales = (await ledgerOf(t, seller.key)).filter((r) => r.type === 'sale');
    expect(sales.map((r) => cents(r.amount_usd))).toEqual([cents(sold.seller_payout_usd)]);
    expect(await ledgerProblems(t, seller.key)).toEqual([]);
    expect(await ledgerProblems(t, buyer.key)).toEqual([]);
    const replay = await publish(t, seller.key, keptBody, 'crash-kept-listing');
    expect([replay.status, replay.body.id]).toEqual([200, shelved.body.id]);
    const shelf = await t.call(`/listings?name=${encodeURIComponent(item.name)}&limit=200`, {
      key: buyer.key,
    });
    expect(shelf.body.items.some((l: any) => l.id === shelved.body.id)).toBe(true);
    await kill();
  });
});
