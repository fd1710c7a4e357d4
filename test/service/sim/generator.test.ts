import { describe, expect, it } from 'vitest';
import { APP_IDS, isWholeCents } from '../../../src/contract/common.js';
import { listingSchema, WEARS } from '../../../src/contract/listing.js';
import { loadCatalogueFacts } from '../../../src/service/sim/catalogue-facts.js';
import {
  createListingGenerator,
  type GeneratedListing,
  generateCatalogue,
} from '../../../src/service/sim/generator.js';

const NOW = Date.parse('2026-11-21T12:00:00.000Z');
const DAY = 86_400_000;
const SAMPLE = [...generateCatalogue({ seed: 20261121, count: 20_000, nowMs: NOW })];
const CS2 = SAMPLE.filter((g) => g.appId === APP_IDS.cs2).map((g) => g.listing);
const SKINS = CS2.filter((l) => l.category !== 'Sticker');
const OTHERS = SAMPLE.filter((g) => g.appId !== APP_IDS.cs2).map((g) => g.listing);

const facts = loadCatalogueFacts();
const skinByName = new Map(facts.cs2Skins.map((s) => [`${s.weapon} | ${s.finish}`, s]));
const NAME =
  /^(★ )?(StatTrak™ |Souvenir )?(.+ \| .+) \((Factory New|Minimal Wear|Field-Tested|Well-Worn|Battle-Scarred)\)$/;

/** The platform's wear bands, written out here so the test does not trust the code under test. */
function wearOf(float: number): string {
  if (float < 0.07) return 'Factory New';
  if (float < 0.15) return 'Minimal Wear';
  if (float < 0.38) return 'Field-Tested';
  if (float < 0.45) return 'Well-Worn';
  return 'Battle-Scarred';
}

function share(rows: readonly unknown[], predicate: (row: never) => boolean): number {
  return rows.filter((r) => predicate(r as never)).length / rows.length;
}

function parseName(name: string) {
  const m = NAME.exec(name);
  if (m === null) throw new Error(`not a platform name: ${name}`);
  return { star: m[1] !== undefined, variant: m[2]?.trim() ?? null, base: m[3] ?? '', wear: m[4] ?? '' };
}

function take(count: number, seed: number, firstSequence?: number): GeneratedListing[] {
  const generator = createListingGenerator(firstSequence === undefined ? { seed } : { seed, firstSequence });
  return Array.from({ length: count }, (_, i) => generator.next(NOW + i * 1000));
}

