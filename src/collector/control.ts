/**
 * The daemon's control endpoint on loopback: `GET /status`, `POST /sql` (read-only queries
 * through the daemon, which alone may open the warehouse while it runs; `?out=` writes the rows to
 * parquet), `POST /models/run` and `/models/test` (see control-models.ts) and `POST /export`
 * (parquet exports, see control-export.ts). Its address is written beside the warehouse
 * (`<warehouse>.collector.json`) so `market status`, `market sql` and `market export` find it.
 */
import { unlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Warehouse } from '../warehouse/index.js';
import { handleExport } from './control-export.js';
import { handleModels, handleSqlToParquet, readBody } from './control-models.js';
import type { SourceStatus } from './source-status.js';

/** The running control endpoint. */
export interface ControlServer {
  port: number;
  close(): Promise<void>;
}

/** Where a daemon's control address is written for a warehouse file. */
export function controlFileOf(warehousePath: string): string {
  return `${warehousePath}.collector.json`;
}

/** Starts the endpoint on 127.0.0.1 and writes its address file. */
export async function startControlServer(
  warehouse: Warehouse,
  status: () => SourceStatus[],
): Promise<ControlServer> {
  const server = createServer((request, response) => {
    const reply = (code: number, body: unknown) => {
      response.writeHead(code, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body, (_, v) => (typeof v === 'bigint' ? Number(v) : v)));
    };
    if (request.method === 'GET' && request.url === '/status')
      return reply(200, { pid: process.pid, sources: status() });
    if (request.method === 'POST' && request.url === '/export')
      return handleExport(warehouse, request, response);
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method === 'POST' && (url.pathname === '/models/run' || url.pathname === '/models/test')) {
      const action = url.pathname === '/models/run' ? 'run' : 'test';
      void readBody(request)
        .then((body) => handleModels(warehouse, action, body))
        .then(([code, answer]) => reply(code, answer));
      return;
    }
    if (request.method === 'POST' && url.pathname === '/sql') {
      void readBody(request).then(async (sql) => {
        if (!isReadOnly(sql))
          return reply(400, {
            error: 'only read-only queries (SELECT, WITH, SHOW, DESCRIBE, EXPLAIN) run through the daemon',
          });
        const out = url.searchParams.get('out');
        if (out) return reply(...(await handleSqlToParquet(warehouse, sql, out)));
        warehouse.query(sql).then(
          (rows) => reply(200, { rows }),
          (error: unknown) => reply(400, { error: error instanceof Error ? error.message : String(error) }),
        );
      });
      return;
    }
    reply(404, { error: 'not found' });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  const file = controlFileOf(warehouse.path);
  await writeFile(file, JSON.stringify({ pid: process.pid, port }));
  return {
    port,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await unlink(file).catch(() => undefined);
    },
  };
}

/** True for statements that only read. */
export function isReadOnly(sql: string): boolean {
  return (
    /^\s*(select|with|show|describe|explain|summarize|from|pragma\s+table_info)\b/i.test(sql) &&
    !/;\s*\S/.test(sql.trim())
  );
}
