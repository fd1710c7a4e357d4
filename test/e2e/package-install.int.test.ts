/**
 * skin-market as another project gets it: `npm pack` (which builds), the tarball unpacked into a
 * fresh project's node_modules as npm would, and a script there that imports `skin-market/client`
 * and `skin-market/sandbox`, type-checked with an ordinary strict tsconfig, compiled and run: it
 * starts a sandbox from the installed files, buys, moves the clock and sees the order completed, and
 * the order's two signed events reach a sandbox receiver and pass the package's `verifyWebhook`.
 *
 * It packs a copy of the working tree's files (tracked or new, as a clone would hold them), so that
 * its build never rewrites this repository's `.build/` under another test. The fresh project takes
 * the tarball's dependencies from this repository's install, through a `node_modules` one folder up
 * (where Node and TypeScript look next), so the test needs neither the network nor npm's metadata
 * cache: a clean clone after `npm install` is all it needs. One test does resolve the tarball's
 * dependencies as npm would for a user (a dry run, from npm's cache or else the registry), to see
 * that none of them asks for a newer Node than this one.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectPath } from '../../src/shared/project-root.js';

const run = promisify(execFile);

/** What `npm pack --json` says of the tarball. */
interface Packed {
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string }[];
}

/** The user's tsconfig: strict and Node's module system, none of this repository's other flags. */
const USER_TSCONFIG = { compilerOptions: { strict: true, module: 'nodenext' } };

/** The user's script: a bot's first test of its buying, written against the installed package. */
const BOT_SCRIPT = `
import { createHmac, randomUUID } from 'node:crypto';
import {
  ApiError,
  ClientArgumentError,
  isApiError,
  MarketClient,
  verifyWebhook,
  WebhookVerificationError,
} from 'skin-market/client';
import { startSandbox } from 'skin-market/sandbox';

const sandbox = await startSandbox({ listings: 200, seed: 3 });
try {
  const { apiKey } = await sandbox.createAccount({ balanceUsd: 300, trading: true });
  const client = new MarketClient({ baseUrl: sandbox.baseUrl, apiKey });
  const receiver = await sandbox.receiveWebhooks();
  const { secret } = await client.webhooks.create({ url: receiver.url });
  const { items } = await client.listings.list({ appId: 730, sort: 'price_asc', delivery: 'instant', limit: 20 });
  const listing = items.find((l) => l.tradable && l.api_purchasable !== false);
  if (!listing) throw new Error('no instant listing to buy');
  const order = await client.orders.create({ listing_ids: [listing.id] }, { idempotencyKey: randomUUID() });
  console.log('placed', order.status);
  const clock = await sandbox.advanceClock(31);
  console.log('after the clock', (await client.orders.get(order.order_id)).status);
  const received = await receiver.received(2);
  const events = received.map((d) => verifyWebhook(secret, d.signature, d.body, { now: Date.parse(clock.now) }));
  const statuses = events.map((e) => \`\${e.type} \${(e.data as { status: string }).status}\`);
  console.log('webhooks verified', statuses.join(', '));
  try {
    await client.orders.create({ listing_ids: [listing.id], custom_id: 'a' }, { idempotencyKey: 'b' });
  } catch (error) {
    console.log('argument error', error instanceof ClientArgumentError);
  }
  const stranger = new MarketClient({ baseUrl: sandbox.baseUrl, apiKey: 'svc_pub_not_a_key', maxRetries: 0 });
  try {
    await stranger.account.balance();
  } catch (error) {
    if (isApiError(error)) console.log('api error', error instanceof ApiError, error.status, error.code);
  }
  const body = JSON.stringify({ id: 'evt_1', type: 'webhook.test', created_at: new Date().toISOString(), data: {} });
  const t = Math.floor(Date.now() / 1000);
  const header = \`t=\${t},v1=\${createHmac('sha256', 'svc_whsec_test').update(\`\${t}.\${body}\`).digest('hex')}\`;
  console.log('webhook', verifyWebhook('svc_whsec_test', header, body).type);
  try {
    verifyWebhook('svc_whsec_other', header, body);
  } catch (error) {
    if (error instanceof WebhookVerificationError) console.log('webhook refused', error.reason);
  }
  await stranger.close();
  await client.close();
} finally {
  await sandbox.close();
}
`;

let dir: string;
let project: string;
let packed: Packed;
/** What `npm pack` printed, the prepare script's lines included. */
let packOutput: string;

