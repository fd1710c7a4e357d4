/**
 * `POST /models/run`, `POST /models/test` and `POST /sql?out=` of the control endpoint: model
 * builds, model tests and query results written to parquet, run inside the daemon (which alone
 * may open the warehouse while it runs). Each answers one JSON body.
 */
import type { IncomingMessage } from 'node:http';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import type { ModelRunSummary, ModelTestResult, Warehouse } from '../warehouse/index.js';

/** The body of `POST /models/run` and `POST /models/test`. */
export const modelsRequestSchema = z.object({
  select: z.array(z.string()).optional(),
  fullRefresh: z.boolean().optional(),
});
export type ModelsRequest = z.infer<typeof modelsRequestSchema>;

/** An answer: the outcome, or why it failed. */
export type ModelsAnswer =
  | { summary: ModelRunSummary }
  | { results: ModelTestResult[] }
  | { rows: number; out: string }
  | { error: string };

/** Reads a whole request body as text. */
export function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => resolve(body));
    request.on('error', reject);
  });
}

/** Builds or tests the models a request selects. */
export async function handleModels(
  warehouse: Warehouse,
  action: 'run' | 'test',
  body: string,
): Promise<[number, ModelsAnswer]> {
  let request: ModelsRequest;
  try {
    request = modelsRequestSchema.parse(body ? JSON.parse(body) : {});
  } catch {
    return [
      400,
      { error: 'the body must be JSON like {"select": ["fct_minask_history"], "fullRefresh": false}' },
    ];
  }
  const select = request.select ?? [];
  try {
    if (action === 'test') return [200, { results: await warehouse.testModels({ select }) }];
    return [
      200,
      { summary: await warehouse.refreshModels({ select, fullRefresh: request.fullRefresh ?? false }) },
    ];
  } catch (error) {
    return [400, { error: error instanceof Error ? error.message : String(error) }];
  }
}

/** Writes a read-only query's rows to the parquet file `out` (an absolute path). */
export async function handleSqlToParquet(
  warehouse: Warehouse,
  sql: string,
  out: string,
): Promise<[number, ModelsAnswer]> {
  if (!isAbsolute(out))
    return [400, { error: 'out must be an absolute path (the daemon may run in another folder)' }];
  try {
    return [200, { rows: await warehouse.queryToParquet(sql, out), out }];
  } catch (error) {
    return [400, { error: error instanceof Error ? error.message : String(error) }];
  }
}
