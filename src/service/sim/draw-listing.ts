/** Draws the content of one listing (CS2 skin or sticker, Dota 2 or Rust item) from a seeded stream. */
import { APP_IDS, centsToUsd } from '../../contract/common.js';
import { type Delivery, type Listing, type Sticker, WEARS, type Wear } from '../../contract/listing.js';
import { formatListingId } from './listing-id.js';
import { listingOrigin } from './listing-origin.js';
import {
  type PreparedCatalogue,
  type PreparedItem,
  type PreparedSkin,
  VARIANT,
} from './prepared-catalogue.js';
import { priceItemCents, priceSkinCents, stickerPremiumCents, wearIndexForFloat } from './pricing.js';
import { cumulativeWeights, type Random } from './random.js';
import { formatTimestamp } from './timestamp.js';

const HOUR_MS = 3_600_000;
const INSPECT_PREFIX = 'steam://rungame/730/76561202255233023/+csgo_econ_action_preview%20S';

/** Share of CS2 listings that are stickers sold on their own. */
const STICKER_LISTING_SHARE = 0.12;
/** Raw float tiers of the game's wear roll (Factory New … Battle-Scarred), scaled into a finish's range. */
const FLOAT_TIER_WEIGHTS = cumulativeWeights([0.03, 0.24, 0.33, 0.24, 0.16]);
const FLOAT_TIER_BOUNDS = [0, 0.07, 0.15, 0.38, 0.45, 1] as const;
/** How many stickers a gun carries: 0 … 5. */
const STICKER_COUNT_WEIGHTS = cumulativeWeights([0.72, 0.1, 0.07, 0.05, 0.04, 0.02]);
const REFUND_FIGURES = [0, 50, 80, 100] as const;
const REFUND_WEIGHTS = cumulativeWeights([0.15, 0.2, 0.25, 0.4]);

/**
 * Draws one listing. `rng` must already be seeded for `sequence`; the game is chosen first
 * (80% CS2, 10% Dota 2, 10% Rust) and everything else follows from the same stream.
 */
export function drawListing(
  catalogue: PreparedCatalogue,
  rng: Random,
  sequence: number,
  listedAtMs: number,
): { appId: number; listing: Listing } {
  const game = rng.next();
  if (game < 0.8) return { appId: APP_IDS.cs2, listing: drawCs2(catalogue, rng, sequence, listedAtMs) };
  if (game < 0.9)
    return { appId: APP_IDS.dota2, listing: drawOtherGame(APP_IDS.dota2, catalogue, rng, sequence) };
  return { appId: APP_IDS.rust, listing: drawOtherGame(APP_IDS.rust, catalogue, rng, sequence) };
}

/** Delivery of a Dota 2 or Rust row, or of a CS2 row whose hold has ended: never `hold`. */
export function drawReleasedDelivery(rng: Random): Delivery {
  return rng.chance(0.7) ? 'instant' : 'up_to_12h';
}

function drawCs2(catalogue: PreparedCatalogue, rng: Random, sequence: number, listedAtMs: number): Listing {
  let name: string;
  let wear: Wear | null = null;
  let phase: string | null = null;
  let float: number | null = null;
  let seed: number | null = null;
  const stickers: Sticker[] = [];
  let cents: number;
  let category: string;
  let rarity: string;
  let image: string;
  let inspect: string | null = null;

  if (rng.chance(STICKER_LISTING_SHARE)) {
    const sticker = catalogue.stickers[rng.weighted(catalogue.stickerListingWeights)];
    if (sticker === undefined) throw new Error('the catalogue has no stickers');
    name = sticker.name;
    category = 'Sticker';
    rarity = sticker.rarity;
    image = sticker.image;
    cents = priceItemCents(sticker.priceUsd, rng);
  } else {
    const prepared = catalogue.skins[rng.weighted(catalogue.skinWeights)];
    if (prepared === undefined) throw new Error('the catalogue has no CS2 skins');
    float = drawFloat(rng, prepared.skin.min_float, prepared.skin.max_float);
    const wearIndex = wearIndexForFloat(float);
    const variant = drawVariant(rng, prepared);
    let phaseMultiplier = 1;
    if (prepared.phases !== null) {
      const p = rng.weighted(prepared.phases.cumulative);
      phase = prepared.phases.names[p] ?? null;
      phaseMultiplier = prepared.phases.multipliers[p] ?? 1;
    }
    let stickerCents = 0;
    if (prepared.takesStickers) stickerCents = drawStickers(catalogue, rng, stickers);
    const variantMultiplier =
      variant === VARIANT.statTrak
        ? prepared.statTrakMultiplier
        : variant === VARIANT.souvenir
          ? prepared.souvenirMultiplier
          : 1;
    name = prepared.names[variant]?.[wearIndex] ?? '';
    wear = WEARS[wearIndex] ?? null;
    seed = rng.int(0, 1000);
    category = prepared.skin.category;
    rarity = prepared.skin.rarity;
    image = prepared.image;
    inspect = drawInspectLink(rng);
    cents = priceSkinCents(
      prepared.pricing,
      float,
      { phase: phaseMultiplier, variant: variantMultiplier, stickerCents },
      rng,
    );
  }

  const roll = rng.next();
  const delivery: Delivery = roll < 0.6 ? 'instant' : roll < 0.85 ? 'up_to_12h' : 'hold';
  const tradableAt = delivery === 'hold' ? formatTimestamp(listedAtMs + rng.int(24, 192) * HOUR_MS) : null;
  return {
    id: formatListingId(APP_IDS.cs2, sequence),
    market_hash_name: name,
    wear,
    doppler_phase: phase,
    float_value: float,
    paint_seed: seed,
    stickers,
    price_usd: centsToUsd(cents),
    category,
    rarity,
    image,
    inspect_link: inspect,
    tradable: delivery !== 'hold',
    tradable_at: tradableAt,
    delivery,
    refund_percent: drawRefund(rng),
    listed_at: formatTimestamp(listedAtMs),
    ...listingOrigin(sequence),
  };
}

