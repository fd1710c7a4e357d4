/** The platform feature: its sandbox routes and the due task that moves offers on. */
import type { DueWork } from '../core/due-work.js';
import type { Feature } from '../http/feature.js';
import { type PlatformSandboxDeps, registerPlatformSandboxRoutes } from './sandbox-routes.js';

/** What the platform feature needs. */
export interface PlatformFeatureDeps extends PlatformSandboxDeps {
  due: DueWork;
}

/** Registers the platform's due task ('platform offers') on `due` and returns the feature's plugins. */
export function platformFeature(deps: PlatformFeatureDeps): Feature {
  deps.due.register(
    'platform offers',
    (now) => deps.platform.runDue(now),
    (from) => deps.platform.nextDueFrom(from),
  );
  return {
    sandbox: (app) => registerPlatformSandboxRoutes(app, deps),
  };
}
