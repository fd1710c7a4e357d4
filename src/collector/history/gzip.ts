/** Gzip of answers for clients that accept it: candles of a long range are mostly repeated keys. */
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';

/** Bodies smaller than this go as they are: gzip would save less than its own header costs. */
const MIN_BYTES = 1024;

/** Compresses every string or Buffer answer of at least 1 KiB when `Accept-Encoding` allows gzip. */
export function registerGzip(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    reply.header('vary', 'Accept-Encoding');
    const accepts = /\bgzip\b/i.test(String(request.headers['accept-encoding'] ?? ''));
    if (!accepts || Buffer.byteLength(payload) < MIN_BYTES) return payload;
    reply.header('content-encoding', 'gzip');
    reply.removeHeader('content-length');
    return gzipSync(payload);
  });
}
