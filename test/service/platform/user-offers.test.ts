/** Offers sent by users from their own inventories, copy revisions, and the inventory proof, on a real DuckDB file. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Platform } from '../../../src/service/platform/platform.js';
import { openPlatform, type PlatformFixture, START } from './fixture.js';

const SELLER = '76561197960265801';
const BUYER = '76561197960265802';
const ITEM = {
  appId: 730,
  marketHashName: 'AK-47 | Redline (Field-Tested)',
  listingId: 'c0000000001',
  listingJson: '{"id":"c0000000001"}',
};

let f: PlatformFixture;

beforeEach(async () => {
  f = await openPlatform();
});
afterEach(() => f.close());

const inventory = (steamId: string) => f.platform.inventories.owned(steamId);

async function sendFromSeller(assetIds: string[], answeredBy?: 'sender') {
  return f.units.run((uow) =>
    f.platform.sendUserOffer(uow, {
      orderId: 'ord_p2p',
      fromSteamId: SELLER,
      toSteamId: BUYER,
      items: assetIds.map((assetId, i) => ({ assetId, itemKey: `ord_p2p:${i}` })),
      ...(answeredBy === undefined ? {} : { answeredBy }),
    }),
  );
}

async function behave(steamId: string, offers: 'accept' | 'decline' | 'ignore') {
  await f.units.run((uow) => f.platform.setUserBehaviour(uow, steamId, { offers }));
}

describe('Platform.sendUserOffer', () => {
  it('takes the copies out of the sender at once and gives the recipient new copies on acceptance', async () => {
    const [kept, sold] = await f.platform.inventories.grant(SELLER, ITEM, 2);
    const { offerId } = await sendFromSeller([sold as string]);
    expect((await inventory(SELLER)).map((c) => c.assetId)).toEqual([kept]);
    expect(f.platform.pendingOfferCount(BUYER)).toBe(1);
    await f.advance(30_000);
    expect((await inventory(SELLER)).map((c) => c.assetId)).toEqual([kept]);
    const received = await inventory(BUYER);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      marketHashName: ITEM.marketHashName,
      offerId,
      listingJson: ITEM.listingJson,
    });
    expect(received[0]?.assetId).not.toBe(sold);
    expect(f.closed.map((c) => [c.outcome, c.senderSteamId, c.orderId, c.itemKeys])).toEqual([
      ['accepted', SELLER, 'ord_p2p', ['ord_p2p:0']],
    ]);
  });

  it.each([
    ['declined', 'decline' as const, 30_000],
    ['expired', 'ignore' as const, Platform.OFFER_TTL_MS],
  ])(
    'returns the copies to the sender with a new revision when the offer is %s',
    async (outcome, offers, after) => {
      await behave(BUYER, offers);
      const [assetId] = await f.platform.inventories.grant(SELLER, ITEM, 1);
      const before = (await inventory(SELLER))[0]?.revision;
      await sendFromSeller([assetId as string]);
      await f.advance(after);
      const back = await inventory(SELLER);
      expect(back.map((c) => c.assetId)).toEqual([assetId]);
      expect(back[0]?.revision).not.toBe(before);
      expect(back[0]?.revision).toMatch(/^[0-9a-f]{32}$/);
      expect(await inventory(BUYER)).toEqual([]);
      expect(f.closed.map((c) => c.outcome)).toEqual([outcome]);
    },
  );

  it('gives the sender new copies when an accepted offer is rolled back inside the trade protection', async () => {
    const [assetId] = await f.platform.inventories.grant(SELLER, ITEM, 1);
    const { offerId } = await sendFromSeller([assetId as string]);
    await f.advance(30_000);
    await f.platform.act(offerId, 'rollback');
    expect(await inventory(BUYER)).toEqual([]);
    const back = await inventory(SELLER);
    expect(back).toHaveLength(1);
    expect(back[0]?.marketHashName).toBe(ITEM.marketHashName);
  });

  it('refuses a rollback once the trade protection has ended', async () => {
    const [assetId] = await f.platform.inventories.grant(SELLER, ITEM, 1);
    const { offerId } = await sendFromSeller([assetId as string]);
    await f.advance(30_000);
    await f.advance(Platform.TRADE_PROTECTION_MS + 1);
    await expect(f.platform.act(offerId, 'rollback')).rejects.toMatchObject({
      code: 'invalid_request',
      detail: expect.stringMatching(/can no longer be rolled back: its trade protection ended/),
    });
    expect(await inventory(BUYER)).toHaveLength(1);
  });

  it('refuses a copy that is not at home, or one already carried by an open offer, and sends nothing', async () => {
    const [assetId] = await f.platform.inventories.grant(SELLER, ITEM, 1);
    await expect(sendFromSeller(['30000099999'])).rejects.toMatchObject({
      code: 'not_found',
      detail: `no asset 30000099999 in the inventory of ${SELLER}`,
    });
    await sendFromSeller([assetId as string]);
    await expect(sendFromSeller([assetId as string])).rejects.toMatchObject({
      code: 'not_found',
      detail: `no asset ${assetId} in the inventory of ${SELLER}`,
    });
    expect((await f.platform.offersOf(SELLER)).map((o) => [o.from_steam_id, o.to_steam_id])).toEqual([
      [SELLER, BUYER],
    ]);
    expect(await f.platform.offersOf(BUYER)).toHaveLength(1);
  });

  it('refuses to send from a trade-banned account', async () => {
    const [assetId] = await f.platform.inventories.grant(SELLER, ITEM, 1);
    await f.units.run((uow) => f.platform.setInventoryVisibility(uow, SELLER, 'trade_banned'));
    await expect(sendFromSeller([assetId as string])).rejects.toMatchObject({
      code: 'invalid_request',
      detail: `${SELLER} cannot send trade offers: the account is trade banned`,
    });
    expect(await f.platform.offersOf(SELLER)).toEqual([]);
  });
});

describe('Inventories', () => {
  it('gives each granted copy its own asset id and a 32-character revision', async () => {
    const ids = await f.platform.inventories.grant(SELLER, ITEM, 3);
    const copies = await inventory(SELLER);
    expect(copies.map((c) => c.assetId)).toEqual(ids);
    expect(new Set(copies.map((c) => c.revision)).size).toBe(3);
    expect(copies[0]).toMatchObject({ appId: 730, offerId: null, acquiredAt: START });
  });

  it('keeps the first read of a fresh inventory pending for a few seconds, then ready', async () => {
    await f.platform.inventories.grant(SELLER, ITEM, 1);
    expect(await f.platform.inventories.read(SELLER)).toEqual({
      proof: { status: 'pending', retryAfterMs: 5_000 },
      copies: [],
    });
    f.clock.advance(2_000);
    expect((await f.platform.inventories.read(SELLER)).proof).toEqual({
      status: 'pending',
      retryAfterMs: 3_000,
    });
    f.clock.advance(3_000);
    const ready = await f.platform.inventories.read(SELLER);
    expect(ready.proof).toEqual({ status: 'ready', checkedAt: START + 5_000 });
    expect(ready.copies).toHaveLength(1);
  });

  it.each([
    ['private', 'inventory_private'],
    ['trade_banned', 'trade_banned'],
  ] as const)(
    'blocks the proof of a %s inventory with %s, and a change back makes it fresh',
    async (visibility, code) => {
      await f.units.run((uow) => f.platform.setInventoryVisibility(uow, SELLER, visibility));
      expect(await f.platform.inventories.read(SELLER)).toEqual({
        proof: { status: 'blocked', code },
        copies: [],
      });
      await f.units.run((uow) => f.platform.setInventoryVisibility(uow, SELLER, 'ready'));
      expect((await f.platform.inventories.read(SELLER)).proof.status).toBe('pending');
    },
  );

  it('removes a copy at home and refuses one that is not there', async () => {
    const [assetId] = await f.platform.inventories.grant(SELLER, ITEM, 1);
    await expect(f.platform.inventories.remove(BUYER, assetId as string)).rejects.toMatchObject({
      code: 'not_found',
      detail: `no asset ${assetId} in the inventory of ${BUYER}`,
    });
    await f.platform.inventories.remove(SELLER, assetId as string);
    expect(await inventory(SELLER)).toEqual([]);
  });
});

describe('an offer its sender answers (answeredBy: sender)', () => {
  const askSeller = (assetIds: string[]) => sendFromSeller(assetIds, 'sender');

  it("follows the sender's offers behaviour, not the recipient's, and is re-planned when it changes", async () => {
    const [first, second] = await f.platform.inventories.grant(SELLER, ITEM, 2);
    await behave(BUYER, 'decline');
    await behave(SELLER, 'ignore');
    const { offerId } = await askSeller([first as string]);
    await f.advance(60_000);
    expect(await f.stateOf(SELLER, offerId)).toBe('active');
    await behave(SELLER, 'accept');
    await f.advance(1_000);
    expect(await f.stateOf(SELLER, offerId)).toBe('accepted');
    await behave(SELLER, 'decline');
    const declined = await askSeller([second as string]);
    await f.advance(30_000);
    expect(await f.stateOf(SELLER, declined.offerId)).toBe('declined');
    expect((await inventory(SELLER)).map((c) => c.marketHashName)).toEqual([ITEM.marketHashName]);
  });
});
