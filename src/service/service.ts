/** Starting and stopping the whole service: database, catalogue, simulator and HTTP server. */
import type { FastifyInstance } from 'fastify';
import { type AdjustableClock, createClock } from './clock.js';
import type { ServiceContext } from './context.js';
import { FailedAuthGuard } from './http/failed-auth.js';
import { DEFAULT_RATE_LIMITS, type RateLimits, RollingWindowLimiter } from './http/rate-limiter.js';
import { buildApp } from './http/server.js';
import { Catalogue } from './market/catalogue.js';
import type { RetentionOptions } from './market/event-log.js';
import { FxRates } from './market/fx-rates.js';
import { PriceList } from './market/price-list.js';
import { PriceSnapshot } from './market/price-snapshot.js';
import { projectPath } from './paths.js';
import { MarketChurn } from './sim/churn.js';
import { AccountStore } from './store/accounts.js';
import { Database } from './store/database.js';

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
}

/** A started service. */
export interface RunningService {
  /** `http://host:port/v1` */
  baseUrl: string;
  /** `http://host:port` */
  origin: string;
  app: FastifyInstance;
  context: ServiceContext;
  /** Stops accepting, stops the simulator, and closes the database. */
  close(): Promise<void>;
}

/** Opens everything and listens. */
export async function startService(options: ServiceOptions = {}): Promise<RunningService> {
  const clock = options.clock ?? createClock();
  const db = await Database.open(options.dbPath ?? 'data/market.duckdb', projectPath('sql', 'service'));
  const seed = options.seed ?? 1;
  try {
    const accounts = new AccountStore(db, clock);
    await accounts.load();
    const catalogue = await Catalogue.open(
      db,
      clock,
      { seed, listings: options.listings ?? 20_000, nowMs: clock.now() },
      options.retention ?? {},
    );
    const prices = new PriceList(db, clock);
    const snapshot = new PriceSnapshot();
    prices.onBuild((build) => snapshot.update(build));
    await prices.rebuild();
    const churn = new MarketChurn(catalogue, clock, {
      seed,
      ratePerSecond: options.churnRate ?? 4,
      paused: options.churnPaused ?? false,
    });
    const context: ServiceContext = {
      clock,
      db,
      accounts,
      catalogue,
      prices,
      snapshot,
      fx: new FxRates(clock, seed),
      churn,
      limiter: new RollingWindowLimiter({ ...DEFAULT_RATE_LIMITS, ...options.rateLimits }),
      guard: new FailedAuthGuard(),
      sandbox: options.sandbox ?? false,
      stream: {
        heartbeatMs: options.heartbeatMs ?? 25_000,
        maxBacklogBytes: options.maxStreamBacklogBytes ?? 8 * 1024 * 1024,
        open: new Map(),
      },
    };
    const app = await buildApp(context, {
      trustProxy: options.trustProxy ?? [],
      logger: options.logger ?? false,
    });
    await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 8080 });
    churn.start();
    const priceTimer = setInterval(() => {
      prices.rebuild().catch((error: unknown) => app.log.error({ err: error }, 'price list rebuild failed'));
    }, options.priceIntervalMs ?? 60_000);
    const pruneTimer = setInterval(() => {
      catalogue.log
        .prune(clock.now())
        .catch((error: unknown) => app.log.error({ err: error }, 'event log prune failed'));
    }, 60_000);
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : (options.port ?? 8080);
    const origin = `http://${formatHost(options.host ?? '127.0.0.1')}:${port}`;
    return {
      baseUrl: `${origin}/v1`,
      origin,
      app,
      context,
      async close() {
        clearInterval(priceTimer);
        clearInterval(pruneTimer);
        await churn.stop();
        await app.close();
        await db.close();
      },
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
