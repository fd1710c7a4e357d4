/** When the human seller of an `up_to_12h` listing sends the item: a fixed, per-listing draw. */
import { createHash } from 'node:crypto';

/** Share of `up_to_12h` sellers who never send. */
export const NEVER_SENDS_SHARE = 0.1;
/** The quickest a seller sends. */
export const MIN_SELLER_DELAY_MS = 2 * 60_000;
/** The slowest a seller sends. */
export const MAX_SELLER_DELAY_MS = 10 * 3_600_000;

/**
 * After how long the seller of a listing sends, or null when it never does; the same listing id
 * always gives the same answer (two 32-bit draws from the SHA-256 of the id).
 */
export function sellerDelayMs(listingId: string): number | null {
  const digest = createHash('sha256').update(`seller:${listingId}`, 'utf8').digest();
  const sends = digest.readUInt32BE(0) / 2 ** 32;
  if (sends < NEVER_SENDS_SHARE) return null;
  const delay = digest.readUInt32BE(4) / 2 ** 32;
  return MIN_SELLER_DELAY_MS + Math.floor(delay * (MAX_SELLER_DELAY_MS - MIN_SELLER_DELAY_MS));
}
