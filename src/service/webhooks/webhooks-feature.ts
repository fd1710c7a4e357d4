/** The webhooks feature: opening it on trading's order writes, its routes, and its due task (starting the delivery lanes). */
import type { DueWork } from '../core/due-work.js';
import type { UnitOfWork } from '../core/unit-of-work.js';
import type { Feature } from '../http/feature.js';
import { registerWebhookRoutes } from './webhook-routes.js';
import { type OrderSnapshot, Webhooks, type WebhooksDeps } from './webhooks.js';

/** Trading as webhooks hear of it: every order write, inside the unit of work that makes it. */
export interface OrderWrites {
  onOrderWritten(listener: (uow: UnitOfWork, order: OrderSnapshot) => Promise<void>): void;
}

/** What opening the webhooks needs. */
export interface OpenWebhooksDeps extends WebhooksDeps {
  due: DueWork;
  orders: OrderWrites;
}

/** The webhooks opened, and their plugins. */
export interface OpenWebhooks {
  webhooks: Webhooks;
  feature: Feature;
}

/**
 * Builds the webhooks and loads their endpoints and queue, has every order write queue its
 * order.updated event in the same unit of work, registers the due task ('webhooks') on `due`, and
 * returns them with their plugins.
 */
export async function openWebhooks(deps: OpenWebhooksDeps): Promise<OpenWebhooks> {
  const { due, orders, ...rest } = deps;
  const webhooks = new Webhooks(rest);
  await webhooks.load();
  orders.onOrderWritten((uow, order) => webhooks.orderWritten(uow, order));
  due.register(
    'webhooks',
    (now) => webhooks.runDue(now),
    (from) => webhooks.nextDueFrom(from),
    () => webhooks.settle(),
  );
  const feature: Feature = {
    v1: (app) => registerWebhookRoutes(app, webhooks),
    tags: {
      webhooks:
        'HTTPS endpoints that receive signed order.updated events: registration with an SSRF guard, health, tests, secret rotation, deliveries and their retry',
    },
  };
  return { webhooks, feature };
}
