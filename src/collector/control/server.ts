/**
 * The daemon's control endpoint, a small Fastify app on loopback speaking protocol.ts: `GET
 * /status`, `POST /sql` (read-only queries through the daemon, which alone may open the warehouse
 * while it runs; see sql.ts), `POST /models/run` and `/models/test` (models.ts), `POST /export`
 * (export.ts), `POST /report` (report.ts) and `GET /metrics` (metrics/). Only the owner gets in
 * (see access.ts); every error is `{ code, detail }`; slow clients are cut. Its address and
 * per-run token are written beside the warehouse (`<warehouse>.collector.json`, mode 600) so
 * `market status`, `sql`, `models`, `export` and `report` find it. Its port may be fixed, and a
 * metrics token given, so that a scraper's config outlives restarts.
 */
import { unlink } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyHttpOptions, type FastifyInstance } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import { answerClientError } from '../../shared/client-error-answer.js';
import { closeWithin } from '../../shared/close-within.js';
import { writeOwnerOnly } from '../../shared/owner-only-file.js';
import { type ClientTimeouts, slowClientOptions } from '../../shared/slow-clients.js';
import type { LakeStatus, Warehouse } from '../../warehouse/index.js';
import type { CollectorMetrics } from '../metrics/collector-metrics.js';
import { registerMetricsRoute } from '../metrics/metrics-route.js';
import type { SourceStatus } from '../source-status.js';
import { type ControlTokens, createControlToken, registerControlAccess } from './access.js';
import { registerControlErrors } from './errors.js';
import { registerExportRoute } from './export.js';
import { registerLakeRoute } from './lake.js';
import { registerModelRoutes } from './models.js';
import { CONTROL_PATHS, type ControlFile, controlFileOf, type StatusAnswer } from './protocol.js';
import { QueryDoor } from './read-only-query.js';
import { registerReportRoute } from './report.js';
import { registerSqlRoute } from './sql.js';

/** The running control endpoint. */
export interface ControlServer {
  port: number;
  /** Interrupts the queries in progress, stops listening and removes the control file. */
  close(): Promise<void>;
}

/** Options of {@link startControlServer}. */
export interface ControlOptions {
  /** The port on 127.0.0.1; 0 picks a free one. @default 0 */
  port?: number;
  /** A token `GET /metrics` accepts besides the per-run one (see control-access.ts). */
  metricsToken?: string;
  /** Hears of unexpected failures. */
  log?: Logger;
  /** Folders `POST /export` may write into (the locked-down warehouse can write nowhere else). */
  exportDirs: readonly string[];
  /** The instruments served at `GET /metrics`; none, no route. */
  metrics?: CollectorMetrics;
  /** The upstream's measured clock offset (ms), shown by `GET /status`. */
  upstreamOffsetMs?: () => number | null;
  /** Deadline of a query through `POST /sql`. @default 60_000 */
  queryTimeoutMs?: number;
  /** Deadlines of slow clients (tests shorten them). @default see ClientTimeouts */
  timeouts?: ClientTimeouts;
}

/** Starts the endpoint on 127.0.0.1 and writes its control file, readable by the owner alone. */
export async function startControlServer(
  warehouse: Warehouse,
  status: () => SourceStatus[],
  options: ControlOptions,
): Promise<ControlServer> {
  const token = createControlToken();
  const door = new QueryDoor(warehouse, options.queryTimeoutMs);
  const app = buildControlApp(
    warehouse,
    status,
    door,
    { run: token, metrics: options.metricsToken },
    options,
  );
  let closing = false;
  // Answers still under way when closing end their connection, which app.close() would wait on.
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
  try {
    await app.listen({ host: '127.0.0.1', port: options.port ?? 0 });
  } catch (error) {
    await app.close();
    await door.stop();
    throw clearerListenError(error, options.port ?? 0);
  }
  const port = (app.server.address() as AddressInfo).port;
  const file = controlFileOf(warehouse.path);
  await writeOwnerOnly(file, JSON.stringify({ pid: process.pid, port, token } satisfies ControlFile));
  return {
    port,
    async close() {
      closing = true;
      const stopped = door.stop();
      // An answer whose reader stopped reading (a paused pager) would hold the close forever.
      await closeWithin(app);
      await stopped;
      await unlink(file).catch(() => undefined);
    },
  };
}

