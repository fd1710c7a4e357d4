/**
 * A listing's JSON, exactly `JSON.stringify` of the listing with the keys in schema order, cut in
 * five: the bytes only this listing has (head, middle, tail) and two fragments that every listing
 * of the same item repeats (name and wear; category, rarity and image), which are stored once.
 */
import type { Listing } from '../../contract/listing.js';

/** The five parts, in output order. */
export interface ListingJsonParts {
  /** `{"id":…` */
  head: string;
  /** `,"market_hash_name":…,"wear":…` (shared) */
  name: string;
  /** `,"doppler_phase":…` up to `price_usd` */
  middle: string;
  /** `,"category":…,"rarity":…,"image":…` (shared) */
  item: string;
  /** `,"inspect_link":…` to the closing brace */
  tail: string;
}

/** A shared fragment with the number of listings using it. */
export interface JsonFragment {
  readonly text: string;
  readonly bytes: Buffer;
  refs: number;
}

/** The fragment of no bytes, for listings that keep all their JSON to themselves. */
export const EMPTY_FRAGMENT: JsonFragment = { text: '', bytes: Buffer.alloc(0), refs: 0 };

/** Where each part after the head starts: the first occurrence of its first key. */
const MARKERS = [',"market_hash_name":', ',"doppler_phase":', ',"category":', ',"inspect_link":'] as const;

/**
 * Cuts the JSON of `l` into its parts: concatenated they are `JSON.stringify` of the listing with
 * its keys (and its stickers' keys) in the schema's order. A cut is the first occurrence of a key
 * after the previous cut; inside a JSON string a quote is always escaped, so the text `,"key":`
 * cannot occur in a value and the first occurrence is the key itself.
 */
export function listingJsonParts(l: Listing): ListingJsonParts {
  const json = JSON.stringify(orderListingKeys(l));
  const cuts: number[] = [];
  let from = 0;
  for (const marker of MARKERS) {
    from = json.indexOf(marker, from);
    if (from < 0) throw new Error(`listing ${l.id} has no ${marker} in its JSON`);
    cuts.push(from);
  }
  const [name, middle, item, tail] = cuts as [number, number, number, number];
  return {
    head: json.slice(0, name),
    name: json.slice(name, middle),
    middle: json.slice(middle, item),
    item: json.slice(item, tail),
    tail: json.slice(tail),
  };
}

/** The listing object with keys (its own and its stickers') in the schema's order, extra keys dropped. */
export function orderListingKeys(l: Listing): Listing {
  return {
    id: l.id,
    market_hash_name: l.market_hash_name,
    wear: l.wear,
    doppler_phase: l.doppler_phase,
    float_value: l.float_value,
    paint_seed: l.paint_seed,
    stickers: l.stickers.map((s) => ({ name: s.name, image: s.image, slot: s.slot, wear: s.wear })),
    price_usd: l.price_usd,
    category: l.category,
    rarity: l.rarity,
    image: l.image,
    inspect_link: l.inspect_link,
    tradable: l.tradable,
    tradable_at: l.tradable_at,
    delivery: l.delivery,
    refund_percent: l.refund_percent,
    listed_at: l.listed_at,
    ...(l.source === undefined ? {} : { source: l.source }),
    ...(l.api_purchasable === undefined ? {} : { api_purchasable: l.api_purchasable }),
  };
}

/** Shared fragments by their text, each kept while a listing uses it. */
export class FragmentTable {
  readonly #fragments = new Map<string, JsonFragment>();

  /** The fragment of `text`, counting one more user. */
  acquire(text: string): JsonFragment {
    let fragment = this.#fragments.get(text);
    if (fragment === undefined) {
      fragment = { text, bytes: Buffer.from(text, 'utf8'), refs: 0 };
      this.#fragments.set(text, fragment);
    }
    fragment.refs++;
    return fragment;
  }

  /** Counts one user less; the fragment is forgotten (its bytes stay valid) when none is left. */
  release(fragment: JsonFragment): void {
    if (fragment === EMPTY_FRAGMENT || --fragment.refs > 0) return;
    if (this.#fragments.get(fragment.text) === fragment) this.#fragments.delete(fragment.text);
  }

  /** Number of distinct fragments held and their bytes. */
  stats(): { fragments: number; bytes: number } {
    let bytes = 0;
    for (const fragment of this.#fragments.values()) bytes += fragment.bytes.length;
    return { fragments: this.#fragments.size, bytes };
  }
}
