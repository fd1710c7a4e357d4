/**
 * The shape of src/: no import circles and arrows that point one way between folders. Long files are
 * reported, not refused: a file is split where its ideas split, never to get under a number.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectPath } from '../../src/shared/project-root.js';

const SRC = projectPath('src');
/** Past this a file is listed as worth a look; a long file that is one idea says so at its top. */
const LONG_FILE_LINES = 300;

/** Feature folders of the service: each imports only infrastructure, the contract and itself. */
const FEATURES = ['accounts', 'market', 'sim', 'trading', 'platform', 'p2p', 'sell', 'webhooks'];
const SERVICE_INFRA = ['service/core', 'service/http'];
/**
 * The rooms of the market and the rooms each may use besides itself: the catalogue, the games and
 * the routes sit above them in `market/`, and no room reaches back up.
 */
const MARKET_ROOMS: Record<string, string[]> = {
  'service/market/listing-index': [],
  'service/market/stream': ['service/market/listing-index'],
  'service/market/prices': [],
};
const PIPELINE = ['client', 'collector', 'warehouse'];
/**
 * What the CLI may import besides itself: the infrastructure, the contract, and the public face of
 * each part it drives (an `index.ts`; the `*-options.ts` whose defaults `--help` shows, light to
 * load; the control endpoint's protocol), never a part's inside.
 */
const CLI_FACES = [
  'cli',
  'shared',
  'contract',
  'client/index.ts',
  'sandbox/index.ts',
  'service/index.ts',
  'service/service-options.ts',
  'collector/index.ts',
  'collector/collector-options.ts',
  'collector/control/index.ts',
  'collector/control/protocol.ts',
  'warehouse/index.ts',
  'warehouse/warehouse-options.ts',
];

interface Module {
  path: string;
  lines: number;
  imports: string[];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every module of src/ with its relative imports resolved to src-relative paths (`service/core/clock.ts`). */
function readModules(): Map<string, Module> {
  const modules = new Map<string, Module>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const imports = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) =>
      relative(SRC, resolve(dirname(file), (m[1] as string).replace(/\.js$/, '.ts'))),
    );
    modules.set(relative(SRC, file), { path: relative(SRC, file), lines: text.split('\n').length, imports });
  }
  return modules;
}

