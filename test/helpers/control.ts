/**
 * A real control endpoint on loopback over a warehouse file locked down as the daemon locks it,
 * and a raw client that can send what an attacker would (no token, another Host, an Origin).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { lockDownWarehouse } from '../../src/collector/control/lock-down.js';
import { type ControlFile, controlFileOf } from '../../src/collector/control/protocol.js';
import {
  type ControlOptions,
  type ControlServer,
  startControlServer,
} from '../../src/collector/control/server.js';
import { StatusBoard } from '../../src/collector/source-status.js';
import { Warehouse } from '../../src/warehouse/index.js';

/** A raw answer. */
export interface RawAnswer {
  status: number;
  text: string;
  json(): any;
  /** The JSON lines of an NDJSON answer, blank keep-alive lines skipped. */
  lines(): any[];
}

/** What a request sends; the token and the right Host unless told otherwise. */
export interface RawRequest {
  method?: 'GET' | 'POST';
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** Sends no Authorization header. */
  noToken?: boolean;
}

/** A running endpoint, its folders, and a client. */
export interface TestControl {
  dir: string;
  exportsDir: string;
  reportsDir: string;
  warehouse: Warehouse;
  server: ControlServer;
  file: ControlFile;
  call(path: string, init?: RawRequest): Promise<RawAnswer>;
  /** POST /sql as text/plain. */
  sql(query: string, path?: string): Promise<RawAnswer>;
  close(): Promise<void>;
}

/** Opens a warehouse in a fresh folder, locks it down and starts its control endpoint. */
export async function startTestControl(options: Partial<ControlOptions> = {}): Promise<TestControl> {
  const dir = await mkdtemp(join(tmpdir(), 'market-control-'));
  const exportsDir = join(dir, 'exports');
  const reportsDir = join(dir, 'reports');
  const warehouse = await Warehouse.open(join(dir, 'warehouse.duckdb'));
  await lockDownWarehouse(warehouse, [warehouse.stagingDir, exportsDir, reportsDir]);
  const server = await startControlServer(warehouse, () => [new StatusBoard('fx').status], {
    exportDirs: [exportsDir],
    ...options,
  });
  const file = JSON.parse(readFileSync(controlFileOf(warehouse.path), 'utf8')) as ControlFile;
  const call = async (path: string, init: RawRequest = {}): Promise<RawAnswer> => {
    const headers: Record<string, string> = {
      ...(init.noToken ? {} : { authorization: `Bearer ${file.token}` }),
      ...(init.contentType ? { 'content-type': init.contentType } : {}),
      ...init.headers,
    };
    const answer = await request(`http://127.0.0.1:${file.port}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers,
      ...(init.body === undefined ? {} : { body: init.body }),
    });
    const text = await answer.body.text();
    return {
      status: answer.statusCode,
      text,
      json: () => JSON.parse(text),
      lines: () =>
        text
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line)),
    };
  };
  let closed = false;
  let serverClosed = false;
  const closeServer = server.close.bind(server);
  server.close = async () => {
    if (serverClosed) return;
    serverClosed = true;
    await closeServer();
  };
  return {
    dir,
    exportsDir,
    reportsDir,
    warehouse,
    server,
    file,
    call,
    sql: (query, path = '/sql') => call(path, { body: query, contentType: 'text/plain' }),
    async close() {
      if (closed) return;
      closed = true;
      await server.close();
      await warehouse.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
