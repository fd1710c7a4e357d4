/** The simulator feature: its sandbox routes and its due task (the churn itself is started by the service). */
import type { DueWork } from '../core/due-work.js';
import type { Feature } from '../http/feature.js';
import type { MarketChurn } from './churn.js';
import { registerSimulatorSandboxRoutes } from './sandbox-routes.js';

/**
 * Registers the release of ended trade locks ('listing holds') on `due`, so a listing's delivery
 * follows the clock when the churn is paused and inside a clock jump; returns the plugins. It sets
 * no stop of a jump: a release has no follow-up, so it happens at the next stop or the end.
 */
export function simulatorFeature(churn: MarketChurn, due: DueWork): Feature {
  due.register('listing holds', () => churn.releaseHolds());
  return { sandbox: (app) => registerSimulatorSandboxRoutes(app, churn) };
}
