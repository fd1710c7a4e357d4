/** The Instant Sell feature: its routes, its due work (offers to send, credits to settle). */
import type { DueWork } from '../core/due-work.js';
import type { Feature } from '../http/feature.js';
import type { InstantSell } from './instant-sell.js';
import { registerSellRoutes } from './sell-routes.js';

/** What the Instant Sell feature needs. */
export interface SellFeatureDeps {
  sell: InstantSell;
  due: DueWork;
}

/** Registers Instant Sell's due task ('sell orders') on `due` and returns the feature's plugins. */
export function sellFeature(deps: SellFeatureDeps): Feature {
  deps.due.register(
    'sell orders',
    (now) => deps.sell.runDue(now),
    (from) => deps.sell.nextDueFrom(from),
  );
  return {
    v1: (app) => registerSellRoutes(app, deps.sell),
    tags: {
      sell: 'Instant Sell (invite-only): quotes of a platform inventory, sell orders to the bots, their lifecycle and settlement',
    },
  };
}
