/** Webhooks wired to trading: every order write queues its order.updated event in the same unit of work. */
import type { Database } from '../../shared/database.js';
import type { Clock } from '../core/clock.js';
import type { UnitOfWorkRunner } from '../core/unit-of-work.js';
import type { Trading } from '../trading/trading.js';
import { type WebhookOptions, Webhooks } from '../webhooks/webhooks.js';

/** What webhooks are wired from. */
export interface WebhooksParts {
  db: Database;
  units: UnitOfWorkRunner;
  clock: Clock;
  trading: Trading;
  options: WebhookOptions;
  onError: (error: unknown) => void;
}

/** Builds the webhooks, loads their endpoints and queue, and has trading tell them of each order write. */
export async function openWebhooks(parts: WebhooksParts): Promise<Webhooks> {
  const { trading, ...deps } = parts;
  const webhooks = new Webhooks(deps);
  await webhooks.load();
  trading.onOrderWritten((uow, order) => webhooks.orderWritten(uow, order));
  return webhooks;
}
