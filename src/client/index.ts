/** The typed API client: re-exports only. */
export { ApiError, isApiError } from '../contract/api-error.js';
export { ClientArgumentError, isClientArgumentError } from './client-argument-error.js';
export {
  type BudgetLimits,
  type BudgetOptions,
  type ClientClock,
  DEFAULT_BUDGET,
  type MarketClientOptions,
  type RequestOptions,
  type Sleep,
} from './client-options.js';
export { claimBudget, KeyBudget } from './key-budget.js';
export { MarketClient } from './market-client.js';
export { isNetworkError, NetworkError } from './network-error.js';
export { paginate } from './paginate.js';
export type {
  ChangeFeedParams,
  DeliveriesParams,
  ListingsParams,
  OnlyOrExclude,
  OrdersParams,
  P2PListingsParams,
  PricesParams,
  SellOrdersParams,
  TransactionsParams,
} from './query-params.js';
export { AccountResource, type TransactionPage } from './resources/account.js';
export { InstantSellResource } from './resources/instant-sell.js';
export { type ListingPage, ListingsResource } from './resources/listings.js';
export { MarketInfoResource } from './resources/market-info.js';
export { OrdersResource, type PlaceOrderOptions } from './resources/orders.js';
export {
  P2PResource,
  type PublishedBatch,
  type PublishedListing,
  type PublishOptions,
} from './resources/p2p.js';
export {
  PricesResource,
  type SnapshotDownload,
  type SnapshotNotModified,
  type SnapshotResult,
} from './resources/prices.js';
export { type CreateWebhookInput, type WebhookDeleted, WebhooksResource } from './resources/webhooks.js';
export {
  BACKOFF_BASE_MS,
  BACKOFF_CAP_MS,
  backoffMs,
  decideRetry,
  isTransient,
  postFailureKind,
  type RetryContext,
  type RetryDecision,
  retryAfterMs,
  retryDelayMs,
} from './retry-policy.js';
export { RollingWindow, type WindowSlot } from './rolling-window.js';
export {
  type JsonRequest,
  type KeyedAnswer,
  type RateClass,
  type StreamFetch,
  Transport,
} from './transport.js';
export { isUnexpectedResponseError, UnexpectedResponseError } from './unexpected-response-error.js';
export { type VerifyWebhookOptions, verifyWebhook } from './verify-webhook.js';
export {
  isWebhookVerificationError,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from './webhook-verification-error.js';
