/** The platform's user inventories and user-sent offers in a running service, driven over loopback through the sandbox. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Listing } from '../../src/contract/listing.js';
import { churnUntil } from '../helpers/churn.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { advance, listingsFor } from '../helpers/trading.js';

let t: TestService;
let itemName: string;

beforeAll(async () => {
  t = await startTestService();
  const reader = await t.account();
  const [listing] = await listingsFor(t, reader.key, { delivery: 'instant' });
  itemName = listing?.market_hash_name as string;
});
afterAll(() => t.close());

async function linked(accountId: string): Promise<string> {
  return (await t.sandbox(`/accounts/${accountId}`)).body.steam_id;
}

async function inventory(accountId: string): Promise<Record<string, any>[]> {
  const response = await t.sandbox(`/accounts/${accountId}/inventory`);
  expect(response.status).toBe(200);
  return response.body.data;
}

/** Sends a user offer from one account's copies to another's through the platform's API. */
async function sendUserOffer(fromId: string, toId: string, assetIds: string[]) {
  const { platform, units } = t.service.context;
  const [from, to] = [await linked(fromId), await linked(toId)];
  return units.run((uow) =>
    platform.sendUserOffer(uow, {
      orderId: `ref_${fromId}`,
      fromSteamId: from,
      toSteamId: to,
      items: assetIds.map((assetId, i) => ({ assetId, itemKey: `ref_${fromId}:${i}` })),
    }),
  );
}

describe('sandbox inventories', () => {
  it('grants copies (201 with the new asset ids), shows them with revisions, and takes one away', async () => {
    const { accountId } = await t.account();
    const granted = await t.sandbox(`/accounts/${accountId}/inventory`, {
      market_hash_name: itemName,
      count: 2,
    });
    expect(granted.status).toBe(201);
    expect(granted.body).toMatchObject({ market_hash_name: itemName, app_id: 730 });
    const ids: string[] = granted.body.asset_ids;
    const rows = await inventory(accountId);
    expect(rows.map((r) => r.asset_id)).toEqual(ids);
    expect(rows.every((r) => r.asset_revision.length >= 16 && r.market_hash_name === itemName)).toBe(true);
    const removed = await t.sandbox(`/accounts/${accountId}/inventory/${ids[0]}`, undefined, 'DELETE');
    expect(removed.status).toBe(200);
    expect((await inventory(accountId)).map((r) => r.asset_id)).toEqual([ids[1]]);
    const again = await t.sandbox(`/accounts/${accountId}/inventory/${ids[0]}`, undefined, 'DELETE');
    expect([again.status, again.body.code]).toEqual([404, 'not_found']);
  });

  it('refuses an item the catalogue does not list and an unknown account', async () => {
    const { accountId } = await t.account();
    const unknown = await t.sandbox(`/accounts/${accountId}/inventory`, { market_hash_name: 'No Such Item' });
    expect([unknown.status, unknown.body.code]).toEqual([400, 'invalid_request']);
    const nobody = await t.sandbox('/accounts/acc_nobody/inventory', { market_hash_name: itemName });
    expect([nobody.status, nobody.body.code]).toEqual([404, 'not_found']);
    expect(await inventory(accountId)).toEqual([]);
  });

  it('PATCH takes inventory ready, private or trade_banned and refuses other values', async () => {
    const { accountId } = await t.account();
    const steamId = await linked(accountId);
    const { platform } = t.service.context;
    expect((await t.sandbox(`/accounts/${accountId}`, { inventory: 'private' }, 'PATCH')).status).toBe(200);
    expect((await platform.inventories.read(steamId)).proof).toEqual({
      status: 'blocked',
      code: 'inventory_private',
    });
    expect((await t.sandbox(`/accounts/${accountId}`, { inventory: 'trade_banned' }, 'PATCH')).status).toBe(
      200,
    );
    expect((await platform.inventories.read(steamId)).proof).toEqual({
      status: 'blocked',
      code: 'trade_banned',
    });
    const bad = await t.sandbox(`/accounts/${accountId}`, { inventory: 'hidden' }, 'PATCH');
    expect([bad.status, bad.body.code]).toEqual([400, 'invalid_request']);
    expect((await t.sandbox(`/accounts/${accountId}`, { inventory: 'ready' }, 'PATCH')).status).toBe(200);
    expect((await platform.inventories.read(steamId)).proof.status).toBe('pending');
  });
});

