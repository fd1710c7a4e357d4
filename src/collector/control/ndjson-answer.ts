/**
 * Long work of the control endpoint answered as NDJSON: a `{"progress": …}` line per step, then
 * `{"result": …}` or `{"error": "…", "input": true|false}`; blank lines in between keep the
 * connection alive while a long step runs.
 */
import { PassThrough } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { NdjsonLine } from './protocol.js';

/** Between keep-alive blank lines while no progress line is due. */
const KEEPALIVE_MS = 15_000;

/** Sends `work`'s progress and outcome as NDJSON; `isInputError` tells a bad request from a failure. */
export function answerNdjson<P, R>(
  reply: FastifyReply,
  work: (onProgress: (progress: P) => void) => Promise<R>,
  isInputError: (error: unknown) => boolean,
): FastifyReply {
  const stream = new PassThrough();
  const send = (line: NdjsonLine<P, R>) => stream.write(`${JSON.stringify(line)}\n`);
  const keepalive = setInterval(() => stream.write('\n'), KEEPALIVE_MS);
  void work((progress) => send({ progress }))
    .then(
      (result) => send({ result }),
      (error: unknown) =>
        send({ error: error instanceof Error ? error.message : String(error), input: isInputError(error) }),
    )
    .finally(() => {
      clearInterval(keepalive);
      stream.end();
    });
  return reply.type('application/x-ndjson').send(stream);
}