/** Copies the working tree's files that git tracks or would track into `to`, with the install linked. */
async function copyWorkingTree(to: string): Promise<void> {
  const { stdout } = await run('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: projectPath(),
    maxBuffer: 64 * 1024 * 1024,
  });
  const files = stdout.split('\0').filter((path) => path !== '' && path !== 'node_modules');
  for (const path of files) {
    await mkdir(dirname(join(to, path)), { recursive: true });
    await copyFile(projectPath(path), join(to, path)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error; // deleted in the working tree, not yet in git
    });
  }
  await symlink(projectPath('node_modules'), join(to, 'node_modules'), 'dir');
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'market-package-'));
  const clone = join(dir, 'clone');
  await copyWorkingTree(clone);
  // `npm pack` runs the prepare script (the build) first, so the tarball holds the current sources.
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], {
    cwd: clone,
    maxBuffer: 64 * 1024 * 1024,
  });
  packOutput = stdout;
  [packed] = JSON.parse(stdout.slice(stdout.lastIndexOf('\n[') + 1)) as [Packed];
  project = join(dir, 'bot');
  const installed = join(project, 'node_modules', 'skin-market');
  await mkdir(installed, { recursive: true });
  await run('tar', ['-xzf', join(dir, packed.filename), '-C', installed, '--strip-components=1']);
  await symlink(projectPath('node_modules'), join(dir, 'node_modules'), 'dir');
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'bot', private: true, type: 'module' }),
  );
  await writeFile(join(project, 'tsconfig.json'), JSON.stringify(USER_TSCONFIG));
  await writeFile(join(project, 'bot.ts'), BOT_SCRIPT);
}, 240_000);
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('ships the built code with its declarations, the SQL and the catalogue, and no tests or data', () => {
    const paths = packed.files.map((f) => f.path);
    const shipped =
      /^(\.build\/src\/.+\.(js|d\.ts)|sql\/.+\.sql|data\/catalogue\/.+\.json|package\.json|README\.md)$/;
    expect(paths.filter((path) => !shipped.test(path))).toEqual([]);
    expect(paths).toEqual(
      expect.arrayContaining([
        '.build/src/client/index.js',
        '.build/src/client/index.d.ts',
        '.build/src/sandbox/index.js',
        '.build/src/sandbox/index.d.ts',
        '.build/src/cli/main.js',
        'sql/service/001_accounts.sql',
        'data/catalogue/cs2-skins.json',
      ]),
    );
    expect(paths.some((path) => path.includes('/examples/'))).toBe(false);
    expect(packed.unpackedSize).toBeLessThan(5 * 1024 * 1024);
  });

  it('type-checks a user script with an ordinary strict tsconfig, and the script runs against a sandbox', async () => {
    const tsc = projectPath('node_modules', 'typescript', 'bin', 'tsc');
    // Emits bot.js beside bot.ts; a type error fails here with tsc's report.
    await run(process.execPath, [tsc, '-p', project], { cwd: project });
    const { stdout } = await run(process.execPath, ['bot.js'], { cwd: project });
    expect(stdout.split('\n')).toEqual(
      expect.arrayContaining([
        'placed delivering',
        'after the clock completed',
        'webhooks verified order.updated delivering, order.updated completed',
        'argument error true',
        'api error true 401 invalid_api_key',
        'webhook webhook.test',
        'webhook refused signature_mismatch',
      ]),
    );
  });

  it('says that it builds before the build, which prints nothing until it ends', () => {
    expect(packOutput).toMatch(/^skin-market: building the code into \.build\/ with tsc \(.+\)$/m);
  });

  it('installs into a project on this Node without an engine warning', async () => {
    // npm resolves the tarball's dependencies as a user's install does (semver ranges, newest
    // first, no lock and no overrides of ours), from its cache or the registry, and writes nothing.
    const user = join(dir, 'user');
    await mkdir(user);
    await writeFile(join(user, 'package.json'), JSON.stringify({ name: 'user', private: true }));
    const args = ['install', '--dry-run', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'];
    const { stdout, stderr } = await run('npm', [...args, join(dir, packed.filename)], {
      cwd: user,
      maxBuffer: 16 * 1024 * 1024,
    });
    expect(stdout).toMatch(/^add skin-market /m);
    expect(`${stdout}${stderr}`).not.toMatch(/EBADENGINE/);
  }, 120_000);

  it('exposes only its subpaths: the built files behind them are not reachable', async () => {
    const deep = run(
      process.execPath,
      ['--input-type=module', '-e', "await import('skin-market/.build/src/client/index.js')"],
      { cwd: project },
    );
    await expect(deep).rejects.toThrow(/ERR_PACKAGE_PATH_NOT_EXPORTED/);
  });

  it('runs the market command from the installed files', async () => {
    const main = join(project, 'node_modules', 'skin-market', '.build', 'src', 'cli', 'main.js');
    const { stdout } = await run(process.execPath, [main, '--version'], { cwd: project });
    expect(stdout.trim()).toBe(packed.filename.replace(/^skin-market-|\.tgz$/g, ''));
  });
});
