/**
 * Webhook management: endpoints with their health, the signing secret (given once, at creation
 * and on rotation), synchronous tests, and deliveries with their retry. Writes are never retried.
 */
import type { z } from 'zod';
import {
  type createWebhookBodySchema,
  createWebhookResponseSchema,
  type DeliveryPage,
  deliveryPageSchema,
  deliveryRetryResponseSchema,
  rotateWebhookSecretResponseSchema,
  type UpdateWebhookBody,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEndpointWithSecret,
  type WebhookTestResult,
  webhookDeletedSchema,
  webhookListSchema,
  webhookResponseSchema,
  webhookTestResultSchema,
} from '../../contract/webhook.js';
import type { RequestOptions } from '../client-options.js';
import { pagesOf, rowsOf } from '../paginate.js';
import { type DeliveriesParams, toQueryString } from '../query-params.js';
import type { Transport } from '../transport.js';

/** Body of `POST /webhooks`: url (absolute HTTPS), and optionally description and events (default order.updated). */
export type CreateWebhookInput = z.input<typeof createWebhookBodySchema>;

/** Answer of `DELETE /webhooks/{id}`. */
export type WebhookDeleted = z.output<typeof webhookDeletedSchema>;

/** The webhook endpoints of the key's account over a shared {@link Transport}. */
export class WebhooksResource {
  constructor(private readonly transport: Transport) {}

  /** `GET /webhooks`: every endpoint of the account with its health, oldest first (no secrets). */
  async list(options: RequestOptions = {}): Promise<WebhookEndpoint[]> {
    const answer = await this.transport.json({
      path: '/webhooks',
      schema: webhookListSchema,
      signal: options.signal,
    });
    return answer.data;
  }

  /**
   * `POST /webhooks`: registers an endpoint; the answer is the only time its secret is shown.
   * @example const { id, secret } = await client.webhooks.create({ url: 'https://bot.example.com/hooks' });
   */
  async create(body: CreateWebhookInput, options: RequestOptions = {}): Promise<WebhookEndpointWithSecret> {
    const answer = await this.transport.json({
      method: 'POST',
      path: '/webhooks',
      body,
      schema: createWebhookResponseSchema,
      signal: options.signal,
    });
    return answer.data;
  }

  /** `PATCH /webhooks/{id}`: changes url, events, enabled or description; re-enabling resets the failure counter. */
  async update(id: string, body: UpdateWebhookBody, options: RequestOptions = {}): Promise<WebhookEndpoint> {
    const answer = await this.transport.json({
      method: 'PATCH',
      path: webhookPath(id),
      body,
      schema: webhookResponseSchema,
      signal: options.signal,
    });
    return answer.data;
  }

  /** `DELETE /webhooks/{id}`: removes an endpoint with its deliveries. */
  delete(id: string, options: RequestOptions = {}): Promise<WebhookDeleted> {
    return this.transport.json({
      method: 'DELETE',
      path: webhookPath(id),
      schema: webhookDeletedSchema,
      signal: options.signal,
    });
  }

  /** `POST /webhooks/{id}/test`: sends a webhook.test event now; the real status and error text the receiver gave. */
  test(id: string, options: RequestOptions = {}): Promise<WebhookTestResult> {
    return this.transport.json({
      method: 'POST',
      path: `${webhookPath(id)}/test`,
      schema: webhookTestResultSchema,
      signal: options.signal,
    });
  }

  /** `POST /webhooks/{id}/rotate-secret`: a new signing secret, shown once; queued deliveries are signed with it. */
  async rotateSecret(id: string, options: RequestOptions = {}): Promise<WebhookEndpointWithSecret> {
    const answer = await this.transport.json({
      method: 'POST',
      path: `${webhookPath(id)}/rotate-secret`,
      schema: rotateWebhookSecretResponseSchema,
      signal: options.signal,
    });
    return answer.data;
  }

  /** `GET /webhooks/{id}/deliveries`: one page of the endpoint's deliveries, newest first. */
  deliveries(id: string, query: DeliveriesParams = {}, options: RequestOptions = {}): Promise<DeliveryPage> {
    return this.transport.json({
      path: `${webhookPath(id)}/deliveries${toQueryString(query)}`,
      schema: deliveryPageSchema,
      signal: options.signal,
    });
  }

  /** Every page of the endpoint's deliveries from `query.cursor` (or the newest) to the oldest. */
  deliveryPages(id: string, query: DeliveriesParams = {}): AsyncGenerator<DeliveryPage, void, undefined> {
    return pagesOf(
      (q) => this.deliveries(id, q),
      query,
      (page) => page.meta.next_cursor,
    );
  }

  /** Every delivery of the endpoint matching `query`, newest first, across all pages. */
  allDeliveries(id: string, query: DeliveriesParams = {}): AsyncGenerator<WebhookDelivery, void, undefined> {
    return rowsOf(this.deliveryPages(id, query), (page) => page.data);
  }

  /**
   * `POST /webhooks/{id}/deliveries/{deliveryId}/retry`: re-arms a failed (or pending) delivery
   * with a fresh budget of attempts, the first at once; a delivered one is 409 already_delivered.
   */
  async retryDelivery(
    id: string,
    deliveryId: string,
    options: RequestOptions = {},
  ): Promise<WebhookDelivery> {
    const answer = await this.transport.json({
      method: 'POST',
      path: `${webhookPath(id)}/deliveries/${encodeURIComponent(deliveryId)}/retry`,
      schema: deliveryRetryResponseSchema,
      signal: options.signal,
    });
    return answer.data;
  }
}

function webhookPath(id: string): string {
  return `/webhooks/${encodeURIComponent(id)}`;
}
