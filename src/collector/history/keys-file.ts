/**
 * The keys of the history endpoint, read once at start from a file only its owner may read: one
 * key per line, blank lines and `#` comments skipped. Keys are kept as SHA-256 digests, so a key is
 * found in a set by its digest and never compared character by character.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';

/** The shortest key accepted: a guessable key would defeat the ban. */
const MIN_KEY_LENGTH = 16;

/** The digests of the keys of `file`; refuses a file others may read, an empty one, or a short key. */
export async function readHistoryKeys(file: string): Promise<ReadonlySet<string>> {
  const info = await stat(file);
  if ((info.mode & 0o077) !== 0) {
    throw new Error(
      `the history keys file ${file} may be read by others (mode ${(info.mode & 0o777).toString(8)}); chmod 600 it`,
    );
  }
  const keys = (await readFile(file, 'utf8'))
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.startsWith('#'));
  if (keys.length === 0) throw new Error(`the history keys file ${file} holds no key (one per line)`);
  const short = keys.findIndex((key) => key.length < MIN_KEY_LENGTH || /\s/.test(key));
  if (short >= 0) {
    throw new Error(
      `key ${short + 1} of ${file} is shorter than ${MIN_KEY_LENGTH} characters or holds a space`,
    );
  }
  return new Set(keys.map(digestKey));
}

/** The digest a key is known by. */
export function digestKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