describe('generateCatalogue', () => {
  it('produces rows that all pass the Listing schema', () => {
    for (const { listing } of SAMPLE) listingSchema.parse(listing);
  });

  it('mixes about 80% CS2, 10% Dota 2 and 10% Rust', () => {
    expect(CS2.length / SAMPLE.length).toBeCloseTo(0.8, 1);
    expect(share(SAMPLE, (g: GeneratedListing) => g.appId === APP_IDS.dota2)).toBeCloseTo(0.1, 1);
    expect(share(SAMPLE, (g: GeneratedListing) => g.appId === APP_IDS.rust)).toBeCloseTo(0.1, 1);
  });

  it('gives unique, increasing, fixed-width ids that carry their game', () => {
    const prefix: Record<number, string> = { 730: 'c', 570: 'd', 252490: 'r' };
    const wrong = SAMPLE.filter(
      ({ appId, listing }, i) =>
        !/^[cdr][0-9a-z]{10}$/.test(listing.id) ||
        listing.id.charAt(0) !== prefix[appId] ||
        Number.parseInt(listing.id.slice(1), 36) !== i + 1,
    );
    expect(wrong).toEqual([]);
    const bodies = SAMPLE.map((g) => g.listing.id.slice(1));
    expect([...bodies].sort()).toEqual(bodies);
  });

  it('spreads CS2 listed_at over the 14 days before now, in id order', () => {
    const times = CS2.map((l) => Date.parse(l.listed_at ?? ''));
    expect(times.filter((t, i) => i > 0 && t < (times[i - 1] ?? 0))).toEqual([]);
    expect(times[0]).toBeLessThan(NOW - 13.9 * DAY);
    expect(times.at(-1)).toBeGreaterThan(NOW - 0.1 * DAY);
    expect(times.at(-1)).toBeLessThan(NOW);
  });

  it('keeps wear in agreement with float, and float inside the finish range, on every skin', () => {
    const wrong = SKINS.filter((l) => {
      const { base, wear } = parseName(l.market_hash_name);
      const skin = skinByName.get(base);
      const float = l.float_value;
      const seed = l.paint_seed;
      if (skin === undefined || float === null || seed === null) return true;
      return (
        l.wear !== wearOf(float) ||
        wear !== l.wear ||
        float < skin.min_float ||
        float > skin.max_float ||
        !Number.isInteger(seed) ||
        seed < 0 ||
        seed > 1000
      );
    });
    expect(wrong).toEqual([]);
    const wears = new Set(SKINS.map((l) => l.wear));
    expect([...wears].sort()).toEqual([...WEARS].sort());
  });

  it('names skins in the platform form and offers StatTrak™ and Souvenir only where the finish allows', () => {
    const wrong = SKINS.filter((l) => {
      const { star, variant, base } = parseName(l.market_hash_name);
      const skin = skinByName.get(base);
      if (skin === undefined) return true;
      const starred = l.category === 'Knife' || l.category === 'Gloves';
      return (
        star !== starred ||
        l.category !== skin.category ||
        l.rarity !== skin.rarity ||
        (variant === 'StatTrak™' && !skin.stattrak) ||
        (variant === 'Souvenir' && (!skin.souvenir || starred)) ||
        (l.category === 'Gloves' && variant !== null)
      );
    });
    expect(wrong).toEqual([]);
    type Row = (typeof SKINS)[number];
    expect(share(SKINS, (l: Row) => l.market_hash_name.startsWith('StatTrak™ '))).toBeGreaterThan(0.05);
    expect(share(SKINS, (l: Row) => l.market_hash_name.startsWith('Souvenir '))).toBeGreaterThan(0.001);
    expect(SKINS.some((l) => l.market_hash_name.startsWith('★ StatTrak™ '))).toBe(true);
  });

  it('gives a phase to Doppler and Gamma Doppler knives only, never in the name', () => {
    const wrong = SKINS.filter((l) => {
      const finish = parseName(l.market_hash_name).base.split(' | ')[1];
      const phased = l.category === 'Knife' && (finish === 'Doppler' || finish === 'Gamma Doppler');
      return (
        (l.doppler_phase !== null) !== phased ||
        /Phase \d|\((Ruby|Sapphire|Black Pearl|Emerald)\)/.test(l.market_hash_name)
      );
    });
    expect(wrong).toEqual([]);
    expect(new Set(SKINS.map((l) => l.doppler_phase))).toContain('Phase 2');
  });

  it('puts 0-5 stickers on distinct slots of guns only, mostly none and mostly unscraped', () => {
    const wrong = CS2.filter((l) => {
      const gun = l.category !== 'Knife' && l.category !== 'Gloves' && l.category !== 'Sticker';
      return (
        (!gun && l.stickers.length > 0) ||
        l.stickers.length > 5 ||
        new Set(l.stickers.map((s) => s.slot)).size !== l.stickers.length ||
        l.stickers.some(
          (s) =>
            !s.name.startsWith('Sticker | ') ||
            !/^https:\/\/cdn\.skin-market\.test\/stickers\/[a-z0-9-]+\.png$/.test(s.image),
        )
      );
    });
    expect(wrong).toEqual([]);
    const guns = SKINS.filter((l) => l.category !== 'Knife' && l.category !== 'Gloves');
    expect(share(guns, (l: (typeof guns)[number]) => l.stickers.length === 0)).toBeGreaterThan(0.6);
    expect(guns.some((l) => l.stickers.length === 5)).toBe(true);
    const applied = guns.flatMap((l) => l.stickers);
    expect(share(applied, (s: (typeof applied)[number]) => s.wear === 0)).toBeGreaterThan(0.6);
  });

  it('lists stickers on their own without wear, float, seed or inspect link', () => {
    const stickers = CS2.filter((l) => l.category === 'Sticker');
    expect(stickers.length).toBeGreaterThan(500);
    for (const l of stickers) {
      expect(l.market_hash_name).toMatch(/^Sticker \| /);
      expect([l.wear, l.float_value, l.paint_seed, l.inspect_link, l.doppler_phase]).toEqual([
        null,
        null,
        null,
        null,
        null,
      ]);
    }
  });

  it('follows the null rules on Dota 2 and Rust rows, which are never on hold', () => {
    for (const l of OTHERS) {
      expect([
        l.wear,
        l.doppler_phase,
        l.float_value,
        l.paint_seed,
        l.inspect_link,
        l.tradable_at,
        l.listed_at,
      ]).toEqual([null, null, null, null, null, null, null]);
      expect(l.stickers).toEqual([]);
      expect(l.delivery).not.toBe('hold');
      expect(l.tradable).toBe(true);
    }
    const names = new Set(OTHERS.map((l) => l.market_hash_name));
    expect(names.size).toBeGreaterThan(100);
  });

  it('delivers about 60% instant, 25% up_to_12h and 15% hold, holds ending 1-8 days after listing', () => {
    type Row = (typeof CS2)[number];
    expect(share(CS2, (l: Row) => l.delivery === 'instant')).toBeCloseTo(0.6, 1);
    expect(share(CS2, (l: Row) => l.delivery === 'up_to_12h')).toBeCloseTo(0.25, 1);
    expect(share(CS2, (l: Row) => l.delivery === 'hold')).toBeCloseTo(0.15, 1);
    for (const l of CS2) {
      if (l.delivery !== 'hold') {
        expect([l.tradable, l.tradable_at]).toEqual([true, null]);
        continue;
      }
      expect(l.tradable).toBe(false);
      const lock = Date.parse(l.tradable_at ?? '') - Date.parse(l.listed_at ?? '');
      expect(lock).toBeGreaterThanOrEqual(DAY);
      expect(lock).toBeLessThanOrEqual(8 * DAY);
    }
  });

  it('publishes no refund figure on about 30% of rows, else a usual one', () => {
    type Row = (typeof CS2)[number];
    const rows = SAMPLE.map((g) => g.listing);
    expect(share(rows, (l: Row) => l.refund_percent === null)).toBeCloseTo(0.3, 1);
    expect(new Set(rows.map((l) => l.refund_percent))).toEqual(new Set([null, 0, 50, 80, 100]));
  });

  it('asks whole-cent prices of at least 3 cents that vary by item, with images and inspect links in form', () => {
    const image = /^https:\/\/cdn\.skin-market\.test\/(items|stickers)\/[a-z0-9-]+\.png$/;
    const inspect =
      /^steam:\/\/rungame\/730\/76561202255233023\/\+csgo_econ_action_preview%20S7656\d{13}A\d+D\d+$/;
    const rows = SAMPLE.map((g) => g.listing);
    expect(
      rows.filter((l) => !isWholeCents(l.price_usd) || l.price_usd < 0.03 || !image.test(l.image)),
    ).toEqual([]);
    expect(SKINS.filter((l) => !inspect.test(l.inspect_link ?? ''))).toEqual([]);
    const prices = SKINS.map((l) => l.price_usd).sort((a, b) => a - b);
    expect(prices[Math.floor(prices.length * 0.1)]).toBeLessThan(2);
    expect(prices[Math.floor(prices.length * 0.99)]).toBeGreaterThan(200);
  });
});

