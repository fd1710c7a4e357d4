/**
 * The typed API client, as its users need it: the client and its options, its resources and their
 * page types, the query types, the errors it throws with their guards, and webhook verification.
 * The transport, the key's budget and the retry policy stay inside.
 */
export { ApiError, isApiError } from '../contract/api-error.js';
export type {
  Candle,
  CandlesAnswer,
  HistoryItem,
  HistoryItemsAnswer,
  HistoryMovers,
  HistoryStats,
} from '../contract/history.js';
export {
  type BudgetLimits,
  type BudgetOptions,
  type ClientClock,
  DEFAULT_BUDGET,
  type MarketClientOptions,
  type RequestOptions,
  type Sleep,
} from './client-options.js';
export {
  ClientArgumentError,
  isClientArgumentError,
  isNetworkError,
  isUnexpectedResponseError,
  isWebhookVerificationError,
  NetworkError,
  UnexpectedResponseError,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from './errors.js';
export {
  type CandlesParams,
  HistoryClient,
  type HistoryGroupParams,
  type HistoryItemsParams,
  type MoversParams,
  type StatsParams,
} from './history-client.js';
export { MarketClient } from './market-client.js';
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
export type { AccountResource, TransactionPage } from './resources/account.js';
export type { InstantSellResource } from './resources/instant-sell.js';
export type {
  LenientCurrency,
  LenientMetaPage,
  LenientPriceList,
  LenientResource,
} from './resources/lenient.js';
export type { ListingPage, ListingsResource, RawListingPage } from './resources/listings.js';
export type { MarketInfoResource } from './resources/market-info.js';
export type { OrdersResource, PlaceOrderOptions } from './resources/orders.js';
export type {
  P2PResource,
  PublishedBatch,
  PublishedListing,
  PublishOptions,
} from './resources/p2p.js';
export type {
  PricesResource,
  SnapshotDownload,
  SnapshotNotModified,
  SnapshotResult,
} from './resources/prices.js';
export type { CreateWebhookInput, WebhookDeleted, WebhooksResource } from './resources/webhooks.js';
export { isTransient } from './retry-policy.js';
export type { StreamFetch } from './transport.js';
export { type VerifyWebhookOptions, verifyWebhook } from './verify-webhook.js';
