/** A file only its owner may read (a token, a raw key), never visible to others even for a moment. */
import { randomUUID } from 'node:crypto';
import { chmod, rename, unlink, writeFile } from 'node:fs/promises';

/**
 * Writes `text` to `file` with mode 600, whatever was there before: written aside (created with
 * that mode), then renamed over, so no other user ever sees the token, even for a moment.
 */
export async function writeOwnerOnly(file: string, text: string): Promise<void> {
  const aside = `${file}.${randomUUID()}.tmp`;
  try {
    await writeFile(aside, text, { mode: 0o600, flag: 'wx' });
    await chmod(aside, 0o600);
    await rename(aside, file);
  } catch (error) {
    await unlink(aside).catch(() => undefined);
    throw error;
  }
}