describe('offers sent by users', () => {
  it('moves the copy on acceptance and shows the offer to both accounts', async () => {
    const seller = await t.account();
    const buyer = await t.account();
    const [assetId] = (
      await t.sandbox(`/accounts/${seller.accountId}/inventory`, { market_hash_name: itemName })
    ).body.asset_ids;
    const { offerId } = await sendUserOffer(seller.accountId, buyer.accountId, [assetId]);
    expect(await inventory(seller.accountId)).toEqual([]);
    const sellerOffers = (await t.sandbox(`/accounts/${seller.accountId}/offers`)).body.data;
    const buyerOffers = (await t.sandbox(`/accounts/${buyer.accountId}/offers`)).body.data;
    expect(sellerOffers).toEqual(buyerOffers);
    expect(sellerOffers[0]).toMatchObject({
      offer_id: offerId,
      state: 'active',
      from_steam_id: await linked(seller.accountId),
      to_steam_id: await linked(buyer.accountId),
    });
    await advance(t, 31);
    expect((await inventory(buyer.accountId)).map((r) => r.market_hash_name)).toEqual([itemName]);
    expect(await inventory(seller.accountId)).toEqual([]);
  });

  it('obeys the recipient offers behaviour and the sandbox offer controls', async () => {
    const seller = await t.account();
    const buyer = await t.account();
    expect((await t.sandbox(`/accounts/${buyer.accountId}`, { offers: 'ignore' }, 'PATCH')).status).toBe(200);
    const granted = await t.sandbox(`/accounts/${seller.accountId}/inventory`, {
      market_hash_name: itemName,
      count: 2,
    });
    const [first, second] = granted.body.asset_ids;
    const declined = await sendUserOffer(seller.accountId, buyer.accountId, [first]);
    const decline = await t.sandbox(`/offers/${declined.offerId}`, { action: 'decline' });
    expect([decline.status, decline.body.state]).toEqual([200, 'declined']);
    expect((await inventory(seller.accountId)).map((r) => r.asset_id)).toEqual([first, second]);
    const ignored = await sendUserOffer(seller.accountId, buyer.accountId, [second]);
    await advance(t, 15 * 60 + 1);
    const offers = (await t.sandbox(`/accounts/${seller.accountId}/offers`)).body.data;
    expect(offers.find((o: any) => o.offer_id === ignored.offerId)?.state).toBe('expired');
    expect((await inventory(seller.accountId)).map((r) => r.asset_id).sort()).toEqual([first, second].sort());
    expect(await inventory(buyer.accountId)).toEqual([]);
  });
});

// Last: the churn reshapes the catalogue the other tests read.
describe('grants of items no longer listed', () => {
  it('describes an item listed since the start but gone now by its last listing in the event log', async () => {
    const { catalogue } = t.service.context;
    const added: { appId: number; listing: Listing }[] = [];
    const stop = catalogue.onChange((changes) => {
      for (const change of changes)
        if (change.kind === 'add') added.push({ appId: change.entry.appId, listing: change.entry.listing });
    });
    await churnUntil(t, { changes: 20, rate: 1_000 });
    stop();
    const { appId, listing } = added[0] as { appId: number; listing: Listing };
    const live = catalogue.index.query({
      appId,
      name: listing.market_hash_name,
      sort: 'id',
      limit: 200,
    }).items;
    await catalogue.apply(live.map((entry) => ({ kind: 'remove' as const, id: entry.id })));
    expect(
      await t.service.context.catalogue.index.query({
        appId,
        name: listing.market_hash_name,
        sort: 'id',
        limit: 1,
      }).items,
    ).toEqual([]);
    const { accountId } = await t.account();
    const granted = await t.sandbox(`/accounts/${accountId}/inventory`, {
      market_hash_name: listing.market_hash_name,
    });
    expect([granted.status, granted.body.market_hash_name]).toEqual([201, listing.market_hash_name]);
  });
});
