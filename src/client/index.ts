/** The typed API client: re-exports only. */
export {
  type BudgetLimits,
  type BudgetOptions,
  type ClientClock,
  DEFAULT_BUDGET,
  type MarketClientOptions,
  type Sleep,
} from './client-options.js';
export { claimBudget, KeyBudget } from './key-budget.js';
export {
  type ListingPage,
  MarketClient,
  type SnapshotDownload,
  type SnapshotNotModified,
  type SnapshotResult,
  type StreamFetch,
  type TransactionPage,
} from './market-client.js';
export { isNetworkError, NetworkError } from './network-error.js';
export { paginate } from './paginate.js';
export type { ListingsParams, OnlyOrExclude, PricesParams, TransactionsParams } from './query-params.js';
export {
  BACKOFF_BASE_MS,
  BACKOFF_CAP_MS,
  backoffMs,
  isTransient,
  retryAfterMs,
  retryDelayMs,
} from './retry-policy.js';
export { RollingWindow, type WindowSlot } from './rolling-window.js';
export { isUnexpectedResponseError, UnexpectedResponseError } from './unexpected-response-error.js';