/** The import circles of the graph, each as the list of modules around it. */
function findCircles(modules: Map<string, Module>): string[][] {
  const circles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (path: string) => {
    state.set(path, 'open');
    stack.push(path);
    for (const next of modules.get(path)?.imports ?? []) {
      if (!modules.has(next)) continue;
      if (state.get(next) === 'open') circles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(path, 'done');
  };
  for (const path of modules.keys()) if (!state.has(path)) visit(path);
  return circles;
}

/** The modules longer than LONG_FILE_LINES, longest first, as `path (lines)`. */
function longFiles(modules: Map<string, Module>): string[] {
  return [...modules.values()]
    .filter((m) => m.lines > LONG_FILE_LINES)
    .sort((a, b) => b.lines - a.lines)
    .map((m) => `${m.path} (${m.lines})`);
}

const under = (path: string, folder: string) => path.startsWith(`${folder}/`);
/** Whether `target` is the module `allowed` names (a `.ts` file) or lies in that folder. */
const reaches = (target: string, allowed: string) =>
  allowed.endsWith('.ts') ? target === allowed : under(target, allowed);

/**
 * The folders (or single modules) a module may import from, or null when any is allowed (the
 * service's composition root). The sandbox fixture starts the service in its caller's process, so
 * it may reach it.
 */
function allowedFor(path: string): string[] | null {
  const room = Object.keys(MARKET_ROOMS).find((r) => under(path, r));
  if (room) return [room, ...(MARKET_ROOMS[room] ?? []), 'contract', 'shared', ...SERVICE_INFRA];
  const feature = FEATURES.find((f) => under(path, `service/${f}`));
  if (feature) return [`service/${feature}`, 'contract', 'shared', ...SERVICE_INFRA];
  if (under(path, 'service/core')) return ['service/core', 'contract', 'shared'];
  if (under(path, 'service/http')) return [...SERVICE_INFRA, 'contract', 'shared'];
  if (under(path, 'shared')) return ['shared', 'contract'];
  if (under(path, 'contract')) return ['contract'];
  // The examples are users' code: a bot's own test starts the sandbox beside the client.
  if (under(path, 'client/examples')) return [...PIPELINE, 'sandbox', 'contract', 'shared'];
  if (PIPELINE.some((p) => under(path, p))) return [...PIPELINE, 'contract', 'shared'];
  if (under(path, 'sandbox')) return ['sandbox', 'service', 'contract', 'shared'];
  if (under(path, 'cli')) return CLI_FACES;
  return null;
}

/** Every import a module may not use, as `module → target`. */
function violationsOf(modules: Map<string, Module>): string[] {
  const violations: string[] = [];
  for (const module of modules.values()) {
    const allowed = allowedFor(module.path);
    if (allowed === null) continue;
    for (const target of module.imports)
      if (!allowed.some((entry) => reaches(target, entry))) violations.push(`${module.path} → ${target}`);
  }
  return violations;
}

describe('the source tree', () => {
  const modules = readModules();

  it('has no import circles', () => {
    expect(findCircles(modules)).toEqual([]);
  });

  it(`lists the files over ${LONG_FILE_LINES} lines as worth a look`, ({ annotate }) => {
    const long = longFiles(modules);
    if (long.length > 0) {
      const report = `files over ${LONG_FILE_LINES} lines: ${long.join(', ')}`;
      console.warn(report);
      return annotate(report, 'warning');
    }
  });

  it('keeps each folder to the imports it may use', () => {
    expect(violationsOf(modules)).toEqual([]);
  });

  it('finds a violation when one exists', () => {
    expect(allowedFor('service/trading/orders.ts')).not.toContain('service/market');
    expect(allowedFor('service/market/stream/event-log.ts')).not.toContain('service/market');
    expect(allowedFor('service/market/listing-index/listing-index.ts')).not.toContain(
      'service/market/stream',
    );
    const cli = new Map<string, Module>([
      [
        'cli/made-up.ts',
        {
          path: 'cli/made-up.ts',
          lines: 1,
          imports: [
            'service/index.ts',
            'collector/control/protocol.ts',
            'service/core/unit-of-work.ts',
            'collector/control/server.ts',
            'collector/daemon.ts',
            'warehouse/warehouse.ts',
            'sandbox/operator-call.ts',
          ],
        },
      ],
    ]);
    expect(violationsOf(cli)).toEqual([
      'cli/made-up.ts → service/core/unit-of-work.ts',
      'cli/made-up.ts → collector/control/server.ts',
      'cli/made-up.ts → collector/daemon.ts',
      'cli/made-up.ts → warehouse/warehouse.ts',
      'cli/made-up.ts → sandbox/operator-call.ts',
    ]);
    const circle = new Map<string, Module>([
      ['a.ts', { path: 'a.ts', lines: 1, imports: ['b.ts'] }],
      ['b.ts', { path: 'b.ts', lines: 1, imports: ['a.ts'] }],
    ]);
    expect(findCircles(circle)).toEqual([['a.ts', 'b.ts', 'a.ts']]);
    const sizes = new Map<string, Module>([
      ['short.ts', { path: 'short.ts', lines: LONG_FILE_LINES, imports: [] }],
      ['long.ts', { path: 'long.ts', lines: LONG_FILE_LINES + 1, imports: [] }],
      ['longer.ts', { path: 'longer.ts', lines: LONG_FILE_LINES + 50, imports: [] }],
    ]);
    expect(longFiles(sizes)).toEqual([
      `longer.ts (${LONG_FILE_LINES + 50})`,
      `long.ts (${LONG_FILE_LINES + 1})`,
    ]);
  });
});
