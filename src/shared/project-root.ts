/** Where the project's own files are, whether running from src/ (tsx, vitest) or from .build/. */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

/** The folder holding package.json, found by walking up from this module. */
export const PROJECT_ROOT = findUp(HERE, (dir) => existsSync(join(dir, 'package.json')), 'package.json');

/** A path inside the project, e.g. `projectPath('sql', 'service')`. */
export function projectPath(...parts: string[]): string {
  return join(PROJECT_ROOT, ...parts);
}

/**
 * Finds `sql/<name>` by walking up from `from` to the project folder (the one holding both
 * package.json and that folder), so it works from `src/` and from a compiled copy in `.build/src/`.
 */
export function findSqlDir(name: string, from: string = HERE): string {
  const root = findUp(
    from,
    (dir) => existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'sql', name)),
    `sql/${name}`,
  );
  return join(root, 'sql', name);
}

/** The first of `start` and its parents that `matches`; throws naming `what` when none does. */
function findUp(start: string, matches: (dir: string) => boolean, what: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (matches(dir)) return dir;
    if (dirname(dir) === dir) throw new Error(`cannot find ${what} in a parent folder of ${start}`);
  }
}
