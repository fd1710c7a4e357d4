/** The size of a file that may not exist. */
import { statSync } from 'node:fs';

/** The size of `file` in bytes, 0 when it does not exist. */
export function fileBytes(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
