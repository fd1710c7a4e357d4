/**
 * How a request's body is read, and the refusals reading it can answer: the one place both the
 * server (which parsers exist) and the document (which routes list those refusals) take it from.
 *
 * Fastify reads the body of every method but GET, HEAD and TRACE, whether or not the route takes
 * one, so a route that ignores its body still refuses one it cannot read: over the body limit
 * (413), of a media type other than JSON (415, `text/plain` included), or malformed JSON (400).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../contract/api-error.js';
import type { ErrorCode } from '../../contract/errors.js';

/** The methods whose bodies are never read (Fastify's `bodyless` methods). */
const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'TRACE']);

/** What reading a body can answer: malformed or empty JSON, over the limit, not JSON. */
const BODY_ERRORS = [
  'invalid_request',
  'body_too_large',
  'unsupported_media_type',
] as const satisfies readonly ErrorCode[];

/** True when a request of this method has its body read (and so can be refused for it). */
function readsBody(method: string): boolean {
  return !BODYLESS_METHODS.has(method.toUpperCase());
}

/** The error codes reading the body of a route of this method can answer (none for a GET). */
export function bodyErrorsOf(method: string): ErrorCode[] {
  return readsBody(method) ? [...BODY_ERRORS] : [];
}

/**
 * Replaces Fastify's default parsers with JSON alone: `text/plain` would otherwise reach a
 * route's schema as a string ("got the string …") instead of being refused as every other
 * media type is. An empty body is no body on a route that takes none, whatever its type (a
 * client that sets `Content-Type: application/json` on every request, or `fetch` posting `''`
 * as `text/plain`); on a route that takes one, an empty JSON body is still refused.
 */
export function registerBodyParsing(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text === '' && !takesBody(request)) {
      done(null, undefined);
      return;
    }
    void parseJson(request, text, done);
  });
  // Any other type (or none): refused without reading the body, unless there is none to read.
  app.addContentTypeParser('*', (request, _payload, done) => {
    if (request.headers['content-length'] === '0' && !takesBody(request)) {
      done(null, undefined);
      return;
    }
    done(new ApiError('unsupported_media_type', 'send the body as application/json'), undefined);
  });
}

function takesBody(request: FastifyRequest): boolean {
  return request.routeOptions.schema?.body !== undefined;
}
