/** The simulator's price model, in integer cents: wear, float, phase, StatTrak, Souvenir, stickers and noise. */
import { WEARS, type Wear } from '../../contract/listing.js';
import type { Random } from './random.js';

/** The cheapest price a listing may ask, in cents. @default 3 */
export const MIN_PRICE_CENTS = 3;

/** Upper float bound of each wear band, in the order of {@link WEARS}; each band is [previous bound, bound). */
export const WEAR_UPPER_BOUNDS = [0.07, 0.15, 0.38, 0.45, 1] as const;

/** Price relative to Field-Tested by wear index (Factory New first). */
export const WEAR_MULTIPLIERS = [1.9, 1.35, 1, 0.82, 0.72] as const;

/** The wear index (0 Factory New … 4 Battle-Scarred) of a float value. */
export function wearIndexForFloat(float: number): number {
  if (float < 0.07) return 0;
  if (float < 0.15) return 1;
  if (float < 0.38) return 2;
  if (float < 0.45) return 3;
  return 4;
}

/** The wear name of a float value: Factory New [0,0.07) … Battle-Scarred [0.45,1]. */
export function wearForFloat(float: number): Wear {
  return WEARS[wearIndexForFloat(float)] as Wear;
}

/** Per-finish numbers prepared once so pricing a listing does no allocation. */
export interface FinishPricing {
  /** Price in cents of a Field-Tested-equivalent item (the typical price divided by its wear's multiplier). */
  readonly fieldTestedCents: number;
  readonly minFloat: number;
  readonly maxFloat: number;
}

/**
 * Prepares the pricing of a finish whose typical price is `typicalUsd`: the Field-Tested price when
 * the float range reaches Field-Tested, else the price in the wear of the range's midpoint.
 */
export function prepareFinishPricing(typicalUsd: number, minFloat: number, maxFloat: number): FinishPricing {
  const reachesFieldTested = minFloat < 0.38 && maxFloat > 0.15;
  const referenceWear = reachesFieldTested ? 2 : wearIndexForFloat((minFloat + maxFloat) / 2);
  return {
    fieldTestedCents: (typicalUsd * 100) / (WEAR_MULTIPLIERS[referenceWear] ?? 1),
    minFloat,
    maxFloat,
  };
}

/**
 * The premium of a float inside its wear band (narrowed to the finish's range): up to +15% at the
 * band's low end, and more for the extreme low floats collectors chase.
 */
export function floatPremium(pricing: FinishPricing, float: number): number {
  const wear = wearIndexForFloat(float);
  const low = Math.max(wear === 0 ? 0 : (WEAR_UPPER_BOUNDS[wear - 1] ?? 0), pricing.minFloat);
  const high = Math.min(WEAR_UPPER_BOUNDS[wear] ?? 1, pricing.maxFloat);
  const position = high > low ? Math.min(1, Math.max(0, (float - low) / (high - low))) : 0.5;
  let premium = 1 + 0.15 * (1 - position) * (1 - position);
  if (float < 0.001) premium *= 1.8;
  else if (float < 0.01) premium *= 1.25;
  return premium;
}

/** What moves the price of one CS2 skin listing, besides its float. */
export interface SkinPriceFactors {
  /** Doppler phase multiplier, 1 when the finish has no phase. */
  readonly phase: number;
  /** StatTrak or Souvenir multiplier, 1 for a plain item. */
  readonly variant: number;
  /** Premium in cents for the applied stickers (see {@link stickerPremiumCents}). */
  readonly stickerCents: number;
}

/** The asking price in cents of a CS2 skin at `float`, with random noise drawn from `rng`. */
export function priceSkinCents(
  pricing: FinishPricing,
  float: number,
  factors: SkinPriceFactors,
  rng: Random,
): number {
  const wearMultiplier = WEAR_MULTIPLIERS[wearIndexForFloat(float)] ?? 1;
  const item =
    pricing.fieldTestedCents *
    wearMultiplier *
    floatPremium(pricing, float) *
    factors.phase *
    factors.variant;
  return finishCents((item + factors.stickerCents) * noise(rng));
}

/**
 * The premium in cents that one applied sticker adds: a small share of its price, more for the
 * collectible ones (100 USD or more), and much less once scraped.
 */
export function stickerPremiumCents(stickerUsd: number, wear: number): number {
  const share = stickerUsd >= 100 ? 0.12 : 0.04;
  const scrape = wear === 0 ? 1 : 0.25 * (1 - wear);
  return stickerUsd * 100 * share * scrape;
}

/** The asking price in cents of an item priced as a whole (stickers, Dota 2, Rust) around `typicalUsd`. */
export function priceItemCents(typicalUsd: number, rng: Random): number {
  return finishCents(typicalUsd * 100 * noise(rng));
}

/** A fresh asking price in cents drawn around a previous one (±15% at most), for a re-listing. */
export function repriceCents(previousCents: number, rng: Random): number {
  const move = Math.min(1.15, Math.max(0.85, 1 + 0.05 * rng.normal()));
  return finishCents(previousCents * move);
}

function noise(rng: Random): number {
  return Math.min(1.2, Math.max(0.85, 1 + 0.05 * rng.normal()));
}

function finishCents(cents: number): number {
  return Math.max(MIN_PRICE_CENTS, Math.round(cents));
}
