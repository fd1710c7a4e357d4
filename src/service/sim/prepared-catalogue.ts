/** The catalogue facts turned once into what the generator needs per draw: names, images, weights, prices. */
import { WEARS } from '../../contract/listing.js';
import { type CatalogueFacts, type Cs2Skin, loadCatalogueFacts } from './catalogue-facts.js';
import { type FinishPricing, prepareFinishPricing } from './pricing.js';
import { cumulativeWeights, hashSequence } from './random.js';

/** Where item and sticker images are served from. */
export const IMAGE_BASE_URL = 'https://cdn.skin-market.test';

/** Index into {@link PreparedSkin.names}: plain, StatTrak™ or Souvenir. */
export const VARIANT = { plain: 0, statTrak: 1, souvenir: 2 } as const;

/** Phases of a finish, ready for a weighted draw. */
export interface PreparedPhases {
  readonly names: readonly string[];
  readonly multipliers: readonly number[];
  readonly cumulative: Float64Array;
}

/** A CS2 finish with everything a listing of it needs. */
export interface PreparedSkin {
  readonly skin: Cs2Skin;
  readonly pricing: FinishPricing;
  /** Market hash names by variant ({@link VARIANT}) then wear index (Factory New first). */
  readonly names: readonly (readonly string[])[];
  readonly image: string;
  readonly phases: PreparedPhases | null;
  /** Only guns carry stickers; knives and gloves do not. */
  readonly takesStickers: boolean;
  readonly statTrakMultiplier: number;
  readonly souvenirMultiplier: number;
}

/** A sticker, as a listing of its own or applied to a gun. */
export interface PreparedSticker {
  readonly name: string;
  readonly rarity: string;
  readonly image: string;
  readonly priceUsd: number;
}

/** A Dota 2 or Rust item. */
export interface PreparedItem {
  readonly name: string;
  readonly category: string;
  readonly rarity: string;
  readonly image: string;
  readonly priceUsd: number;
}

/** The whole prepared catalogue with the cumulative weights of each draw. */
export interface PreparedCatalogue {
  readonly skins: readonly PreparedSkin[];
  readonly skinWeights: Float64Array;
  readonly stickers: readonly PreparedSticker[];
  /** Stickers listed on their own: cheap ones far more often. */
  readonly stickerListingWeights: Float64Array;
  /** Stickers applied to guns: mostly cheap ones, now and then a collectible. */
  readonly appliedStickerWeights: Float64Array;
  readonly dota2: readonly PreparedItem[];
  readonly dota2Weights: Float64Array;
  readonly rust: readonly PreparedItem[];
  readonly rustWeights: Float64Array;
}

const RARITY_WEIGHTS: Readonly<Record<string, number>> = {
  'Consumer Grade': 6,
  'Industrial Grade': 6,
  'Mil-Spec Grade': 5,
  Restricted: 3.5,
  Classified: 2,
  Covert: 1.2,
  Contraband: 0.2,
};

let cached: PreparedCatalogue | undefined;

/** The prepared catalogue of the repository's facts, built on first use and shared afterwards. */
export function loadPreparedCatalogue(): PreparedCatalogue {
  cached ??= prepareCatalogue(loadCatalogueFacts());
  return cached;
}

/** Prepares the facts for generation; call once and reuse the result. */
export function prepareCatalogue(facts: CatalogueFacts): PreparedCatalogue {
  const skins = facts.cs2Skins.map((skin, index) => prepareSkin(skin, index, facts));
  const stickers = facts.stickers.map((s) => ({
    name: s.name,
    rarity: s.rarity,
    image: `${IMAGE_BASE_URL}/stickers/${slugify(s.name.slice('Sticker | '.length))}.png`,
    priceUsd: s.price_usd,
  }));
  const dota2 = facts.dota2Items.map(prepareItem);
  const rust = facts.rustItems.map(prepareItem);
  return {
    skins,
    skinWeights: cumulativeWeights(skins.map(skinWeight)),
    stickers,
    stickerListingWeights: cumulativeWeights(stickers.map((s) => (s.priceUsd + 1) ** -0.5)),
    appliedStickerWeights: cumulativeWeights(stickers.map((s) => (s.priceUsd + 0.3) ** -0.8)),
    dota2,
    dota2Weights: cumulativeWeights(dota2.map((i) => (i.priceUsd + 1) ** -0.3)),
    rust,
    rustWeights: cumulativeWeights(rust.map((i) => (i.priceUsd + 1) ** -0.3)),
  };
}

/**
 * A lower-case, dash-separated ASCII slug for image paths.
 * @example slugify('★ M9 Bayonet | Doppler') // 'm9-bayonet-doppler'
 */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/['’]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function prepareSkin(skin: Cs2Skin, index: number, facts: CatalogueFacts): PreparedSkin {
  const starred = skin.category === 'Knife' || skin.category === 'Gloves';
  const base = `${skin.weapon} | ${skin.finish}`;
  const named = (prefix: string) => WEARS.map((wear) => `${prefix}${base} (${wear})`);
  const phases = skin.category === 'Knife' ? facts.phasesByFinish.get(skin.finish) : undefined;
  return {
    skin,
    pricing: prepareFinishPricing(skin.price_usd, skin.min_float, skin.max_float),
    names: starred
      ? [named('★ '), named('★ StatTrak™ '), named('★ ')]
      : [named(''), named('StatTrak™ '), named('Souvenir ')],
    image: `${IMAGE_BASE_URL}/items/${slugify(base)}.png`,
    phases: phases
      ? {
          names: phases.map((p) => p.phase),
          multipliers: phases.map((p) => p.multiplier),
          cumulative: cumulativeWeights(phases.map((p) => p.weight)),
        }
      : null,
    takesStickers: !starred,
    statTrakMultiplier: 1.3 + 1.2 * unit(index, 11),
    souvenirMultiplier: 1.5 + 2.5 * unit(index, 12),
  };
}

/** How often a finish is listed relative to others: knives and gloves are rare, then by rarity. */
export function skinWeight(prepared: PreparedSkin): number {
  const { category, rarity } = prepared.skin;
  if (category === 'Knife') return 0.22;
  if (category === 'Gloves') return 0.3;
  return RARITY_WEIGHTS[rarity] ?? 1;
}

function prepareItem(item: {
  market_hash_name: string;
  category: string;
  rarity: string;
  price_usd: number;
}): PreparedItem {
  return {
    name: item.market_hash_name,
    category: item.category,
    rarity: item.rarity,
    image: `${IMAGE_BASE_URL}/items/${slugify(item.market_hash_name)}.png`,
    priceUsd: item.price_usd,
  };
}

/** A stable number in [0, 1) for a catalogue index, so per-finish multipliers never change between runs. */
function unit(index: number, salt: number): number {
  return hashSequence(0x5eed, index, salt) / 4294967296;
}
