/**
 * The one place errors become HTTP: every failure is answered `{ code, detail, ...extra }` with the
 * status of the contract's table; anything unexpected is logged with its cause and answered as a
 * generic 500 that discloses nothing.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, isApiError } from '../contract/api-error.js';
import type { ErrorCode } from '../contract/errors.js';

/**
 * Installs the error and not-found handlers on the root instance (before any route, so that it
 * learns every route's methods: a known path with another method answers 405 with Allow).
 * `refuseFirst` may answer a request with no route before its 404 or 405 (an address ban).
 */
export function registerErrorHandling(
  app: FastifyInstance,
  refuseFirst: (request: FastifyRequest) => ApiError | undefined = () => undefined,
): void {
  const routes: { url: string; pattern: RegExp; methods: string[] }[] = [];
  app.addHook('onRoute', (route) => {
    routes.push({
      url: route.url,
      pattern: routePattern(route.url),
      methods: [route.method].flat().map(String),
    });
  });
  const answerNoRoute = (request: FastifyRequest, reply: FastifyReply): void => {
    const path = request.url.split('?')[0] ?? '';
    const matching = routes.filter((r) => r.pattern.test(path));
    const allowed = [...new Set(matching.flatMap((r) => r.methods))].sort();
    // The route the path belongs to, as the router would pick it (fewest parameters first).
    const [belongs] = matching.map((r) => r.url).sort((a, b) => paramCount(a) - paramCount(b));
    if (belongs !== undefined) pathRoutes.set(request, belongs);
    const error =
      refuseFirst(request) ??
      (allowed.length > 0
        ? new ApiError(
            'method_not_allowed',
            `${path.slice(0, 200)} takes ${allowed.join(', ')}, not ${request.method}`,
            {},
            { headers: { allow: allowed.join(', ') } },
          )
        : new ApiError('not_found', `no route ${request.method} ${path.slice(0, 200)}`));
    void reply
      .code(error.status)
      .headers(error.headers)
      .type('application/json; charset=utf-8')
      .send(JSON.stringify(error.toBody()));
  };
  // Answered before the body is read: a method that may carry one (QUERY) would otherwise be
  // refused for its missing Content-Type instead of for the route it does not have.
  app.addHook('preParsing', (request, reply, payload, done) => {
    if (request.is404) answerNoRoute(request, reply);
    else done(null, payload);
  });
  app.setNotFoundHandler(answerNoRoute);
  // Bodies are sent as ready JSON so that no route's response schema re-serialises an error.
  app.setErrorHandler((raw: FastifyError, request, reply) => {
    const error = toApiError(raw, request);
    void reply
      .code(error.status)
      .headers(error.headers)
      .type('application/json; charset=utf-8')
      .send(JSON.stringify(error.toBody()));
  });
}

/** The route URL of the path of each request answered without a route (a 405); held as long as the request. */
const pathRoutes = new WeakMap<FastifyRequest, string>();

/**
 * The URL pattern of the route a request was answered by, or of the route its path belongs to when
 * no route took its method (a 405); undefined for a path no route serves.
 */
export function routeUrlOf(request: FastifyRequest): string | undefined {
  return request.routeOptions.url ?? pathRoutes.get(request);
}

function paramCount(url: string): number {
  return url.split(':').length - 1;
}

/** A regular expression matching the paths of a route URL (`:param` matches one segment). */
function routePattern(url: string): RegExp {
  const escaped = url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_]\w*/g, '[^/]+');
  return new RegExp(`^${escaped}/?$`);
}

/** Maps anything thrown in a request to an ApiError of the contract's table. */
export function toApiError(error: FastifyError, request: FastifyRequest): ApiError {
  if (isApiError(error)) return error;
  if (error.validation) return validationError(error);
  if (error.code?.startsWith('FST_ERR_CTP_') || error.code === 'FST_ERR_BAD_URL') {
    // The body's size and media type keep their HTTP statuses, each with its code of the table.
    return new ApiError(READ_CODES[error.code] ?? 'invalid_request', requestProblem(error));
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError('invalid_request', error.message);
  }
  request.log.error({ err: error }, 'unexpected failure');
  return new ApiError(
    'internal_error',
    'an unexpected error occurred; it has been logged',
    {},
    { cause: error },
  );
}

const READ_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'body_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
};

function validationError(error: FastifyError): ApiError {
  const context = error.validationContext ?? 'body';
  const first = error.validation?.[0];
  const where = first?.instancePath ? first.instancePath.replace(/^\//, '').replaceAll('/', '.') : '';
  const message = first?.message ?? 'is invalid';
  const label = context === 'querystring' ? 'query parameter' : context;
  // "body max_price: …" names the field; a problem of the whole body reads "body: …", not "body body".
  const detail = where ? `${label} ${where}: ${message}` : `${label}: ${message}`;
  const code = context === 'querystring' || context === 'params' ? 'invalid_param' : 'invalid_request';
  return new ApiError(code, detail);
}

function requestProblem(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'send the body as application/json';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'the request body is too large';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'the JSON body is empty';
    default:
      return `the request could not be read: ${error.message}`;
  }
}

/**
 * Answers what the router refuses before any route runs, in the same shape: a path parameter
 * longer than `maxParamLength` or not decodable is 400 invalid_param (it would otherwise be
 * Fastify's own `{ error, message, statusCode }`, a 414 for the length).
 */
export function frameworkErrorAnswer(maxParamLength: number) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const apiError =
      error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new ApiError('invalid_param', `a path parameter is longer than ${maxParamLength} characters`)
        : error.code === 'FST_ERR_BAD_URL'
          ? new ApiError('invalid_param', 'a path parameter is not valid percent-encoding')
          : toApiError(error, request);
    void reply
      .code(apiError.status)
      .headers(apiError.headers)
      .type('application/json; charset=utf-8')
      .send(JSON.stringify(apiError.toBody()));
  };
}
