/**
 * The accounts and keys of a service database that no server holds: what `market keys` manages,
 * opened the way the service opens its own file.
 */
import type { Database } from '../shared/database.js';
import { Accounts } from './accounts/accounts.js';
import { UnitOfWorkRunner } from './core/unit-of-work.js';

/** The accounts and keys stored in `db`, loaded, each change written through a unit of work of its own. */
export async function loadAccounts(db: Database): Promise<Accounts> {
  // No server runs: the wall clock stamps what the command changes.
  const accounts = new Accounts(db, new UnitOfWorkRunner(db, Date.now));
  await accounts.load(db);
  return accounts;
}
