/**
 * P2P survives kill -9: a service process is killed mid-sale (offer out, then inside the
 * verification hold), restarted on the same database, and the sale goes on to pay the seller
 * exactly once; listings published before the kill are still on the shelf and under their keys.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KillableService, killableService } from '../helpers/killable-service.js';
import { findP2PListing, listCopy, marketItem, p2pListing, publish, sellerWith } from '../helpers/p2p.js';
import { advance, buy, cents, ledgerOf, ledgerProblems } from '../helpers/trading.js';

describe('P2P through kill -9 of the service', () => {
  let service: KillableService;
  beforeAll(async () => {
    service = await killableService(['--listings', '800', '--churn-paused']);
  });
  afterAll(() => service.cleanUp());

  it('pays the seller exactly once and keeps listings and keys', async () => {
    const { t } = service;
    await service.start();
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
    await service.kill();
    // A restarted service's clock starts again from real time: the moves made before are made again.
    await service.start();
    await advance(t, 700);
    expect((await p2pListing(t, seller.key, sold.id)).status).toBe('verification_hold');
    await service.kill();
    await service.start();
    await advance(t, 8 * 86_400 + 800);
    expect(await findP2PListing(t, seller.key, sold.id)).toBeUndefined();
    const sales = (await ledgerOf(t, seller.key)).filter((r) => r.type === 'sale');
    expect(sales.map((r) => [r.order_id, cents(r.amount_usd)])).toEqual([
      [sold.id, cents(sold.seller_payout_usd)],
    ]);
    expect(await ledgerProblems(t, seller.key)).toEqual([]);
    expect(await ledgerProblems(t, buyer.key)).toEqual([]);
    const replay = await publish(t, seller.key, keptBody, 'crash-kept-listing');
    expect([replay.status, replay.body.id]).toEqual([200, shelved.body.id]);
    const shelf = await t.call(`/listings?name=${encodeURIComponent(item.name)}&limit=200`, {
      key: buyer.key,
    });
    expect(shelf.body.items.some((l: any) => l.id === shelved.body.id)).toBe(true);
    await service.stop();
  });
});
