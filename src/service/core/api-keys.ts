/** API key format: `svc_pub_<key id>_<secret>`; only the SHA-256 of the whole key is ever stored. */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Every key starts with this; anything else counts as a missing key. */
export const KEY_PREFIX = 'svc_pub_';

const ID_LENGTH = 12;
const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/** A freshly generated key: the raw value is shown once and never stored. */
export interface NewApiKey {
  id: string;
  raw: string;
  hash: string;
}

/** Generates a key with a public id (for look-up) and 192 random bits of secret. */
export function generateApiKey(): NewApiKey {
  const id = randomId();
  const raw = `${KEY_PREFIX}${id}_${randomBytes(24).toString('base64url')}`;
  return { id, raw, hash: hashApiKey(raw) };
}

/** Hex SHA-256 of a raw key. */
export function hashApiKey(raw: string): string {
  return hash('sha256', raw, 'hex');
}

/** The key id inside a raw key, or null when the key cannot be one of ours. */
export function keyIdOf(raw: string): string | null {
  if (!raw.startsWith(KEY_PREFIX) || raw.length > 200) return null;
  const id = raw.slice(KEY_PREFIX.length, KEY_PREFIX.length + ID_LENGTH);
  return raw[KEY_PREFIX.length + ID_LENGTH] === '_' && id.length === ID_LENGTH ? id : null;
}

/** Compares a presented raw key with a stored hash in constant time. */
export function keyMatches(raw: string, storedHash: string): boolean {
  const presented = hash('sha256', raw, 'buffer');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

/** A random id in lower-case base32 (used for keys, accounts and other opaque ids). */
export function randomId(length = ID_LENGTH): string {
  const bytes = randomBytes(length);
  let id = '';
  for (const byte of bytes) id += ID_ALPHABET[byte & 31];
  return id;
}
