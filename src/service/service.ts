/**
 * The composition root: opens the database, builds each feature with the parts it needs (those
 * that need other features in `open-features.ts`), registers their plugins, starts the timers, and
 * stops it all again.
 */
import type { FastifyInstance } from 'fastify';
import { closeWithin } from '../shared/close-within.js';
import type { Database } from '../shared/database.js';
import { FailedAuthGuard } from '../shared/failed-auth.js';
import { Accounts } from './accounts/accounts.js';
import { accountsFeature } from './accounts/accounts-feature.js';
import { type AdjustableClock, createClock } from './core/clock.js';
import { restoreClock, saveClock } from './core/clock-store.js';
import { DueWork } from './core/due-work.js';
import { UnitOfWorkRunner } from './core/unit-of-work.js';
import type { Feature } from './http/feature.js';
import { DEFAULT_RATE_LIMITS, RollingWindowLimiter } from './http/rate-limiter.js';
import { registerCoreSandboxRoutes } from './http/sandbox-routes.js';
import { buildApp } from './http/server.js';
import { Catalogue } from './market/catalogue.js';
import { catalogueItems } from './market/catalogue-items.js';
import { ALL_APP_IDS } from './market/games.js';
import { marketFeature } from './market/market-feature.js';
import { FxRates } from './market/prices/fx-rates.js';
import { PriceList } from './market/prices/price-list.js';
import { PriceSnapshot } from './market/prices/price-snapshot.js';
import { StreamRegistry } from './market/stream/stream-registry.js';
import { registerMetricsRoute } from './metrics/metrics-route.js';
import { ServiceMetrics } from './metrics/service-metrics.js';
import { openFeatures } from './open-features.js';
import type { P2P } from './p2p/p2p.js';
import { Platform } from './platform/platform.js';
import { platformFeature } from './platform/platform-feature.js';
import { openServiceDatabase } from './service-database.js';
import { SERVICE_DEFAULTS, type ServiceOptions } from './service-options.js';
import { MarketChurn } from './sim/churn.js';
import { catalogueSeeder } from './sim/generator.js';
import { simulatorFeature } from './sim/simulator-feature.js';
import { startTimers } from './timers.js';
import type { Trading } from './trading/trading.js';
import type { Webhooks } from './webhooks/webhooks.js';

/** The assembled parts, for tools and tests that look inside a running service. */
export interface ServiceParts {
  clock: AdjustableClock;
  db: Database;
  units: UnitOfWorkRunner;
  due: DueWork;
  accounts: Accounts;
  catalogue: Catalogue;
  prices: PriceList;
  fx: FxRates;
  churn: MarketChurn;
  platform: Platform;
  trading: Trading;
  p2p: P2P;
  webhooks: Webhooks;
}

/** A started service. */
export interface RunningService {
  /** `http://host:port/v1` */
  baseUrl: string;
  /** `http://host:port` */
  origin: string;
  app: FastifyInstance;
  context: ServiceParts;
  /**
   * Stops the simulator and the timers, stops accepting, ends every open stream (clients resume
   * with their last id), cuts connections left after a short grace, and closes the database.
   */
  close(): Promise<void>;
}

/** A service assembled but not listening: routes answer through `app.inject`, no timer runs. */
export interface OpenService {
  app: FastifyInstance;
  context: ServiceParts;
  /**
   * Closes the application (open streams end, connections left after a short grace are cut), waits
   * for pending writes, and closes the database.
   */
  close(): Promise<void>;
}

/**
 * Opens the database and builds every part and route without listening or starting timers: for
 * route-level tests on an in-memory database (`dbPath: ':memory:'`) where a socket adds nothing.
 */
