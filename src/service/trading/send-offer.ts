/** Sending one trade offer with the chosen items of an order, and marking them with its id. */
import type { UnitOfWork } from '../core/unit-of-work.js';
import type { ItemRecord, OrderRecord } from './order-record.js';
import type { TradePlatform } from './ports.js';

/** Sends the items `pick` selects in one offer to the order's recipient; none selected sends nothing. */
export async function sendOffer(
  uow: UnitOfWork,
  platform: TradePlatform,
  order: OrderRecord,
  pick: (item: ItemRecord) => boolean,
): Promise<void> {
  const items = order.items.filter(pick);
  if (items.length === 0 || order.steamId === null) return;
  const { offerId } = await platform.sendOffer(uow, {
    orderId: order.id,
    steamId: order.steamId,
    items: items.map((i) => ({
      itemKey: `${order.id}:${i.position}`,
      appId: order.appId,
      marketHashName: i.marketHashName,
      listingId: i.listingId,
      listingJson: i.listingJson,
    })),
  });
  for (const item of items) item.offerId = offerId;
}
