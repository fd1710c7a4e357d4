/** The P2P feature: its routes, the due task that moves sales on, and its error mapping. */
import type { DueWork } from '../core/due-work.js';
import type { Feature } from '../http/feature.js';
import type { P2P } from './p2p.js';
import { registerP2PRoutes } from './p2p-routes.js';

/** What the P2P feature needs. */
export interface P2PFeatureDeps {
  p2p: P2P;
  due: DueWork;
}

/** Registers P2P's due task ('p2p sales') on `due` and returns the feature's plugins. */
export function p2pFeature(deps: P2PFeatureDeps): Feature {
  deps.due.register(
    'p2p sales',
    (now) => deps.p2p.sales.runDue(now),
    (from) => deps.p2p.sales.nextDueFrom(from),
  );
  return {
    v1: (app) => registerP2PRoutes(app, deps.p2p),
    tags: {
      p2p: "Selling from the account's own platform inventory at its own price: the inventory with its proof, publishing, repricing, delisting and the account's listings",
    },
  };
}
