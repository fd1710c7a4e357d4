/** The webhooks feature: its routes and its due task (starting the delivery lanes). */
import type { DueWork } from '../core/due-work.js';
import type { Feature } from '../http/feature.js';
import { registerWebhookRoutes } from './webhook-routes.js';
import type { Webhooks } from './webhooks.js';

/** What the webhooks feature needs. */
export interface WebhooksFeatureDeps {
  webhooks: Webhooks;
  due: DueWork;
}

/** Registers the webhooks' due task ('webhooks') on `due` and returns the feature's plugins. */
export function webhooksFeature(deps: WebhooksFeatureDeps): Feature {
  deps.due.register(
    'webhooks',
    (now) => deps.webhooks.runDue(now),
    (from) => deps.webhooks.nextDueFrom(from),
  );
  return {
    v1: (app) => registerWebhookRoutes(app, deps.webhooks),
    tags: {
      webhooks:
        'HTTPS endpoints that receive signed order.updated events: registration with an SSRF guard, health, tests, secret rotation, deliveries and their retry',
    },
  };
}
