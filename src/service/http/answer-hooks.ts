/**
 * What the root gives every answer: the service clock's `Date` (what a client measures the
 * service's clock by; the sandbox's moves it) and the operator's count of answers. A route that
 * takes its connection over from Fastify (the listing stream) skips the hooks that give them, so it
 * writes its head with `reply.takeOver`, which gives it both.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../core/clock.js';

declare module 'fastify' {
  interface FastifyReply {
    /**
     * Takes the connection over from Fastify and writes the head: `status`, the headers the hooks
     * have set so far (CORS), the service clock's `Date` and `headers`; the answer is counted now,
     * as it opens. The route then writes and ends `reply.raw` itself.
     */
    takeOver(status: number, headers: OutgoingHttpHeaders): void;
  }
}

/** Hears of every answered request (the operator's metrics). */
export type AnswerListener = (request: FastifyRequest, reply: FastifyReply) => void;

/** Installs the hooks on the root, before any scope is registered, so that every route's answers have them. */
export function registerAnswerHooks(app: FastifyInstance, clock: Clock, onResponse?: AnswerListener): void {
  const date = () => new Date(clock.now()).toUTCString();
  app.addHook('onSend', async (_request, reply) => {
    reply.header('date', date());
  });
  // A taken-over answer is counted as it opens; Fastify hears its end only when the service ends
  // it (a client's close is no `finish`), and must not count it twice.
  const takenOver = new WeakSet<FastifyReply>();
  if (onResponse)
    app.addHook('onResponse', async (request, reply) => {
      if (!takenOver.has(reply)) onResponse(request, reply);
    });
  app.decorateReply('takeOver', function takeOver(this: FastifyReply, status, headers) {
    const hooked = Object.fromEntries(
      Object.entries(this.getHeaders()).filter(
        (entry): entry is [string, string | number | string[]] => entry[1] !== undefined,
      ),
    );
    this.hijack();
    this.raw.writeHead(status, { ...hooked, ...headers, date: date() });
    takenOver.add(this);
    onResponse?.(this.request, this);
  });
}
