/** Assembles the Fastify application: OpenAPI, error mapping, the /v1 API and the sandbox. */
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { answerClientError } from '../../shared/client-error-answer.js';
import { registerCors } from '../../shared/cors.js';
import { frameworkErrorAnswer, registerErrorHandling } from '../../shared/error-handler.js';
import { type ClientTimeouts, slowClientOptions } from '../../shared/slow-clients.js';
import { type AnswerListener, registerAnswerHooks } from './answer-hooks.js';
import { type AuthenticateOptions, banRefusal, registerAuthentication } from './authenticate.js';
import type { Feature } from './feature.js';
import { validateInput } from './input-validation.js';
import { errorCodesExtension } from './openapi.js';
import { documentObject } from './openapi-document.js';
import { documentRoute } from './openapi-route.js';
import { registerBodyParsing } from './request-body.js';

/** How the HTTP layer is set up. */
export interface AppOptions {
  /** What the access checks of /v1 read. */
  auth: AuthenticateOptions;
  /** The features, registered in this order. */
  features: readonly Feature[];
  /** Registers the /sandbox scope too. @default false */
  sandbox?: boolean;
  /** Proxy addresses or CIDRs whose X-Forwarded-For is believed. @default [] (none) */
  trustProxy?: string[];
  /** pino logger options, or false for none. @default false */
  logger?: boolean | object;
  /** Browser origins allowed to call the API (CORS), e.g. `https://dash.example.com`. @default [] (none) */
  corsOrigins?: string[];
  /** Deadlines of a client's headers and body, and of idle keep-alive connections. @default see ClientTimeouts */
  timeouts?: ClientTimeouts;
  /** Hears of every answered request, of every route (the operator's metrics); a stream as it opens. */
  onResponse?: AnswerListener;
}

/** The longest path parameter the router takes (a longer one is 400 invalid_param). */
const MAX_PARAM_LENGTH = 200;

/** Builds the application (not yet listening). */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const trust = options.trustProxy ?? [];
  const app = Fastify({
    logger: options.logger ?? false,
    trustProxy: trust.length > 0 ? trust : false,
    bodyLimit: 1024 * 1024,
    ...slowClientOptions(options.timeouts),
    // Fastify's 503 while closing has a body of its own shape; a request that still arrives on an
    // open connection is answered as usual, with `connection: close`, within the close's grace.
    return503OnClosing: false,
    clientErrorHandler: answerClientError,
    frameworkErrors: frameworkErrorAnswer(MAX_PARAM_LENGTH),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
  });
  app.setValidatorCompiler(validateInput);
  registerBodyParsing(app);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app, (request) => banRefusal(request, options.auth));
  registerAnswerHooks(app, options.auth.clock, options.onResponse);
  await registerCors(app, options.corsOrigins ?? []);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Marketplace Trading and Market-Data API',
        version: '1.0.0',
        license: { name: 'MIT', identifier: 'MIT' },
        contact: { name: 'skin-market' },
        description:
          'In-game item marketplace: market data, trading (orders, claims, buying for a trade URL), P2P selling from the account’s own platform inventory (inventory with its proof, listings that enter the public catalogue, sales paid after the platform’s trade protection; 5% commission), Instant Sell (invite-only: quotes, sell orders split across up to 3 bots, credits settled after the 8-day trade protection), the account with its ledger, and signed webhooks of order updates (t=…,v1=… HMAC-SHA256 signature, durable at-least-once queue, retry ladder on the service clock, SSRF guard).',
      },
      servers: [{ url: '/v1' }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'API key starting with svc_pub_' },
          apiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key' },
        },
      },
      ...errorCodesExtension(),
    },
    transform: documentRoute,
    transformObject: documentObject(Object.assign({}, ...options.features.map((f) => f.tags ?? {}))),
  });
  await app.register(
    async (v1) => {
      registerAuthentication(v1, options.auth);
      v1.get(
        '/openapi.json',
        { config: { access: 'public', rate: 'none' }, schema: { hide: true } },
        async () => app.swagger(),
      );
      for (const feature of options.features) if (feature.v1) await v1.register(async (f) => feature.v1?.(f));
    },
    { prefix: '/v1' },
  );
  if (options.sandbox) {
    await app.register(
      async (sandbox) => {
        for (const feature of options.features)
          if (feature.sandbox) await sandbox.register(async (f) => feature.sandbox?.(f));
      },
      { prefix: '/sandbox' },
    );
  }
  return app;
}
