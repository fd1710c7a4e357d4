/**
 * The service's public face: what the `market` command needs to run it, to manage the keys of a
 * database no server holds, and to play a simulated user.
 */
export type { Accounts } from './accounts/accounts.js';
export { keyIdOf, keyMatches } from './core/api-keys.js';
export { isCidr } from './core/ip-allowlist.js';
export { newPlatformId, STEAM_ID_BASE } from './core/platform-ids.js';
export { ALL_APP_IDS } from './market/games.js';
export { hasPrivateInventory } from './platform/trade-urls.js';
export { type RunningService, startService } from './service.js';
export { openServiceDatabase } from './service-database.js';
export { loadAccounts } from './stored-accounts.js';
