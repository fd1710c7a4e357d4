/**
 * The daemon's control endpoint, a small Fastify app on loopback: `GET /status`, `POST /sql`
 * (read-only queries through the daemon, which alone may open the warehouse while it runs; `?out=`
 * writes the rows to parquet), `POST /models/run` and `/models/test` (see control-models.ts) and
 * `POST /export` (parquet exports, see control-export.ts) and `POST /report` (see control-report.ts). Every error is `{ code, detail }`. Its
 * address is written beside the warehouse (`<warehouse>.collector.json`) so `market status`,
 * `market sql`, `market models` and `market export` find it.
 */
import { unlink, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import type { Warehouse } from '../warehouse/index.js';
import { registerControlErrors } from './control-errors.js';
import { registerExportRoute } from './control-export.js';
import { registerModelRoutes } from './control-models.js';
import { registerReportRoute } from './control-report.js';
import type { SourceStatus } from './source-status.js';

/** The running control endpoint. */
export interface ControlServer {
  port: number;
  close(): Promise<void>;
}

/** The answer of `GET /status`. */
export interface StatusAnswer {
  pid: number;
  sources: SourceStatus[];
}

/** Where a daemon's control address is written for a warehouse file. */
export function controlFileOf(warehousePath: string): string {
  return `${warehousePath}.collector.json`;
}

/** Builds the control app (not yet listening); `log` hears of unexpected failures. */
export function buildControlApp(
  warehouse: Warehouse,
  status: () => SourceStatus[],
  log?: Logger,
): FastifyInstance {
  const options: FastifyServerOptions = { bodyLimit: 1024 * 1024 };
  // Requests are logged at info; only failures are worth the daemon's log.
  if (log) {
    const level = log.levelVal > (log.levels.values.warn ?? 40) ? log.level : 'warn';
    options.loggerInstance = log.child({ component: 'control' }, { level });
  }
  const app = Fastify(options);
  app.setValidatorCompiler(validatorCompiler);
  registerControlErrors(app);
  app.get('/status', async (): Promise<StatusAnswer> => ({ pid: process.pid, sources: status() }));
  registerModelRoutes(app, warehouse);
  registerExportRoute(app, warehouse);
  registerReportRoute(app, warehouse);
  return app;
}

/** Starts the endpoint on 127.0.0.1 and writes its address file. */
export async function startControlServer(
  warehouse: Warehouse,
  status: () => SourceStatus[],
  log?: Logger,
): Promise<ControlServer> {
  const app = buildControlApp(warehouse, status, log);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as AddressInfo).port;
  const file = controlFileOf(warehouse.path);
  await writeFile(file, JSON.stringify({ pid: process.pid, port }));
  return {
    port,
    async close() {
      await app.close();
      await unlink(file).catch(() => undefined);
    },
  };
}