function drawOtherGame(appId: number, catalogue: PreparedCatalogue, rng: Random, sequence: number): Listing {
  const items = appId === APP_IDS.dota2 ? catalogue.dota2 : catalogue.rust;
  const weights = appId === APP_IDS.dota2 ? catalogue.dota2Weights : catalogue.rustWeights;
  const item: PreparedItem | undefined = items[rng.weighted(weights)];
  if (item === undefined) throw new Error(`the catalogue has no items for appId ${appId}`);
  const cents = priceItemCents(item.priceUsd, rng);
  return {
    id: formatListingId(appId, sequence),
    market_hash_name: item.name,
    wear: null,
    doppler_phase: null,
    float_value: null,
    paint_seed: null,
    stickers: [],
    price_usd: centsToUsd(cents),
    category: item.category,
    rarity: item.rarity,
    image: item.image,
    inspect_link: null,
    tradable: true,
    tradable_at: null,
    delivery: drawReleasedDelivery(rng),
    refund_percent: drawRefund(rng),
    listed_at: null,
    source: 'platform',
    api_purchasable: true,
  };
}

/** An inspect link in the platform's form: a 64-bit owner id, an asset id and the D number. */
function drawInspectLink(rng: Random): string {
  // Built from 9-digit pieces: small integers turn into strings far faster than 17-digit ones.
  const owner = rng.int(100_000_000, 999_999_999);
  const asset = `${rng.int(10, 49)}${rng.int(100_000_000, 999_999_999)}`;
  const d = `${rng.int(1, 9)}${rng.int(100_000_000, 999_999_999)}${rng.int(100_000_000, 999_999_999)}`;
  return `${INSPECT_PREFIX}76561198${owner}A${asset}D${d}`;
}

/** A float as the game rolls it: a wear tier first, then a point in it, scaled into the finish's range. */
function drawFloat(rng: Random, min: number, max: number): number {
  const tier = rng.weighted(FLOAT_TIER_WEIGHTS);
  const raw = rng.float(FLOAT_TIER_BOUNDS[tier] ?? 0, FLOAT_TIER_BOUNDS[tier + 1] ?? 1);
  // Stored as the game stores it, a 32-bit float, then kept inside the finish's range.
  return Math.min(max, Math.max(min, Math.fround(min + raw * (max - min))));
}

function drawVariant(rng: Random, prepared: PreparedSkin): number {
  if (prepared.skin.stattrak && rng.chance(prepared.skin.category === 'Knife' ? 0.2 : 0.15))
    return VARIANT.statTrak;
  if (prepared.skin.souvenir && rng.chance(0.12)) return VARIANT.souvenir;
  return VARIANT.plain;
}

/** Puts 0-5 stickers on distinct slots into `out` and returns the premium they add, in cents. */
function drawStickers(catalogue: PreparedCatalogue, rng: Random, out: Sticker[]): number {
  const count = rng.weighted(STICKER_COUNT_WEIGHTS);
  if (count === 0) return 0;
  const slots = [0, 1, 2, 3, 4];
  for (let i = 0; i < count; i++) {
    const j = rng.int(i, 4);
    const t = slots[i] ?? i;
    slots[i] = slots[j] ?? j;
    slots[j] = t;
  }
  const chosen = slots.slice(0, count).sort((a, b) => a - b);
  let premium = 0;
  for (const slot of chosen) {
    const sticker = catalogue.stickers[rng.weighted(catalogue.appliedStickerWeights)];
    if (sticker === undefined) throw new Error('the catalogue has no stickers');
    const wear = rng.chance(0.7) ? 0 : Math.round(rng.float(0.01, 1) * 10_000) / 10_000;
    out.push({ name: sticker.name, image: sticker.image, slot, wear });
    premium += stickerPremiumCents(sticker.priceUsd, wear);
  }
  return premium;
}

function drawRefund(rng: Random): number | null {
  if (rng.chance(0.3)) return null;
  return REFUND_FIGURES[rng.weighted(REFUND_WEIGHTS)] ?? null;
}
