/**
 * Where a simulated CS2 listing comes from: most are the platform's own, about 4 % are offered
 * from an external market (bought one per order, never mixed with platform items), and about 3 %
 * cannot be bought through the API at all. A fixed draw from the listing's sequence, so a
 * re-listing keeps its origin and the same seed gives the same catalogue.
 */
import { hashSequence } from './random.js';

const ORIGIN_SALT = 0x0a161e;

/** The origin fields of listing number `sequence`. */
export function listingOrigin(sequence: number): {
  source: 'platform' | 'external';
  api_purchasable: boolean;
} {
  const draw = hashSequence(ORIGIN_SALT, sequence) % 1000;
  if (draw < 40) return { source: 'external', api_purchasable: true };
  if (draw < 70) return { source: 'platform', api_purchasable: false };
  return { source: 'platform', api_purchasable: true };
}
