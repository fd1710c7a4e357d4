/**
 * `POST /sql` of the control endpoint: one read-only query (see read-only-query.ts), its answer
 * streamed as NDJSON in bounded memory, so a result of any size reaches the CLI: a
 * `{"columns": […]}` line, one JSON array per row, then `{"end": {"rows": n}}`, or an
 * `{"error": {code, detail}}` line when the query ends early (deadline, stop, runtime error). A
 * statement refused or unparsable is answered 400 `{ code, detail }` before any line. The answer
 * takes at most half of the daemon's time, so the sources keep their schedules (see the README).
 */
import { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ControlError } from './errors.js';
import { CONTROL_PATHS, type SqlLine, sqlQuerySchema } from './protocol.js';
import type { QueryDoor, RowStream } from './read-only-query.js';

/** Registers `POST /sql` on the door. */
export function registerSqlRoute(app: FastifyInstance, door: QueryDoor): void {
  app.withTypeProvider<ZodTypeProvider>().post(
    CONTROL_PATHS.sql,
    {
      schema: {
        body: z.string().min(1, 'send one SQL statement as text/plain'),
        querystring: sqlQuerySchema,
      },
    },
    async (request, reply) => {
      await door.run(
        request.body,
        async (rows) => {
          const body = Readable.from(answerLines(rows), { objectMode: false });
          reply.raw.once('close', () => {
            if (!reply.raw.writableFinished) rows.cancel();
          });
          // The connection stays with this query until its last line is sent or its reader is gone.
          const sent = new Promise((resolve) => body.once('close', resolve));
          void reply.type('application/x-ndjson').send(body);
          await sent;
        },
        request.query.timeoutMs,
      );
      return reply;
    },
  );
}

async function* answerLines(rows: RowStream): AsyncGenerator<string> {
  yield `${JSON.stringify({ columns: rows.columns } satisfies SqlLine)}\n`;
  let count = 0;
  try {
    let started = performance.now();
    for await (const chunk of rows.chunks()) {
      count += chunk.length;
      const lines = `${chunk.map((row) => JSON.stringify(row)).join('\n')}\n`;
      // The answer takes at most half the daemon's time: after each chunk, the sources get as long.
      await delay(performance.now() - started);
      yield lines;
      started = performance.now();
    }
    yield `${JSON.stringify({ end: { rows: count } } satisfies SqlLine)}\n`;
  } catch (error) {
    const failure =
      error instanceof ControlError ? error : new ControlError('query_failed', (error as Error).message);
    yield `${JSON.stringify({ error: { code: failure.code, detail: failure.detail } } satisfies SqlLine)}\n`;
  }
}
