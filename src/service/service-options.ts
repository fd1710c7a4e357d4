/**
 * What a running service is given, with the defaults written once here: the service falls back on
 * them and the `market serve` flags show them.
 */
import type { ClientTimeouts } from '../shared/slow-clients.js';
import type { AdjustableClock } from './core/clock.js';
import type { RateLimits } from './http/rate-limiter.js';
import type { RetentionOptions } from './market/stream/event-log.js';
import type { WebhookOptions } from './webhooks/webhooks.js';

/** Options of a running service; every one has a default that runs on one machine. */
export interface ServiceOptions {
  /** DuckDB file of the service. @default 'data/market.duckdb' */
  dbPath?: string;
  /** @default '127.0.0.1' */
  host?: string;
  /** 0 picks a free port. @default 8080 */
  port?: number;
  /** Seed of the generated catalogue (used only when the database is new). @default 1 */
  seed?: number;
  /** Listings generated into a new database. @default 20000 */
  listings?: number;
  /** Enables the /sandbox operator endpoints. @default false */
  sandbox?: boolean;
  /** Proxies whose X-Forwarded-For is believed. @default [] */
  trustProxy?: string[];
  /** Per-key limits per rolling minute. @default the specification's */
  rateLimits?: Partial<RateLimits>;
  /** Listings appearing or leaving per second. @default 4 */
  churnRate?: number;
  /** Starts with churn paused. @default false */
  churnPaused?: boolean;
  /** How often the price list is rebuilt, in ms. @default 60000 */
  priceIntervalMs?: number;
  /** How long and how much of the listing event log is kept. @default 24 hours, 2,000,000 events */
  retention?: RetentionOptions;
  /** Interval of the stream's `: heartbeat` comments. @default 25000 */
  heartbeatMs?: number;
  /** Bytes a stream client may fall behind before it is disconnected. @default 8 MiB */
  maxStreamBacklogBytes?: number;
  /** The clock; tests pass their own. @default real time */
  clock?: AdjustableClock;
  /** pino options, or false. @default false */
  logger?: boolean | object;
  /** Browser origins allowed to call the API (CORS). @default [] (none) */
  corsOrigins?: string[];
  /** Webhook delivery; `allowLoopback` is refused without `sandbox`. @default public HTTPS only */
  webhooks?: WebhookOptions;
  /** Deadlines of slow clients (tests shorten them). @default headers 30 s, whole request 45 s */
  timeouts?: ClientTimeouts;
  /** Serves `GET /metrics` (Prometheus) to callers sending this token; none: no metrics. */
  metricsToken?: string;
}

/** The defaults the flags of `market serve` show, the one place they are written. */
export const SERVICE_DEFAULTS: Required<
  Pick<ServiceOptions, 'dbPath' | 'host' | 'port' | 'seed' | 'listings' | 'churnRate'>
> = {
  dbPath: 'data/market.duckdb',
  host: '127.0.0.1',
  port: 8080,
  seed: 1,
  listings: 20_000,
  churnRate: 4,
};
