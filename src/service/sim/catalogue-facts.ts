/** The curated catalogue facts under `data/catalogue/`: zod schemas, types and a validating loader. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const usd = z.number().positive();

/** One CS2 weapon, knife or glove finish. */
export const cs2SkinSchema = z
  .object({
    weapon: z.string().min(1),
    finish: z.string().min(1),
    category: z.enum(['Rifle', 'Pistol', 'SMG', 'Shotgun', 'Machinegun', 'Sniper Rifle', 'Knife', 'Gloves']),
    rarity: z.string().min(1),
    min_float: z.number().min(0).max(1),
    max_float: z.number().min(0).max(1),
    stattrak: z.boolean(),
    souvenir: z.boolean(),
    price_usd: usd,
  })
  .refine((s) => s.min_float < s.max_float, { message: 'min_float must be below max_float' });
export type Cs2Skin = z.infer<typeof cs2SkinSchema>;

/** One Doppler-style phase and how it moves the price. */
export const phaseSchema = z.object({
  phase: z.string().min(1),
  weight: z.number().positive(),
  multiplier: z.number().positive(),
});
export type Phase = z.infer<typeof phaseSchema>;

/** A sticker that can be listed on its own or applied to a weapon. */
export const stickerFactSchema = z.object({
  name: z.string().startsWith('Sticker | '),
  rarity: z.string().min(1),
  price_usd: usd,
});
export type StickerFact = z.infer<typeof stickerFactSchema>;

/** A Dota 2 or Rust market item. */
export const marketItemSchema = z.object({
  market_hash_name: z.string().min(1),
  category: z.string().min(1),
  rarity: z.string().min(1),
  price_usd: usd,
});
export type MarketItem = z.infer<typeof marketItemSchema>;

function itemsFile<T extends z.ZodType>(item: T) {
  return z.object({ description: z.string(), items: z.array(item).min(1) });
}

const phasesFileSchema = z.object({
  note: z.string(),
  finishes: z.record(z.string(), z.array(phaseSchema).min(1)),
});

/** Everything the generator knows about items. */
export interface CatalogueFacts {
  readonly cs2Skins: readonly Cs2Skin[];
  /** Phases by finish name (`Doppler`, `Gamma Doppler`); they apply to knives in that finish. */
  readonly phasesByFinish: ReadonlyMap<string, readonly Phase[]>;
  readonly stickers: readonly StickerFact[];
  readonly dota2Items: readonly MarketItem[];
  readonly rustItems: readonly MarketItem[];
}

let cached: CatalogueFacts | undefined;

/** Loads and validates the facts once per process; later calls return the same object. */
export function loadCatalogueFacts(): CatalogueFacts {
  cached ??= readCatalogueFacts(findCatalogueDir());
  return cached;
}

/** Reads and validates the facts in `dir` (a `data/catalogue` folder), throwing on the first bad file. */
export function readCatalogueFacts(dir: string): CatalogueFacts {
  const phases = readJson(dir, 'cs2-phases.json', phasesFileSchema);
  return {
    cs2Skins: unique(
      readJson(dir, 'cs2-skins.json', itemsFile(cs2SkinSchema)).items,
      (s) => `${s.weapon} | ${s.finish}`,
    ),
    phasesByFinish: new Map(Object.entries(phases.finishes)),
    stickers: unique(readJson(dir, 'cs2-stickers.json', itemsFile(stickerFactSchema)).items, (s) => s.name),
    dota2Items: unique(
      readJson(dir, 'dota2-items.json', itemsFile(marketItemSchema)).items,
      (s) => s.market_hash_name,
    ),
    rustItems: unique(
      readJson(dir, 'rust-items.json', itemsFile(marketItemSchema)).items,
      (s) => s.market_hash_name,
    ),
  };
}

/** The `data/catalogue` folder of the repository this module belongs to (from `src/` or `.build/src/`). */
export function findCatalogueDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'data', 'catalogue');
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error('cannot find the repository root (no package.json above the simulator)');
    dir = parent;
  }
}

function readJson<T extends z.ZodType>(dir: string, file: string, schema: T): z.infer<T> {
  const path = join(dir, file);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (cause) {
    throw new Error(`cannot read catalogue facts ${path}`, { cause });
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`invalid catalogue facts in ${path}: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}

function unique<T>(items: T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  for (const item of items) {
    const k = key(item);
    if (seen.has(k)) throw new Error(`duplicate catalogue entry: ${k}`);
    seen.add(k);
  }
  return items;
}
