/** The market feature: listings, prices, FX, the listing stream, the snapshot, health, and their sandbox routes. */
import type { Clock } from '../core/clock.js';
import type { Feature } from '../http/feature.js';
import type { RollingWindowLimiter } from '../http/rate-limiter.js';
import type { Catalogue } from './catalogue.js';
import { registerMarketRoutes } from './market-routes.js';
import type { FxRates } from './prices/fx-rates.js';
import type { PriceList } from './prices/price-list.js';
import type { PriceSnapshot } from './prices/price-snapshot.js';
import { registerMarketSandboxRoutes } from './sandbox-routes.js';
import { registerSnapshotRoutes } from './snapshot-routes.js';
import { registerStatusRoutes } from './status-routes.js';
import type { StreamRegistry } from './stream/stream-registry.js';
import { registerStreamRoutes } from './stream-routes.js';

/** What the market feature needs. */
export interface MarketFeatureDeps {
  clock: Clock;
  catalogue: Catalogue;
  prices: PriceList;
  snapshot: PriceSnapshot;
  fx: FxRates;
  limiter: RollingWindowLimiter;
  streams: StreamRegistry;
  /** Interval of the stream's `: heartbeat` comments. */
  heartbeatMs: number;
  /** Bytes a stream client may fall behind before it is disconnected. */
  maxBacklogBytes: number;
  /** Releases every held listing whose trade lock has ended by the clock (the simulator's churn). */
  releaseHolds: () => Promise<void>;
}

/** The market feature's plugins. */
export function marketFeature(deps: MarketFeatureDeps): Feature {
  return {
    v1(app) {
      // A lock that ended since the last release is released before a read answers, so no
      // listing reads `delivery: hold` with a tradable_at in the past.
      app.addHook('preHandler', (_request, _reply, done) => {
        const end = deps.catalogue.nextHoldEnd();
        if (end === undefined || end > deps.clock.now()) return done();
        deps.releaseHolds().then(() => done(), done);
      });
      registerStatusRoutes(app, deps.prices, deps.clock);
      registerMarketRoutes(app, deps);
      registerStreamRoutes(app, deps);
      registerSnapshotRoutes(app, deps);
    },
    sandbox: (app) => registerMarketSandboxRoutes(app, deps),
    tags: {
      status: 'Service health, without a key',
      market:
        'Market data: games, live listings and their event stream, the minAsk price list and its snapshot, FX rates',
    },
  };
}
