/** The simulator feature: its sandbox routes (the churn itself is started by the service). */
import type { Feature } from '../http/feature.js';
import type { MarketChurn } from './churn.js';
import { registerSimulatorSandboxRoutes } from './sandbox-routes.js';

/** The simulator's plugins. */
export function simulatorFeature(churn: MarketChurn): Feature {
  return { sandbox: (app) => registerSimulatorSandboxRoutes(app, churn) };
}
