/** Seeded random listings for tests: few distinct names, prices and timestamps, so ties and groups occur. */
import type { Delivery, Listing, Sticker, Wear } from '../../src/contract/listing.js';
import { DELIVERIES, WEARS } from '../../src/contract/listing.js';

/** A small seeded PRNG (mulberry32). */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
}

/** Creates a seeded {@link Random}. */
export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return {
    next,
    int,
    chance: (p) => next() < p,
    pick: (items) => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[int(items.length)] as (typeof items)[number];
    },
  };
}

/** Weapons with their category; skins are shared between them. */
export const WEAPONS = [
  ['AK-47', 'Rifle'],
  ['M4A4', 'Rifle'],
  ['AWP', 'Sniper Rifle'],
  ['Glock-18', 'Pistol'],
  ['Desert Eagle', 'Pistol'],
  ['MP9', 'SMG'],
  ['★ Karambit', 'Knife'],
  ['★ Sport Gloves', 'Gloves'],
] as const;
export const SKINS = ['Redline', 'Asiimov', 'Doppler', 'Fade', 'Slate', 'Vulcan', 'Hyper Beast'] as const;
export const RARITIES = ['Mil-Spec Grade', 'Restricted', 'Classified', 'Covert'] as const;
const PHASES = ['Phase 1', 'Phase 2', 'Ruby', 'Sapphire'] as const;
const BASE_MS = Date.parse('2026-11-01T00:00:00.000Z');

/** Options of {@link createListingFactory}. */
export interface ListingFactoryOptions {
  seed: number;
  /** Game the listings look like: 730 fills the CS2-only fields, others leave them null. @default 730 */
  appId?: number;
}

/** Makes listings; each call gives a new unique id unless `overrides.id` is set. */
export type ListingFactory = (overrides?: Partial<Listing>) => Listing;

/**
 * Creates a factory of plausible random listings.
 * @example
 * const make = createListingFactory({ seed: 1 });
 * const listing = make({ price_usd: 12.5 });
 */
export function createListingFactory(options: ListingFactoryOptions): ListingFactory {
  const random = createRandom(options.seed);
  const cs2 = (options.appId ?? 730) === 730;
  let serial = 0;
  return (overrides = {}) => {
    serial++;
    const [weapon, category] = random.pick(WEAPONS);
    const skin = random.pick(SKINS);
    const wear: Wear | null = cs2 ? random.pick(WEARS) : null;
    const prefix = !cs2 ? '' : random.chance(0.2) ? 'StatTrak™ ' : random.chance(0.1) ? 'Souvenir ' : '';
    const name = `${prefix}${weapon} | ${skin}${wear === null ? '' : ` (${wear})`}`;
    const listing: Listing = {
      id: `${random.int(36 ** 4).toString(36)}-${options.seed}-${serial}`,
      market_hash_name: name,
      wear,
      doppler_phase: cs2 && skin === 'Doppler' ? random.pick(PHASES) : null,
      float_value: cs2 && random.chance(0.9) ? Math.round(random.next() * 1e6) / 1e6 : null,
      paint_seed: cs2 ? random.int(1000) : null,
      stickers: cs2 ? stickers(random) : [],
      // Few distinct prices, so equal prices are common and the id breaks ties.
      price_usd: (1 + random.int(400)) * 0.25,
      category: random.chance(0.1) ? category.toUpperCase() : category,
      rarity: random.pick(RARITIES),
      image: `https://img.example.test/${encodeURIComponent(`${weapon} ${skin}`)}.png`,
      inspect_link: cs2
        ? `steam://rungame/730/76561202255233023/+csgo_econ_action_preview%20A${serial}D1`
        : null,
      tradable: random.chance(0.8),
      tradable_at: null,
      delivery: random.pick<Delivery>(DELIVERIES),
      refund_percent: random.chance(0.3) ? null : random.pick([0, 50, 75, 100]),
      // Whole minutes over a few days, so equal timestamps are common; some rows have none.
      listed_at:
        cs2 && random.chance(0.95) ? new Date(BASE_MS + random.int(5000) * 60_000).toISOString() : null,
      source: 'platform',
      api_purchasable: true,
      ...overrides,
    };
    return listing;
  };
}

function stickers(random: Random): Sticker[] {
  const count = random.int(3);
  return Array.from({ length: count }, (_, slot) => ({
    name: `Sticker | Team ${random.int(20)} | Katowice 2014`,
    image: `https://img.example.test/sticker-${random.int(100)}.png`,
    slot,
    wear: random.chance(0.5) ? 0 : Math.round(random.next() * 100) / 100,
  }));
}
