/** The accounts feature: balance and ledger routes, account and key sandbox routes and its due task. */
import type { Database } from '../../shared/database.js';
import type { DueWork } from '../core/due-work.js';
import type { Feature } from '../http/feature.js';
import { registerAccountRoutes } from './account-routes.js';
import type { Accounts } from './accounts.js';
import { registerAccountSandboxRoutes } from './sandbox-routes.js';

/** What the accounts feature needs. */
export interface AccountsFeatureDeps {
  db: Database;
  accounts: Accounts;
  due: DueWork;
  /** Games a new sandbox account may read when it names none. */
  allAppIds: readonly number[];
}

/** Registers the accounts' due task ('settlement') on `due` and returns the feature's plugins. */
export function accountsFeature(deps: AccountsFeatureDeps): Feature {
  deps.due.register(
    'settlement',
    (now) => deps.accounts.settlement.runDue(now),
    (from) => deps.accounts.settlement.nextDueFrom(from),
  );
  return {
    v1: (app) => registerAccountRoutes(app, deps.db, deps.accounts.incoming),
    sandbox: (app) => registerAccountSandboxRoutes(app, deps.accounts, deps.allAppIds),
    tags: { account: 'The account behind the key: balance, settled funds and the ledger' },
  };
}
