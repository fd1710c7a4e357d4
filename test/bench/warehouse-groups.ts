/**
 * The price groups of a generated warehouse, drawn from the repository's catalogue facts the way
 * the service's simulator names them: CS2 finishes by wear, StatTrak™ and Souvenir variants,
 * Doppler phases of knives, stickers listed on their own; and a few Dota 2 and Rust items.
 */
import { APP_IDS } from '../../src/contract/common.js';
import { WEARS, type Wear } from '../../src/contract/listing.js';
import { loadCatalogueFacts } from '../../src/service/sim/catalogue-facts.js';
import {
  loadPreparedCatalogue,
  type PreparedSkin,
  skinWeight,
  VARIANT,
} from '../../src/service/sim/prepared-catalogue.js';
import { WEAR_MULTIPLIERS, WEAR_UPPER_BOUNDS } from '../../src/service/sim/pricing.js';
import { Random } from '../../src/service/sim/random.js';

/** One CS2 group: the listings that share market_hash_name, wear and phase. */
export interface BenchGroup {
  market_hash_name: string;
  wear: Wear | null;
  doppler_phase: string | null;
  category: string;
  rarity: string;
  image: string;
  /** Float range of the group's listings; null for stickers. */
  float_min: number | null;
  float_max: number | null;
  takes_stickers: boolean;
  /** Typical ask in cents. */
  price_cents: number;
  /** Share of the listings that belong to the group (all groups sum to 1). */
  share: number;
}

/** A sticker that can be applied to a gun, cheapest first. */
export interface BenchSticker {
  name: string;
  image: string;
}

/** A Dota 2 or Rust item of the minAsk price lists. */
export interface BenchMinAskItem {
  app_id: number;
  market_hash_name: string;
  price_cents: number;
  share: number;
}

/** Groups always kept, so the data holds the names analysts look for first. */
const ALWAYS = ['AK-47 | Redline (Field-Tested)', '★ Karambit | Doppler (Factory New)'];

/**
 * `count` CS2 groups, most listed first: a weighted draw without replacement from every group the
 * catalogue can produce (seeded, so every run gets the same groups).
 */
export function benchGroups(count: number): BenchGroup[] {
  const candidates = loadPreparedCatalogue().skins.flatMap(skinGroups);
  for (const s of loadPreparedCatalogue().stickers) {
    candidates.push({
      market_hash_name: s.name,
      wear: null,
      doppler_phase: null,
      category: 'Sticker',
      rarity: s.rarity,
      image: s.image,
      float_min: null,
      float_max: null,
      takes_stickers: false,
      price_cents: Math.max(3, Math.round(s.priceUsd * 100)),
      share: 0.6 * (s.priceUsd + 1) ** -0.5,
    });
  }
  const random = new Random(730);
  const chosen = candidates
    .map((group) => ({
      group,
      key: ALWAYS.includes(group.market_hash_name) ? 2 : random.next() ** (1 / group.share),
    }))
    .sort((a, b) => b.key - a.key)
    .slice(0, count)
    .map((c) => c.group)
    .sort((a, b) => b.share - a.share);
  const total = chosen.reduce((sum, g) => sum + g.share, 0);
  return chosen.map((g) => ({ ...g, share: g.share / total }));
}

/** Stickers applied to guns, cheapest (most often applied) first. */
export function benchStickers(): BenchSticker[] {
  return [...loadPreparedCatalogue().stickers]
    .sort((a, b) => a.priceUsd - b.priceUsd)
    .map((s) => ({ name: s.name, image: s.image }));
}

/** The first `perGame` Dota 2 and Rust items of the catalogue, for the minAsk price lists. */
export function benchMinAskItems(perGame: number): BenchMinAskItem[] {
  const facts = loadCatalogueFacts();
  const games = [
    { appId: APP_IDS.dota2, items: facts.dota2Items },
    { appId: APP_IDS.rust, items: facts.rustItems },
  ];
  return games.flatMap(({ appId, items }) =>
    items.slice(0, perGame).map((item) => ({
      app_id: appId,
      market_hash_name: item.market_hash_name,
      price_cents: Math.max(3, Math.round(item.price_usd * 100)),
      share: (item.price_usd + 1) ** -0.3,
    })),
  );
}

/** Every group of one finish: each wear its float range reaches, each variant, each phase. */
function skinGroups(prepared: PreparedSkin): BenchGroup[] {
  const { skin } = prepared;
  const weight = skinWeight(prepared);
  const variants: { index: number; share: number; price: number }[] = [
    { index: VARIANT.plain, share: 0.75, price: 1 },
  ];
  if (skin.stattrak)
    variants.push({ index: VARIANT.statTrak, share: 0.15, price: prepared.statTrakMultiplier });
  if (skin.souvenir)
    variants.push({ index: VARIANT.souvenir, share: 0.1, price: prepared.souvenirMultiplier });
  const phases = prepared.phases
    ? prepared.phases.names.map((name, i) => ({
        name,
        share: (prepared.phases?.cumulative[i] ?? 0) - (prepared.phases?.cumulative[i - 1] ?? 0),
        price: prepared.phases?.multipliers[i] ?? 1,
      }))
    : [{ name: null, share: 1, price: 1 }];
  const groups: BenchGroup[] = [];
  WEARS.forEach((wear, w) => {
    const low = Math.max(skin.min_float, w === 0 ? 0 : (WEAR_UPPER_BOUNDS[w - 1] ?? 0));
    const high = Math.min(skin.max_float, WEAR_UPPER_BOUNDS[w] ?? 1);
    if (high <= low) return;
    const wearShare = (high - low) / (skin.max_float - skin.min_float);
    for (const variant of variants) {
      for (const phase of phases) {
        groups.push({
          market_hash_name: prepared.names[variant.index]?.[w] ?? '',
          wear,
          doppler_phase: phase.name,
          category: skin.category,
          rarity: skin.rarity,
          image: prepared.image,
          float_min: low,
          // The band's upper bound belongs to the next wear.
          float_max: high === (WEAR_UPPER_BOUNDS[w] ?? 1) && w < 4 ? high - 1e-6 : high,
          takes_stickers: prepared.takesStickers,
          price_cents: Math.max(
            3,
            Math.round(
              prepared.pricing.fieldTestedCents * (WEAR_MULTIPLIERS[w] ?? 1) * variant.price * phase.price,
            ),
          ),
          share: weight * wearShare * variant.share * phase.share,
        });
      }
    }
  });
  return groups;
}