export async function openService(options: ServiceOptions = {}): Promise<OpenService> {
  const clock = options.clock ?? createClock();
  if (options.webhooks?.allowLoopback && !options.sandbox)
    throw new Error('the webhook loopback allowance is for the sandbox only');
  const db = await openServiceDatabase(options.dbPath ?? SERVICE_DEFAULTS.dbPath);
  try {
    await restoreClock(db, clock);
    const parts = await openParts(db, clock, options);
    const metrics = options.metricsToken ? metricsOf(parts, clock) : null;
    // One guard: wrong metrics tokens count towards the same address ban as bad keys.
    const guard = new FailedAuthGuard();
    const app = await buildApp({
      auth: { accounts: parts.accounts, guard, limiter: parts.limiter, clock },
      features: features(parts, options),
      sandbox: options.sandbox ?? false,
      trustProxy: options.trustProxy ?? [],
      logger: options.logger ?? false,
      corsOrigins: options.corsOrigins ?? [],
      ...(options.timeouts ? { timeouts: options.timeouts } : {}),
      ...(metrics ? { onResponse: (request, reply) => metrics.observe(request, reply) } : {}),
    });
    if (metrics && options.metricsToken)
      registerMetricsRoute(app, metrics, options.metricsToken, { guard, clock });
    parts.reportDueFailure = (task, error) => app.log.error({ err: error }, `due work "${task}" failed`);
    return {
      app,
      context: parts,
      async close() {
        await parts.webhooks.stop();
        await closeWithin(app);
        await saveClock(parts.units, clock);
        await parts.units.drain();
        await db.close();
      },
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}

/** Opens everything, listens, and starts the simulator and the periodic jobs. */
export async function startService(options: ServiceOptions = {}): Promise<RunningService> {
  const opened = await openService(options);
  const { app, context: parts } = opened;
  const { host = SERVICE_DEFAULTS.host, port: askedPort = SERVICE_DEFAULTS.port } = options;
  try {
    await app.listen({ host, port: askedPort });
  } catch (error) {
    await opened.close();
    throw error;
  }
  const stopTimers = startTimers(parts, options, (error, what) => app.log.error({ err: error }, what));
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : askedPort;
  const origin = `http://${formatHost(host)}:${port}`;
  return {
    baseUrl: `${origin}/v1`,
    origin,
    app,
    context: parts,
    async close() {
      await stopTimers();
      await opened.close();
    },
  };
}

type Parts = ServiceParts & {
  snapshot: PriceSnapshot;
  limiter: RollingWindowLimiter;
  streams: StreamRegistry;
  /** The plugins of the features after the market's, in the order their due tasks were registered. */
  opened: Feature[];
  /** Where failures of due work are reported (the app's log once it exists). */
  reportDueFailure: (task: string, error: unknown) => void;
};

/** The operator's instruments over the parts they read. */
function metricsOf(parts: Parts, clock: AdjustableClock): ServiceMetrics {
  return new ServiceMetrics({
    clock,
    streams: parts.streams,
    log: parts.catalogue.log,
    deliveries: parts.webhooks.deliveries,
    due: parts.due,
  });
}

/** Loads the stores and builds the parts the features share. */
async function openParts(db: Database, clock: AdjustableClock, options: ServiceOptions): Promise<Parts> {
  const seed = options.seed ?? SERVICE_DEFAULTS.seed;
  const units = new UnitOfWorkRunner(db, () => clock.now());
  const accounts = new Accounts(db, units);
  await accounts.load(db);
  const platform = new Platform({ db, units, clock });
  await platform.load();
  const seeder = catalogueSeeder({
    seed,
    count: options.listings ?? SERVICE_DEFAULTS.listings,
    nowMs: clock.now(),
  });
  const catalogue = await Catalogue.open(db, units, seeder, options.retention ?? {});
  const churn = new MarketChurn(catalogue, clock, {
    seed,
    ratePerSecond: options.churnRate ?? SERVICE_DEFAULTS.churnRate,
    paused: options.churnPaused ?? false,
  });
  // Locks that ended while the service was down (or before a new catalogue's "now") end first,
  // so the first price list and the first read agree.
  await churn.releaseHolds();
  const prices = new PriceList(db, clock);
  const snapshot = new PriceSnapshot();
  prices.onBuild((build) => snapshot.update(build));
  await prices.rebuild();
  const due = new DueWork(
    clock,
    (task, error) => parts.reportDueFailure(task, error),
    (aheadMs) => saveClock(units, clock, aheadMs),
  );
  // Due tasks run in registration order: settlement, listing holds and platform offers first.
  const before = [
    accountsFeature({ db, accounts, due, allAppIds: ALL_APP_IDS }),
    simulatorFeature(churn, due),
    platformFeature({
      platform,
      due,
      accounts: { steamIdOf: (id) => accounts.account(id)?.steamId },
      items: catalogueItems(catalogue, db),
    }),
  ];
  const opened = await openFeatures(
    { db, units, clock, due, accounts, platform, catalogue },
    options,
    (error) => parts.reportDueFailure('webhooks', error),
  );
  const parts: Parts = {
    clock,
    db,
    units,
    due,
    opened: [...before, ...opened.plugins],
    reportDueFailure: () => undefined,
    accounts,
    catalogue,
    prices,
    snapshot,
    fx: new FxRates(clock, seed),
    churn,
    platform,
    trading: opened.trading,
    p2p: opened.p2p,
    webhooks: opened.webhooks,
    limiter: new RollingWindowLimiter({ ...DEFAULT_RATE_LIMITS, ...options.rateLimits }),
    streams: new StreamRegistry(),
  };
  return parts;
}

/** Every feature with the narrow set of parts it needs. */
function features(parts: Parts, options: ServiceOptions): Feature[] {
  return [
    { sandbox: (app: FastifyInstance) => registerCoreSandboxRoutes(app, parts.clock, parts.due) },
    marketFeature({
      ...parts,
      heartbeatMs: options.heartbeatMs ?? 25_000,
      maxBacklogBytes: options.maxStreamBacklogBytes ?? 8 * 1024 * 1024,
      releaseHolds: () => parts.churn.releaseHolds(),
    }),
    ...parts.opened,
  ];
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
