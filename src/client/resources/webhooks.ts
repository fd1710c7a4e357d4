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
import { checkObject, checkOptionalObject, checkString } from '../check-arguments.js';
import type { RequestOptions } from '../client-options.js';
import type { HttpMethod } from '../http-attempt.js';
import { metaPages, metaRows } from '../paginate.js';
import type { DeliveriesParams } from '../query-params.js';
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
    checkOptionalObject('webhooks.list', 'options', options);
    return (await this.send('GET', '/webhooks', webhookListSchema, options)).data;
  }

  /**
   * `POST /webhooks`: registers an endpoint; the answer is the only time its secret is shown.
   * @example const { id, secret } = await client.webhooks.create({ url: 'https://bot.example.com/hooks' });
   */
  async create(body: CreateWebhookInput, options: RequestOptions = {}): Promise<WebhookEndpointWithSecret> {
    checkObject(
      'webhooks.create',
      'body',
      body,
      "client.webhooks.create({ url: 'https://bot.example.com/hooks' })",
    );
    checkOptionalObject('webhooks.create', 'options', options);
    return (await this.send('POST', '/webhooks', createWebhookResponseSchema, options, body)).data;
  }

  /** `PATCH /webhooks/{id}`: changes url, events, enabled or description; re-enabling resets the failure counter. */
  async update(id: string, body: UpdateWebhookBody, options: RequestOptions = {}): Promise<WebhookEndpoint> {
    checkString('webhooks.update', 'id', id);
    checkObject('webhooks.update', 'body', body, 'client.webhooks.update(id, { enabled: true })');
    checkOptionalObject('webhooks.update', 'options', options);
    return (await this.send('PATCH', webhookPath(id), webhookResponseSchema, options, body)).data;
  }

  /** `DELETE /webhooks/{id}`: removes an endpoint with its deliveries. */
  delete(id: string, options: RequestOptions = {}): Promise<WebhookDeleted> {
    checkString('webhooks.delete', 'id', id);
    checkOptionalObject('webhooks.delete', 'options', options);
    return this.send('DELETE', webhookPath(id), webhookDeletedSchema, options);
  }

  /** `POST /webhooks/{id}/test`: sends a webhook.test event now; the real status and error text the receiver gave. */
  test(id: string, options: RequestOptions = {}): Promise<WebhookTestResult> {
    checkString('webhooks.test', 'id', id);
    checkOptionalObject('webhooks.test', 'options', options);
    return this.send('POST', `${webhookPath(id)}/test`, webhookTestResultSchema, options);
  }

  /** `POST /webhooks/{id}/rotate-secret`: a new signing secret, shown once; queued deliveries are signed with it. */
  async rotateSecret(id: string, options: RequestOptions = {}): Promise<WebhookEndpointWithSecret> {
    checkString('webhooks.rotateSecret', 'id', id);
    checkOptionalObject('webhooks.rotateSecret', 'options', options);
    const path = `${webhookPath(id)}/rotate-secret`;
    return (await this.send('POST', path, rotateWebhookSecretResponseSchema, options)).data;
  }

  /** `GET /webhooks/{id}/deliveries`: one page of the endpoint's deliveries, newest first. */
  deliveries(id: string, query: DeliveriesParams = {}, options: RequestOptions = {}): Promise<DeliveryPage> {
    checkString('webhooks.deliveries', 'id', id);
    checkOptionalObject('webhooks.deliveries', 'query', query);
    checkOptionalObject('webhooks.deliveries', 'options', options);
    return this.transport.get(`${webhookPath(id)}/deliveries`, query, deliveryPageSchema, options);
  }

  /** Every page of the endpoint's deliveries from `query.cursor` (or the newest) to the oldest. */
  readonly deliveryPages = (
    id: string,
    query: DeliveriesParams = {},
  ): AsyncGenerator<DeliveryPage, void, undefined> => metaPages((q) => this.deliveries(id, q), query);

  /** Every delivery of the endpoint matching `query`, newest first, across all pages. */
  readonly allDeliveries = (
    id: string,
    query: DeliveriesParams = {},
  ): AsyncGenerator<WebhookDelivery, void, undefined> => metaRows((q) => this.deliveries(id, q), query);

  /**
   * `POST /webhooks/{id}/deliveries/{deliveryId}/retry`: re-arms a failed (or pending) delivery
   * with a fresh budget of attempts, the first at once; a delivered one is 409 already_delivered.
   */
  async retryDelivery(
    id: string,
    deliveryId: string,
    options: RequestOptions = {},
  ): Promise<WebhookDelivery> {
    checkString('webhooks.retryDelivery', 'id', id);
    checkString('webhooks.retryDelivery', 'deliveryId', deliveryId);
    checkOptionalObject('webhooks.retryDelivery', 'options', options);
    const path = `${webhookPath(id)}/deliveries/${encodeURIComponent(deliveryId)}/retry`;
    return (await this.send('POST', path, deliveryRetryResponseSchema, options)).data;
  }

  /** One request of these endpoints, never retried unless it is a GET. */
  private send<S extends z.ZodType>(
    method: HttpMethod,
    path: string,
    schema: S,
    options: RequestOptions,
    body?: unknown,
  ): Promise<z.output<S>> {
    return this.transport.json({ method, path, schema, signal: options.signal, body });
  }
}

function webhookPath(id: string): string {
  return `/webhooks/${encodeURIComponent(id)}`;
}
