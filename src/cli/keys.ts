/** `market keys create|list|revoke`: key management on a service database that no server holds. */
import { existsSync } from 'node:fs';
import { usdToCents } from '../contract/common.js';
import { type Accounts, ALL_APP_IDS, isCidr, loadAccounts, openServiceDatabase } from '../service/index.js';
import type { Database } from '../shared/database.js';
import { CliError } from './cli-error.js';
import { parseFlags } from './flags.js';
import { keysCreateFlags, keysFlags } from './options.js';

/** Creates a key and prints the raw key alone on stdout. */
export async function createKey(read: Record<string, unknown>): Promise<void> {
  const flags = parseFlags(keysCreateFlags, read);
  const ipAllowlist = (flags.ipAllowlist ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = ipAllowlist.find((cidr) => !isCidr(cidr));
  if (bad !== undefined) throw new CliError(`--ip-allowlist: ${bad} is not an address or CIDR`);
  const balance = Number(flags.balance);
  if (!(balance >= 0)) throw new CliError('--balance must be a non-negative number of USD');
  await withAccounts(flags.db, async (accounts) => {
    const options = { label: flags.label, trading: flags.trading ?? false, ipAllowlist };
    if (flags.account !== undefined) {
      if (!accounts.account(flags.account)) throw new CliError(`no account ${flags.account}`);
      const { rawKey } = await accounts.createKey(flags.account, options);
      process.stdout.write(`${rawKey}\n`);
      return;
    }
    const { rawKey } = await accounts.createAccount({
      ...options,
      label: 'cli account',
      keyLabel: options.label,
      appIds: ALL_APP_IDS,
      balanceCents: usdToCents(balance),
    });
    process.stdout.write(`${rawKey}\n`);
  });
}

/** Prints one line per key: id, account, label, trading, allowlist, state. */
export async function listKeys(read: Record<string, unknown>): Promise<void> {
  await withAccounts(parseFlags(keysFlags, read).db, async (accounts) => {
    for (const account of accounts.store.all()) {
      for (const key of accounts.keys.keysOf(account.id)) {
        const state = key.revokedAt === null ? 'active' : `revoked ${new Date(key.revokedAt).toISOString()}`;
        const allow = key.ipAllowlist.length > 0 ? key.ipAllowlist.join(',') : 'any-ip';
        process.stdout.write(
          `${key.id}\t${account.id}\t${key.label}\ttrading=${key.trading}\t${allow}\t${state}\n`,
        );
      }
    }
  });
}

/** Revokes a key by its id. */
export async function revokeKey(keyId: string, read: Record<string, unknown>): Promise<void> {
  await withAccounts(parseFlags(keysFlags, read).db, async (accounts) => {
    if (!accounts.key(keyId)) throw new CliError(`no key ${keyId}`);
    await accounts.revokeKey(keyId);
    process.stdout.write(`revoked ${keyId}\n`);
  });
}

async function withAccounts(file: string, work: (accounts: Accounts) => Promise<void>): Promise<void> {
  // A mistyped path must not become a new database whose keys no server knows.
  if (!existsSync(file))
    throw new CliError(
      `no service database at ${file}; check the path, or create it by running \`market serve --db ${file}\` once`,
    );
  let db: Database;
  try {
    db = await openServiceDatabase(file);
  } catch (error) {
    throw new CliError(
      `${(error as Error).message}; stop the server that holds it, or use the sandbox endpoints`,
    );
  }
  try {
    await work(await loadAccounts(db));
  } finally {
    await db.close();
  }
}
