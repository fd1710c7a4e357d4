/**
 * Errors of the control endpoint: every failure, Fastify's own included (unknown route, malformed
 * JSON, body too large, wrong media type), is answered `{ code, detail }`.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { CONTROL_ERROR_STATUS, type ControlErrorBody, type ControlErrorCode } from './protocol.js';

/** A failure a control route throws, answered with its code's status. */
export class ControlError extends Error {
  override readonly name = 'ControlError';
  constructor(
    readonly code: ControlErrorCode,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(detail, options);
  }
}

/** Wraps a failure of the warehouse as a ControlError of `code`, with its message as the detail. */
export function failedWith(code: ControlErrorCode, error: unknown): ControlError {
  return new ControlError(code, error instanceof Error ? error.message : String(error), { cause: error });
}

/** Installs the not-found and error handlers that answer `{ code, detail }`. */
export function registerControlErrors(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    void reply.code(404).send(body('not_found', `no route ${request.method} ${path.slice(0, 200)}`));
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { code, detail } = toControlError(error);
    if (code === 'internal_error') request.log.error({ err: error }, 'control request failed');
    void reply.code(CONTROL_ERROR_STATUS[code]).send(body(code, detail));
  });
}

function toControlError(error: FastifyError): ControlError {
  if (error instanceof ControlError) return error;
  if (error.validation) {
    const first = error.validation[0];
    const where = first?.instancePath.replace(/^\//, '').replaceAll('/', '.') || 'body';
    return new ControlError('invalid_request', `invalid ${where}: ${first?.message ?? 'is invalid'}`);
  }
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new ControlError('body_too_large', error.message);
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return new ControlError('unsupported_media_type', error.message);
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)
    return new ControlError('invalid_request', error.message);
  return new ControlError('internal_error', 'an unexpected error occurred; see the collector log');
}

function body(code: ControlErrorCode, detail: string): ControlErrorBody {
  return { code, detail };
}
