/** The trading feature: order routes, sandbox controls, its due work, and its error mapping. */
import type { Clock } from '../core/clock.js';
import type { DueWork } from '../core/due-work.js';
import type { Feature } from '../http/feature.js';
import type { TradePlatform } from './ports.js';
import { registerTradingSandboxRoutes, type TradingSandboxDeps } from './sandbox-routes.js';
import { registerTradingRoutes } from './trading-routes.js';

/** What the trading feature's plugins need. */
export interface TradingFeatureDeps extends TradingSandboxDeps {
  clock: Clock;
  due: DueWork;
  platform: TradePlatform & TradingSandboxDeps['platform'];
}

/** Registers trading's due task ('orders') on `due` and returns the feature's plugins. */
export function tradingFeature(deps: TradingFeatureDeps): Feature {
  deps.due.register(
    'orders',
    (now) => deps.trading.runDue(now),
    (from) => deps.trading.nextDueFrom(from),
  );
  return {
    v1: (app) => registerTradingRoutes(app, deps.trading, deps.platform, deps.clock),
    sandbox: (app) => registerTradingSandboxRoutes(app, deps),
    tags: {
      trading:
        'Buying from the balance: orders delivered to the key owner, market buys for a trade URL, order lookups and claims',
    },
  };
}
