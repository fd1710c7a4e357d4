/**
 * The main job's accounts and keys (`market run`): the user's account, the demo trader's and the
 * collector's key on it, kept in `<data>/main-job-accounts.json` (mode 600: it holds raw keys) so a
 * restart keeps them instead of minting new accounts that the warehouse would add together. A file
 * whose accounts or keys the service no longer knows (a new database) is replaced.
 */
import { readFile } from 'node:fs/promises';
import { type Accounts, keyIdOf, keyMatches } from '../service/index.js';
import { writeOwnerOnly } from '../shared/owner-only-file.js';

/** An account and a raw key of it. */
export interface KeyedAccount {
  accountId: string;
  rawKey: string;
}

/** What the main job runs with. */
export interface MainJobAccounts {
  /** The user's own account and key. */
  you: KeyedAccount;
  /** The demo trader's account and the key it trades with. */
  trader: KeyedAccount;
  /** The collector's key on the trader's account (limits count per key). */
  collectorKey: string;
}

/** The stored accounts when the service still knows them all, else new ones from `create`, stored. */
export async function mainJobAccounts(
  file: string,
  accounts: Accounts,
  create: () => Promise<MainJobAccounts>,
): Promise<{ accounts: MainJobAccounts; kept: boolean }> {
  const stored = await readStored(file);
  if (stored && stillValid(stored, accounts)) return { accounts: stored, kept: true };
  const created = await create();
  await writeOwnerOnly(file, `${JSON.stringify(created, null, 2)}\n`);
  return { accounts: created, kept: false };
}

async function readStored(file: string): Promise<MainJobAccounts | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as MainJobAccounts;
  } catch {
    return null;
  }
}

function stillValid(stored: MainJobAccounts, accounts: Accounts): boolean {
  const { you, trader, collectorKey } = stored;
  return (
    keyWorks(accounts, you.rawKey, you.accountId) &&
    keyWorks(accounts, trader.rawKey, trader.accountId) &&
    keyWorks(accounts, collectorKey, trader.accountId)
  );
}

/** Whether `raw` is a live key of `accountId` in the service's database. */
function keyWorks(accounts: Accounts, raw: unknown, accountId: unknown): boolean {
  if (typeof raw !== 'string' || typeof accountId !== 'string') return false;
  const id = keyIdOf(raw);
  const record = id === null ? undefined : accounts.key(id);
  return (
    record !== undefined &&
    record.accountId === accountId &&
    record.revokedAt === null &&
    accounts.account(accountId) !== undefined &&
    keyMatches(raw, record.hash)
  );
}
