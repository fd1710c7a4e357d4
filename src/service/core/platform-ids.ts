/** Platform account ids: 17 digits, the first individual account's id plus a 32-bit account number. */
import { randomInt } from 'node:crypto';

/** The platform id of the first individual account. */
export const STEAM_ID_BASE = 76_561_197_960_265_728n;

/** The 17-digit platform id of a 32-bit account number (a trade URL's `partner`). */
export function steamIdOf(partner: number): string {
  return String(STEAM_ID_BASE + BigInt(partner));
}

/** A fresh platform id for a new sandbox account (a random account number below 10^9). */
export function newPlatformId(): string {
  return steamIdOf(randomInt(1, 1_000_000_000));
}
