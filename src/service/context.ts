/** Everything a request handler may use, assembled once at start-up. */
import type { AdjustableClock } from './clock.js';
import type { FailedAuthGuard } from './http/failed-auth.js';
import type { RollingWindowLimiter } from './http/rate-limiter.js';
import type { StreamRouteOptions } from './http/routes/stream.js';
import type { Catalogue } from './market/catalogue.js';
import type { FxRates } from './market/fx-rates.js';
import type { PriceList } from './market/price-list.js';
import type { PriceSnapshot } from './market/price-snapshot.js';
import type { MarketChurn } from './sim/churn.js';
import type { AccountStore } from './store/accounts.js';
import type { Database } from './store/database.js';

/** The service's parts, shared by all routes. */
export interface ServiceContext {
  clock: AdjustableClock;
  db: Database;
  accounts: AccountStore;
  catalogue: Catalogue;
  prices: PriceList;
  snapshot: PriceSnapshot;
  fx: FxRates;
  churn: MarketChurn;
  limiter: RollingWindowLimiter;
  guard: FailedAuthGuard;
  sandbox: boolean;
  stream: StreamRouteOptions;
}
