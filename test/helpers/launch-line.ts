/**
 * How the daemons are launched: the built `market`'s shebang and `npm start`'s script, each a line
 * `[NAME=value …] node [flags …] <script> …`. The benchmarks start the built CLI with the same
 * environment and Node flags, and the tests check that both lines say the same.
 */
import { readFileSync } from 'node:fs';
import { projectPath } from '../../src/shared/project-root.js';

/** The variables a launch line sets and the Node flags it passes before the script. */
export interface Launch {
  env: Record<string, string>;
  nodeFlags: string[];
}

/** The launch of the built `market` (`#!/usr/bin/env -S <line>`), as `npm link`'s bin starts. */
export function shebangLaunch(): Launch {
  const [shebang = ''] = readFileSync(projectPath('.build', 'src', 'cli', 'main.js'), 'utf8').split('\n', 1);
  return launchOf(shebang.replace(/^#!\S*env -S /, ''));
}

/** The launch of the main job by `npm start` (package.json's `start`: `exec env <line>`). */
export function startScriptLaunch(): Launch {
  const pkg = JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as { scripts: { start: string } };
  return launchOf(pkg.scripts.start.replace(/^exec env /, ''));
}

/** The assignments before `node` and the flags between it and the script. */
export function launchOf(line: string): Launch {
  const words = line.split(' ').filter(Boolean);
  const node = words.indexOf('node');
  if (node === -1) throw new Error(`not a node command: ${line}`);
  const assignments = words.slice(0, node).map((word) => /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(word));
  if (assignments.some((match) => match === null)) throw new Error(`not an assignment before node: ${line}`);
  const after = words.slice(node + 1);
  const script = after.findIndex((word) => !word.startsWith('-'));
  return {
    env: Object.fromEntries(assignments.map((match) => [match?.[1], match?.[2]])),
    nodeFlags: script === -1 ? after : after.slice(0, script),
  };
}
