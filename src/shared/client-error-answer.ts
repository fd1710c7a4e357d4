/**
 * The answer to a request Node's HTTP parser refused before Fastify saw it, shared by the service
 * and the collector's control endpoint so both answer `{ code, detail }` and both really cut it.
 */
import type { Socket } from 'node:net';

/**
 * Answers a request Node's HTTP parser refused before Fastify saw it (headers or URL too large,
 * malformed HTTP, a request past its deadline) in the same `{ code, detail }` shape: 431 for
 * oversized headers, else 400; then the connection is destroyed, as Node's own handler does.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // Ending our side alone would leave the socket half open (Node's HTTP server allows it) for as
  // long as a slow client goes on sending: the deadline would cut nothing.
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const body = JSON.stringify({
    code: tooLarge ? 'headers_too_large' : 'invalid_request',
    detail: tooLarge
      ? 'the request line and headers exceed 16 KiB; send long filters in fewer or shorter parameters'
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'the request did not arrive in time (headers within 30 s, the whole request within 45 s)'
        : 'the request is not valid HTTP',
  });
  socket.end(
    `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}
