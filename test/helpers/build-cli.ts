/**
 * Vitest global setup of the integration tests: builds the `market` command into `.build/` when
 * a file under `src/` changed since it was last built, so the spawned command is the current code.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { projectPath } from '../../src/shared/project-root.js';

/** The compiled command the package's `bin` names, which the CLI tests spawn. */
export const COMPILED_MAIN = projectPath('.build', 'src', 'cli', 'main.js');

/** Builds the project with its own compiler unless `.build/` is newer than every source file. */
export default function buildCli(): void {
  if (existsSync(COMPILED_MAIN) && statSync(COMPILED_MAIN).mtimeMs >= newestSourceMs()) return;
  const tsc = projectPath('node_modules', 'typescript', 'bin', 'tsc');
  const built = spawnSync(process.execPath, [tsc, '-p', '.'], { cwd: projectPath(), encoding: 'utf8' });
  // A type error still emits JavaScript; the type check reports it, and the tests run the code.
  if (!existsSync(COMPILED_MAIN)) throw new Error(`tsc -p . wrote no ${COMPILED_MAIN}: ${built.stdout}`);
  // The compiler may leave an unchanged output untouched: mark the build as current.
  const now = new Date();
  utimesSync(COMPILED_MAIN, now, now);
}

/** When a file under src/ last changed (epoch ms). */
function newestSourceMs(): number {
  const src = projectPath('src');
  let newest = 0;
  for (const name of readdirSync(src, { recursive: true, encoding: 'utf8' }))
    newest = Math.max(newest, statSync(join(src, name)).mtimeMs);
  return newest;
}
