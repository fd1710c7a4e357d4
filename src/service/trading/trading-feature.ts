/** The trading feature: opening it with the ports it needs, its order routes, sandbox controls and due work. */

import type { DueWork } from '../core/due-work.js';
import type { Feature } from '../http/feature.js';
import { Faults } from './faults.js';
import type { SandboxPlatform } from './ports.js';
import { registerTradingSandboxRoutes } from './sandbox-routes.js';
import { Trading, type TradingDeps } from './trading.js';
import { registerTradingRoutes } from './trading-routes.js';
import { TradingSettings } from './trading-settings.js';

/** What opening trading needs. */
export interface OpenTradingDeps extends Omit<TradingDeps, 'tradingSettings' | 'placement'> {
  due: DueWork;
  platform: TradingDeps['platform'] & SandboxPlatform;
  /** Arms the sandbox's faults around placement and serves their controls. @default false */
  sandbox?: boolean;
}

/** Trading opened: the feature's public face, and its plugins. */
export interface OpenTrading {
  trading: Trading;
  feature: Feature;
}

/**
 * Builds trading and loads it, registers its due task ('orders') on `due`, and returns it with
 * its plugins. With `sandbox`, the operator's faults wrap every placement from outside.
 */
export async function openTrading(deps: OpenTradingDeps): Promise<OpenTrading> {
  const tradingSettings = new TradingSettings(deps.db);
  const faults = new Faults();
  const trading = new Trading({ ...deps, tradingSettings, ...(deps.sandbox ? { placement: faults } : {}) });
  await trading.load();
  deps.due.register(
    'orders',
    (now) => trading.runDue(now),
    (from) => trading.nextDueFrom(from),
  );
  const feature: Feature = {
    v1: (app) => registerTradingRoutes(app, trading, deps.platform, deps.clock),
    sandbox: (app) => registerTradingSandboxRoutes(app, { ...deps, tradingSettings, faults }),
    tags: {
      trading:
        'Buying from the balance: orders delivered to the key owner, market buys for a trade URL, order lookups and claims',
    },
  };
  return { trading, feature };
}
