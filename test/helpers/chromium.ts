/** The system's Chromium (Debian's `chromium` package), found on the PATH; nothing is ever downloaded. */
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const NAMES = ['chromium', 'chromium-browser'];

/** The path of the installed Chromium, or null when none is on the PATH. */
export function findChromium(): string | null {
  for (const folder of (process.env.PATH ?? '').split(delimiter).filter(Boolean))
    for (const name of NAMES) if (existsSync(join(folder, name))) return join(folder, name);
  return null;
}
