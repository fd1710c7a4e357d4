/** The deterministic listing generator: every listing follows from (seed, sequence) alone. */
import { APP_IDS, centsToUsd, usdToCents } from '../../contract/common.js';
import type { Listing } from '../../contract/listing.js';
import { drawListing, drawReleasedDelivery } from './draw-listing.js';
import { MAX_LISTING_SEQUENCE, parseListingId } from './listing-id.js';
import { loadPreparedCatalogue } from './prepared-catalogue.js';
import { repriceCents } from './pricing.js';
import { hashSequence, Random } from './random.js';

const DAY_MS = 86_400_000;
/** How far back the initial catalogue's listed_at values reach. @default 14 days */
const CATALOGUE_SPAN_MS = 14 * DAY_MS;
const RELIST_SALT = 0x7e1157;
const SPREAD_SALT = 0x5b2ead;

/** A generated listing and the game it belongs to. */
export interface GeneratedListing {
  appId: number;
  listing: Listing;
}

/** Options of {@link createListingGenerator}. */
export interface GeneratorOptions {
  /** Seed of the whole run; only its low 32 bits matter. The same seed gives the same listings. */
  seed: number;
  /**
   * Sequence number of the first listing; pass the persisted {@link ListingGenerator.nextSequence}
   * after a restart so ids never repeat.
   * @default 1
   */
  firstSequence?: number;
}

/** A stream of listings with strictly increasing sequence numbers (and so ids). */
export interface ListingGenerator {
  /** The next listing of the deterministic sequence, listed at `listedAtMs` (CS2 only; null for other games). */
  next(listedAtMs: number): GeneratedListing;
  /** The sequence number the next listing will take (persisted by the caller so ids never repeat after a restart). */
  readonly nextSequence: number;
  /** The same listing re-listed at `nowMs`: same id, new listed_at (CS2), a fresh price drawn around the old one, and a hold that has ended becomes delivery instant or up_to_12h with tradable true and tradable_at null. */
  relist(listing: GeneratedListing, nowMs: number): GeneratedListing;
}

/**
 * Creates a generator whose N-th listing depends only on the seed and N, never on the listings
 * drawn before it.
 * @example
 * const generator = createListingGenerator({ seed: 42 });
 * const { appId, listing } = generator.next(Date.now());
 */
export function createListingGenerator(options: GeneratorOptions): ListingGenerator {
  const { seed } = options;
  let sequence = options.firstSequence ?? 1;
  if (!Number.isSafeInteger(sequence) || sequence < 0 || sequence > MAX_LISTING_SEQUENCE) {
    throw new RangeError(
      `firstSequence must be an integer from 0 to ${MAX_LISTING_SEQUENCE}, got ${sequence}`,
    );
  }
  const catalogue = loadPreparedCatalogue();
  const rng = new Random();
  return {
    next(listedAtMs) {
      if (sequence > MAX_LISTING_SEQUENCE) throw new RangeError('the listing sequence is exhausted');
      rng.reseed(seed, sequence);
      const generated = drawListing(catalogue, rng, sequence, listedAtMs);
      sequence += 1;
      return generated;
    },
    get nextSequence() {
      return sequence;
    },
    relist(generated, nowMs) {
      return relistListing(rng, seed, generated, nowMs);
    },
  };
}

/** The initial catalogue: `count` listings, listed_at spread over the 14 days before `nowMs` (CS2 only). */
export function* generateCatalogue(
  options: GeneratorOptions & { count: number; nowMs: number },
): Generator<GeneratedListing> {
  const { count, nowMs, seed } = options;
  if (!Number.isSafeInteger(count) || count < 0)
    throw new RangeError(`count must be a non-negative integer, got ${count}`);
  const generator = createListingGenerator(options);
  const startMs = nowMs - CATALOGUE_SPAN_MS;
  for (let i = 0; i < count; i++) {
    // (i + jitter) / count keeps listed_at non-decreasing in sequence order and strictly before nowMs.
    const jitter = hashSequence(seed, generator.nextSequence, SPREAD_SALT) / 4294967296;
    yield generator.next(startMs + Math.floor((CATALOGUE_SPAN_MS * (i + jitter)) / count));
  }
}

function relistListing(
  rng: Random,
  seed: number,
  generated: GeneratedListing,
  nowMs: number,
): GeneratedListing {
  const { appId, listing } = generated;
  const parsed = parseListingId(listing.id);
  if (parsed === null || parsed.appId !== appId) {
    throw new RangeError(`cannot re-list ${listing.id}: not a listing id of appId ${appId}`);
  }
  rng.reseed(hashSequence(seed, parsed.sequence, RELIST_SALT), Math.max(0, Math.floor(nowMs)));
  const price = centsToUsd(repriceCents(usdToCents(listing.price_usd), rng));
  const holdEnded =
    listing.delivery === 'hold' && (listing.tradable_at === null || Date.parse(listing.tradable_at) <= nowMs);
  return {
    appId,
    listing: {
      ...listing,
      stickers: listing.stickers.map((s) => ({ ...s })),
      price_usd: price,
      tradable: holdEnded ? true : listing.tradable,
      tradable_at: holdEnded ? null : listing.tradable_at,
      delivery: holdEnded ? drawReleasedDelivery(rng) : listing.delivery,
      listed_at: appId === APP_IDS.cs2 ? new Date(nowMs).toISOString() : null,
    },
  };
}

/** The seeder of a new catalogue: `count` generated listings, then sequence numbers from `count + 1`. */
export function catalogueSeeder(options: GeneratorOptions & { count: number; nowMs: number }) {
  return { rows: () => generateCatalogue(options), nextSequence: options.count + 1 };
}
