/** Listing ids: a game prefix and the global sequence in fixed-width base36, so id order is creation order. */
import { APP_IDS } from '../../contract/common.js';

/** Base36 digits after the prefix. @default 10 */
export const LISTING_ID_DIGITS = 10;

/** The largest sequence number an id can hold (36^10 - 1). */
export const MAX_LISTING_SEQUENCE = 36 ** LISTING_ID_DIGITS - 1;

const PREFIX_BY_APP: ReadonlyMap<number, string> = new Map([
  [APP_IDS.cs2, 'c'],
  [APP_IDS.dota2, 'd'],
  [APP_IDS.rust, 'r'],
]);
const APP_BY_PREFIX: ReadonlyMap<string, number> = new Map([...PREFIX_BY_APP].map(([app, p]) => [p, app]));
const ID_PATTERN = /^[cdr][0-9a-z]{10}$/;

/**
 * The id of listing number `sequence` of game `appId`.
 * @example formatListingId(730, 1) // 'c0000000001'
 */
export function formatListingId(appId: number, sequence: number): string {
  const prefix = PREFIX_BY_APP.get(appId);
  if (prefix === undefined) throw new RangeError(`no listing id prefix for appId ${appId}`);
  if (!Number.isSafeInteger(sequence) || sequence < 0 || sequence > MAX_LISTING_SEQUENCE) {
    throw new RangeError(
      `listing sequence must be an integer from 0 to ${MAX_LISTING_SEQUENCE}, got ${sequence}`,
    );
  }
  return prefix + sequence.toString(36).padStart(LISTING_ID_DIGITS, '0');
}

/** The game and sequence of a listing id, or null when the string is not one of ours. */
export function parseListingId(id: string): { appId: number; sequence: number } | null {
  if (!ID_PATTERN.test(id)) return null;
  const appId = APP_BY_PREFIX.get(id.charAt(0));
  if (appId === undefined) return null;
  return { appId, sequence: Number.parseInt(id.slice(1), 36) };
}
