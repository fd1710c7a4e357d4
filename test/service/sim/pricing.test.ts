import { describe, expect, it } from 'vitest';
import { WEARS } from '../../../src/contract/listing.js';
import { loadPreparedCatalogue } from '../../../src/service/sim/prepared-catalogue.js';
import {
  floatPremium,
  MIN_PRICE_CENTS,
  priceItemCents,
  priceSkinCents,
  repriceCents,
  stickerPremiumCents,
  wearForFloat,
} from '../../../src/service/sim/pricing.js';
import { Random } from '../../../src/service/sim/random.js';

const catalogue = loadPreparedCatalogue();
const prepared = (name: string) => {
  const found = catalogue.skins.find((s) => `${s.skin.weapon} | ${s.skin.finish}` === name);
  if (found === undefined) throw new Error(`no finish ${name}`);
  return found;
};
const plain = { phase: 1, variant: 1, stickerCents: 0 };

describe('wearForFloat', () => {
  it.each([
    [0, 'Factory New'],
    [0.0699, 'Factory New'],
    [0.07, 'Minimal Wear'],
    [0.15, 'Field-Tested'],
    [0.3799, 'Field-Tested'],
    [0.38, 'Well-Worn'],
    [0.45, 'Battle-Scarred'],
    [1, 'Battle-Scarred'],
  ])('gives %s the wear %s', (float, wear) => {
    expect(wearForFloat(float)).toBe(wear);
  });
});

describe('priceSkinCents', () => {
  it.each([
    'AK-47 | Redline',
    'AWP | Asiimov',
    'M4A1-S | Hyper Beast',
    'AK-47 | Case Hardened',
    'Karambit | Crimson Web',
  ])('asks more on average for better wear of %s', (name) => {
    const skin = prepared(name);
    const rng = new Random(99);
    const sums = WEARS.map(() => ({ total: 0, n: 0 }));
    for (let i = 0; i < 5000; i++) {
      const float = rng.float(skin.skin.min_float, skin.skin.max_float);
      const bucket = sums[WEARS.indexOf(wearForFloat(float))];
      if (bucket === undefined) throw new Error('unknown wear');
      bucket.total += priceSkinCents(skin.pricing, float, plain, rng);
      bucket.n += 1;
    }
    const means = sums.filter((s) => s.n >= 50).map((s) => s.total / s.n);
    expect(means.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < means.length; i++) expect(means[i]).toBeLessThan(means[i - 1] ?? 0);
  });

  it('prices a Field-Tested finish near its typical price', () => {
    const skin = prepared('AK-47 | Redline');
    const rng = new Random(5);
    let total = 0;
    for (let i = 0; i < 2000; i++) total += priceSkinCents(skin.pricing, 0.3, plain, rng);
    expect(total / 2000 / 100).toBeGreaterThan(skin.skin.price_usd * 0.9);
    expect(total / 2000 / 100).toBeLessThan(skin.skin.price_usd * 1.15);
  });

  it('multiplies by phase and variant, adds the sticker premium, and never goes below 3 cents', () => {
    const skin = prepared('Karambit | Doppler');
    const base = priceSkinCents(skin.pricing, 0.02, plain, new Random(1));
    expect(priceSkinCents(skin.pricing, 0.02, { ...plain, phase: 5 }, new Random(1))).toBeCloseTo(
      base * 5,
      -2,
    );
    expect(priceSkinCents(skin.pricing, 0.02, { ...plain, variant: 2 }, new Random(1))).toBeCloseTo(
      base * 2,
      -2,
    );
    expect(
      priceSkinCents(skin.pricing, 0.02, { ...plain, stickerCents: 10_000 }, new Random(1)),
    ).toBeGreaterThan(base + 8_000);
    expect(priceItemCents(0.001, new Random(1))).toBe(MIN_PRICE_CENTS);
  });

  it('pays a premium for the lowest floats of a band', () => {
    const skin = prepared('AK-47 | Case Hardened');
    expect(floatPremium(skin.pricing, 0.0005)).toBeGreaterThan(floatPremium(skin.pricing, 0.005));
    expect(floatPremium(skin.pricing, 0.005)).toBeGreaterThan(floatPremium(skin.pricing, 0.06));
    expect(floatPremium(skin.pricing, 0.16)).toBeGreaterThan(floatPremium(skin.pricing, 0.37));
  });
});

describe('stickerPremiumCents', () => {
  it('values a pristine sticker above a scraped one, and a collectible at a higher share', () => {
    expect(stickerPremiumCents(10, 0)).toBeGreaterThan(stickerPremiumCents(10, 0.3));
    expect(stickerPremiumCents(10, 0.3)).toBeGreaterThan(stickerPremiumCents(10, 0.9));
    expect(stickerPremiumCents(1000, 0) / 1000).toBeGreaterThan(stickerPremiumCents(10, 0) / 10);
  });
});

describe('repriceCents', () => {
  it('stays within 15% of the previous price and at least 3 cents', () => {
    const rng = new Random(3);
    for (let i = 0; i < 1000; i++) {
      const cents = repriceCents(10_000, rng);
      expect(cents).toBeGreaterThanOrEqual(8_500);
      expect(cents).toBeLessThanOrEqual(11_500);
    }
    expect(repriceCents(3, rng)).toBeGreaterThanOrEqual(MIN_PRICE_CENTS);
  });
});
