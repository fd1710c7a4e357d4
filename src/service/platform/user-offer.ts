/** Preparing a user's own trade offer: the sender's copies it carries, checked in the sender's inventory. */
import { refuse } from '../core/refuse.js';
import type { UnitOfWork } from '../core/unit-of-work.js';
import type { InventoryStates } from './inventory-proof.js';
import type { InventoryStore } from './inventory-store.js';
import type { StoredOffer } from './offer-store.js';
import type { NewUserOffer } from './offer-types.js';

const STEAM_ID = /^[0-9]{17}$/;

/**
 * The offer to store for a user's offer, as the unit of work sees the sender's inventory; refused
 * when a copy is not at home there or the sender is trade banned.
 */
export async function prepareUserOffer(
  uow: UnitOfWork,
  stores: { inventory: InventoryStore; states: InventoryStates },
  offer: NewUserOffer,
): Promise<StoredOffer> {
  for (const id of [offer.fromSteamId, offer.toSteamId])
    if (!STEAM_ID.test(id)) throw new RangeError(`not a 17-digit steam id: ${id}`);
  if (offer.fromSteamId === offer.toSteamId) throw new RangeError('a user cannot send an offer to itself');
  if (offer.items.length === 0) throw new RangeError('a trade offer needs at least one item');
  if (new Set(offer.items.map((i) => i.itemKey)).size !== offer.items.length)
    throw new RangeError('item keys of an offer must be unique');
  if (new Set(offer.items.map((i) => i.assetId)).size !== offer.items.length)
    throw new RangeError('an offer carries each copy once');
  if ((await stores.states.visibility(uow, offer.fromSteamId)) === 'trade_banned')
    throw refuse(
      'invalid_request',
      `${offer.fromSteamId} cannot send trade offers: the account is trade banned`,
    );
  const items: StoredOffer['items'] = [];
  for (const item of offer.items) {
    const copy = await stores.inventory.copyIn(uow, offer.fromSteamId, item.assetId);
    if (!copy) throw refuse('not_found', `no asset ${item.assetId} in the inventory of ${offer.fromSteamId}`);
    items.push({
      itemKey: item.itemKey,
      assetId: copy.assetId,
      appId: copy.appId,
      marketHashName: copy.marketHashName,
      listingId: copy.listingId,
      listingJson: copy.listingJson,
    });
  }
  const sentAt = Math.min(offer.sentAt ?? uow.now, uow.now);
  return {
    orderId: offer.orderId,
    steamId: offer.toSteamId,
    senderSteamId: offer.fromSteamId,
    items,
    sentAt,
    ...(offer.answeredBy === 'sender' ? { answererSteamId: offer.fromSteamId } : {}),
  };
}
