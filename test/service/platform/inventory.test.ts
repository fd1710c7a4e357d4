/** Inventories: an accepted offer adds one copy per item with new asset ids; its rollback takes them away again. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openPlatform, type PlatformFixture, START, STEAM_ID } from './fixture.js';

let f: PlatformFixture;

beforeEach(async () => {
  f = await openPlatform();
});
afterEach(() => f.close());

describe('Platform inventories', () => {
  it('adds a copy of every item of an accepted offer, with its own asset id', async () => {
    const { offerId } = await f.send('ord_1', STEAM_ID, 3);
    expect(await f.platform.inventoryOf(STEAM_ID)).toEqual([]);
    await f.advance(30_000);
    const items = await f.platform.inventoryOf(STEAM_ID);
    expect(items).toHaveLength(3);
    expect(new Set(items.map((i) => i.asset_id)).size).toBe(3);
    expect(items.every((i) => /^[0-9]+$/.test(i.asset_id))).toBe(true);
    expect(items.map((i) => i.listing_id).sort()).toEqual(['lst_ord_1_0', 'lst_ord_1_1', 'lst_ord_1_2']);
    expect(items[0]).toMatchObject({
      app_id: 730,
      offer_id: offerId,
      acquired_at: new Date(START + 30_000).toISOString(),
    });
  });

  it('keeps the listing as it was bought with each copy', async () => {
    await f.send('ord_1', STEAM_ID, 1);
    await f.advance(30_000);
    expect(await f.db.read('SELECT listing, item_key FROM platform_inventory')).toEqual([
      { listing: JSON.stringify({ id: 'lst_ord_1_0', price_usd: 12.5 }), item_key: 'ord_1:0' },
    ]);
  });

  it('gives a second copy of the same listing a new asset id', async () => {
    await f.send('ord_1', STEAM_ID, 1);
    await f.send('ord_1', STEAM_ID, 1);
    await f.advance(30_000);
    const items = await f.platform.inventoryOf(STEAM_ID);
    expect(items.map((i) => i.listing_id)).toEqual(['lst_ord_1_0', 'lst_ord_1_0']);
    expect(items[0]?.asset_id).not.toBe(items[1]?.asset_id);
  });

  it('removes the copies of a rolled-back offer and only those', async () => {
    const kept = await f.send('ord_kept', STEAM_ID, 1);
    const reversed = await f.send('ord_reversed', STEAM_ID, 2);
    await f.advance(30_000);
    expect(await f.platform.inventoryOf(STEAM_ID)).toHaveLength(3);
    await f.platform.act(reversed.offerId, 'rollback');
    expect((await f.platform.inventoryOf(STEAM_ID)).map((i) => i.offer_id)).toEqual([kept.offerId]);
  });

  it('keeps inventories of different accounts apart', async () => {
    await f.send('ord_1', STEAM_ID, 1);
    await f.send('ord_2', '76561197960265741', 2);
    await f.advance(30_000);
    expect(await f.platform.inventoryOf(STEAM_ID)).toHaveLength(1);
    expect(await f.platform.inventoryOf('76561197960265741')).toHaveLength(2);
  });

  it('adds nothing when the acceptance rolls back', async () => {
    f.platform.onOfferClosed(async () => {
      throw new Error('refused');
    });
    await f.send('ord_1', STEAM_ID, 2);
    await expect(f.advance(30_000)).rejects.toThrow();
    expect(await f.platform.inventoryOf(STEAM_ID)).toEqual([]);
  });
});
