/** A listing's JSON: exactly `JSON.stringify` of the listing with the keys in schema order. */
import type { Listing } from '../../../contract/listing.js';

/** The listing object with keys (its own and its stickers') in the schema's order, extra keys dropped. */
export function orderListingKeys(l: Listing): Listing {
  return {
    id: l.id,
    market_hash_name: l.market_hash_name,
    wear: l.wear,
    doppler_phase: l.doppler_phase,
    float_value: l.float_value,
    paint_seed: l.paint_seed,
    stickers: l.stickers.map((s) => ({ name: s.name, image: s.image, slot: s.slot, wear: s.wear })),
    price_usd: l.price_usd,
    category: l.category,
    rarity: l.rarity,
    image: l.image,
    inspect_link: l.inspect_link,
    tradable: l.tradable,
    tradable_at: l.tradable_at,
    delivery: l.delivery,
    refund_percent: l.refund_percent,
    listed_at: l.listed_at,
    ...(l.source === undefined ? {} : { source: l.source }),
    ...(l.api_purchasable === undefined ? {} : { api_purchasable: l.api_purchasable }),
  };
}
