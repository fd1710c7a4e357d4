/** Where the project's own files are, whether running from src/ (tsx, vitest) or from .build/. */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding package.json, found by walking up from this module. */
export const PROJECT_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));

/** A path inside the project, e.g. `projectPath('sql', 'service')`. */
export function projectPath(...parts: string[]): string {
  return join(PROJECT_ROOT, ...parts);
}

function findRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${start}`);
    dir = parent;
  }
  return dir;
}