function buildControlApp(
  warehouse: Warehouse,
  status: () => SourceStatus[],
  door: QueryDoor,
  tokens: ControlTokens,
  options: ControlOptions,
): FastifyInstance {
  const fastifyOptions: FastifyHttpOptions<Server> = {
    bodyLimit: 1024 * 1024,
    ...slowClientOptions(options.timeouts),
    clientErrorHandler: answerClientError,
  };
  // Requests are logged at info; only failures are worth the daemon's log.
  const log = options.log;
  if (log) {
    const level = log.levelVal > (log.levels.values.warn ?? 40) ? log.level : 'warn';
    fastifyOptions.loggerInstance = log.child({ component: 'control' }, { level });
  }
  const app = Fastify(fastifyOptions);
  app.setValidatorCompiler(validatorCompiler);
  registerControlErrors(app);
  registerControlAccess(app, tokens, () => `127.0.0.1:${(app.server.address() as AddressInfo).port}`);
  const lakeStatus = lakeStatusWithin(warehouse, LAKE_STATUS_MS);
  app.get(CONTROL_PATHS.status, async (): Promise<StatusAnswer> => {
    const answer: StatusAnswer = {
      pid: process.pid,
      upstreamOffsetSeconds: secondsOf(options.upstreamOffsetMs?.() ?? null),
      sources: status(),
      modelsDir: warehouse.modelsDir,
    };
    const lake = await lakeStatus();
    if (lake) answer.lake = lake;
    return answer;
  });
  registerSqlRoute(app, door);
  registerModelRoutes(app, warehouse);
  registerExportRoute(app, warehouse, options.exportDirs);
  registerReportRoute(app, warehouse);
  registerLakeRoute(app, warehouse);
  if (options.metrics) registerMetricsRoute(app, options.metrics);
  return app;
}

/**
 * How long `GET /status` waits for the lake's figures. The boards answer at once, but the lake is
 * read from the warehouse, whose threads long queries or builds may all hold: a live daemon must
 * not look hung to `market status --check` (which waits 5 s), so past this the answer carries the
 * last figures read.
 */
const LAKE_STATUS_MS = 500;

/**
 * The lake's status within `ms`, else the last one read (none before a first read ends); one read
 * at a time, however many answers wait on it.
 */
function lakeStatusWithin(warehouse: Warehouse, ms: number): () => Promise<LakeStatus | undefined> {
  let last: LakeStatus | undefined;
  let reading: Promise<LakeStatus> | null = null;
  return async () => {
    reading ??= warehouse.lakeStatus().then(
      (lake) => {
        last = lake;
        reading = null;
        return lake;
      },
      (error: unknown) => {
        reading = null;
        throw error;
      },
    );
    const current = reading;
    // A read that outlives the answer still updates `last`; its failure is then no one's to hear.
    current.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), ms);
    });
    try {
      return (await Promise.race([current, late])) ?? last;
    } finally {
      clearTimeout(timer);
    }
  };
}

/** A port in use said in one line, naming the flag that moves it; the code stays for the CLI. */
function clearerListenError(error: unknown, port: number): unknown {
  if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') return error;
  const message = `the control port ${port} on 127.0.0.1 is in use by another process: stop it, or give another --control-port (0 picks a free one)`;
  return Object.assign(new Error(message), { code: 'EADDRINUSE' });
}

function secondsOf(ms: number | null): number | null {
  return ms === null ? null : ms / 1000;
}