describe('price and wear across many listings', () => {
  it('asks more for better wear of the same finish on average', () => {
    const byFinish = new Map<string, { total: number; n: number }[]>();
    for (const { listing: l } of generateCatalogue({ seed: 7, count: 150_000, nowMs: NOW })) {
      if (l.category === 'Sticker' || l.stickers.length > 0 || l.wear === null || l.doppler_phase !== null)
        continue;
      const { variant, base } = parseName(l.market_hash_name);
      if (variant !== null) continue;
      const buckets = byFinish.get(base) ?? WEARS.map(() => ({ total: 0, n: 0 }));
      byFinish.set(base, buckets);
      const bucket = buckets[WEARS.indexOf(l.wear)];
      if (bucket) {
        bucket.total += l.price_usd;
        bucket.n += 1;
      }
    }
    let ordered = 0;
    let pairs = 0;
    for (const buckets of byFinish.values()) {
      for (let w = 1; w < buckets.length; w++) {
        const better = buckets[w - 1];
        const worse = buckets[w];
        if (!better || !worse || better.n < 15 || worse.n < 15) continue;
        pairs += 1;
        if (better.total / better.n > worse.total / worse.n) ordered += 1;
      }
    }
    expect(pairs).toBeGreaterThan(200);
    expect(ordered / pairs).toBeGreaterThan(0.95);
  });
});

