import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  findCatalogueDir,
  loadCatalogueFacts,
  readCatalogueFacts,
} from '../../../src/service/sim/catalogue-facts.js';

const facts = loadCatalogueFacts();
const skin = (weapon: string, finish: string) =>
  facts.cs2Skins.find((s) => s.weapon === weapon && s.finish === finish);

describe('catalogue facts', () => {
  it('holds at least 400 CS2 finishes, 200 stickers, 100 Dota 2 and 100 Rust items', () => {
    expect(facts.cs2Skins.length).toBeGreaterThanOrEqual(400);
    expect(new Set(facts.cs2Skins.map((s) => s.finish)).size).toBeGreaterThanOrEqual(400);
    expect(facts.stickers.length).toBeGreaterThanOrEqual(200);
    expect(facts.dota2Items.length).toBeGreaterThanOrEqual(100);
    expect(facts.rustItems.length).toBeGreaterThanOrEqual(100);
  });

  it('covers every weapon category, knives and gloves', () => {
    const counts = new Map<string, number>();
    for (const s of facts.cs2Skins) counts.set(s.category, (counts.get(s.category) ?? 0) + 1);
    for (const category of [
      'Rifle',
      'Pistol',
      'SMG',
      'Shotgun',
      'Machinegun',
      'Sniper Rifle',
      'Knife',
      'Gloves',
    ]) {
      expect(counts.get(category) ?? 0, category).toBeGreaterThanOrEqual(category === 'Machinegun' ? 5 : 20);
    }
  });

  it.each([
    ['AK-47', 'Redline', 0.1, 0.7],
    ['AWP', 'Asiimov', 0.18, 1],
    ['M4A4', 'Asiimov', 0.18, 1],
    ['Karambit', 'Doppler', 0, 0.08],
    ['Butterfly Knife', 'Fade', 0, 0.08],
    ['Sport Gloves', 'Vice', 0.06, 0.8],
  ])('knows the float range of %s | %s', (weapon, finish, min, max) => {
    expect(skin(weapon, finish)).toMatchObject({ min_float: min, max_float: max });
  });

  it('never offers StatTrak on gloves or both StatTrak and Souvenir on one finish', () => {
    for (const s of facts.cs2Skins) {
      if (s.category === 'Gloves') expect(s.stattrak, `${s.weapon} | ${s.finish}`).toBe(false);
      expect(s.stattrak && s.souvenir, `${s.weapon} | ${s.finish}`).toBe(false);
    }
    expect(skin('AWP', 'Dragon Lore')?.souvenir).toBe(true);
    expect(skin('Karambit', 'Fade')?.stattrak).toBe(true);
  });

  it('has the Doppler and Gamma Doppler phases, the rare ones worth far more', () => {
    const doppler = facts.phasesByFinish.get('Doppler') ?? [];
    const gamma = facts.phasesByFinish.get('Gamma Doppler') ?? [];
    expect(doppler.map((p) => p.phase)).toEqual([
      'Phase 1',
      'Phase 2',
      'Phase 3',
      'Phase 4',
      'Ruby',
      'Sapphire',
      'Black Pearl',
    ]);
    expect(gamma.map((p) => p.phase)).toEqual(['Phase 1', 'Phase 2', 'Phase 3', 'Phase 4', 'Emerald']);
    const phase4 = doppler.find((p) => p.phase === 'Phase 4')?.multiplier ?? Number.POSITIVE_INFINITY;
    for (const rare of ['Ruby', 'Sapphire', 'Black Pearl']) {
      expect(doppler.find((p) => p.phase === rare)?.multiplier).toBeGreaterThan(3 * phase4);
    }
    expect(
      facts.cs2Skins.filter((s) => s.finish === 'Gamma Doppler' && s.category === 'Knife').length,
    ).toBeGreaterThan(3);
  });

  it('names stickers and items in the platform form', () => {
    expect(facts.stickers.map((s) => s.name)).toEqual(
      expect.arrayContaining(['Sticker | Crown (Foil)', 'Sticker | iBUYPOWER (Holo) | Katowice 2014']),
    );
    expect(facts.dota2Items.map((i) => i.market_hash_name)).toContain('Exalted Manifold Paradox');
    expect(facts.rustItems.map((i) => i.market_hash_name)).toEqual(
      expect.arrayContaining(['Alien Red', 'Tempered AK47', 'Big Grin']),
    );
    const prices = new Set(facts.cs2Skins.map((s) => s.price_usd));
    expect(prices.size).toBeGreaterThan(100);
  });

  it('keeps every fact file well under 1 MB', () => {
    for (const file of [
      'cs2-skins.json',
      'cs2-phases.json',
      'cs2-stickers.json',
      'dota2-items.json',
      'rust-items.json',
    ]) {
      expect(readFileSync(join(findCatalogueDir(), file)).length, file).toBeLessThan(500_000);
    }
  });

  it('refuses a fact file that breaks the schema, naming the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'catalogue-'));
    try {
      for (const file of ['cs2-phases.json', 'cs2-stickers.json', 'dota2-items.json', 'rust-items.json']) {
        writeFileSync(join(dir, file), readFileSync(join(findCatalogueDir(), file)));
      }
      const bad = { description: 'x', items: [{ weapon: 'AK-47', finish: 'Redline', category: 'Rifle' }] };
      writeFileSync(join(dir, 'cs2-skins.json'), JSON.stringify(bad));
      expect(() => readCatalogueFacts(dir)).toThrow(/cs2-skins\.json/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