describe('createListingGenerator', () => {
  it('gives byte-identical output for the same seed and different output for another', () => {
    const run = take(2000, 11);
    expect(JSON.stringify(take(2000, 11))).toBe(JSON.stringify(run));
    const other = take(2000, 12);
    expect(JSON.stringify(other)).not.toBe(JSON.stringify(run));
    const same = other.filter((g, i) => g.listing.market_hash_name === run[i]?.listing.market_hash_name);
    expect(same.length).toBeLessThan(400);
  });

  it('continues a run exactly from firstSequence, and reports the next sequence', () => {
    const run = take(600, 11);
    const generator = createListingGenerator({ seed: 11, firstSequence: 401 });
    expect(generator.nextSequence).toBe(401);
    for (let i = 400; i < 600; i++) expect(generator.next(NOW + i * 1000)).toEqual(run[i]);
    expect(generator.nextSequence).toBe(601);
    expect(createListingGenerator({ seed: 11 }).nextSequence).toBe(1);
  });

  it('starts the catalogue at firstSequence too', () => {
    const [first] = generateCatalogue({ seed: 3, count: 1, nowMs: NOW, firstSequence: 36 ** 3 });
    expect(first?.listing.id.slice(1)).toBe('0000001000');
  });

  it('refuses a sequence that cannot be an id', () => {
    expect(() => createListingGenerator({ seed: 1, firstSequence: -1 })).toThrow(RangeError);
    expect(() => createListingGenerator({ seed: 1, firstSequence: 1.5 })).toThrow(RangeError);
  });
});

describe('ListingGenerator.relist', () => {
  const generator = createListingGenerator({ seed: 20261121 });
  const held = SAMPLE.find((g) => g.listing.delivery === 'hold');
  const dota = SAMPLE.find((g) => g.appId === APP_IDS.dota2);

  it('keeps the id and item, moves listed_at, and draws a fresh price near the old one', () => {
    const original = SAMPLE.find((g) => g.appId === APP_IDS.cs2 && g.listing.stickers.length > 0);
    if (original === undefined) throw new Error('no CS2 listing with stickers in the sample');
    const later = NOW + 3_600_000;
    const again = generator.relist(original, later);
    expect(again.appId).toBe(original.appId);
    expect(again.listing).toMatchObject({
      id: original.listing.id,
      market_hash_name: original.listing.market_hash_name,
      float_value: original.listing.float_value,
      stickers: original.listing.stickers,
      listed_at: new Date(later).toISOString(),
    });
    expect(Math.abs(again.listing.price_usd / original.listing.price_usd - 1)).toBeLessThanOrEqual(0.16);
    expect(listingSchema.parse(again.listing)).toEqual(again.listing);
    expect(generator.relist(original, later)).toEqual(again);
  });

  it('releases a hold that has ended and keeps one that has not', () => {
    if (held === undefined) throw new Error('no held listing in the sample');
    const end = Date.parse(held.listing.tradable_at ?? '');
    const released = generator.relist(held, end + 1).listing;
    expect(['instant', 'up_to_12h']).toContain(released.delivery);
    expect([released.tradable, released.tradable_at]).toEqual([true, null]);
    const still = generator.relist(held, end - 60_000).listing;
    expect([still.delivery, still.tradable, still.tradable_at]).toEqual([
      'hold',
      false,
      held.listing.tradable_at,
    ]);
    expect(held.listing.delivery).toBe('hold');
  });

  it('leaves listed_at null on Dota 2 and Rust rows', () => {
    if (dota === undefined) throw new Error('no Dota 2 listing in the sample');
    const again = generator.relist(dota, NOW);
    expect(again.listing.listed_at).toBeNull();
    expect(again.listing.id).toBe(dota.listing.id);
  });

  it('refuses an id of another game', () => {
    if (dota === undefined) throw new Error('no Dota 2 listing in the sample');
    expect(() => generator.relist({ appId: APP_IDS.cs2, listing: dota.listing }, NOW)).toThrow(RangeError);
  });
});
