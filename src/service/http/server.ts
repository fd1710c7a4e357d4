/** Assembles the Fastify application: OpenAPI, error mapping, the /v1 API and the sandbox. */
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
} from 'fastify-type-provider-zod';
import type { ServiceContext } from '../context.js';
import { registerAuthentication } from './authenticate.js';
import { registerErrorHandling } from './error-handler.js';
import { errorCodesExtension } from './openapi.js';
import { registerAccountRoutes } from './routes/account.js';
import { registerMarketRoutes } from './routes/market.js';
import { registerSandboxRoutes } from './routes/sandbox.js';
import { registerSnapshotRoutes } from './routes/snapshot.js';
import { registerStatusRoutes } from './routes/status.js';
import { registerStreamRoutes } from './routes/stream.js';

/** How the HTTP layer is set up. */
export interface AppOptions {
  /** Proxy addresses or CIDRs whose X-Forwarded-For is believed. @default [] (none) */
  trustProxy?: string[];
  /** pino logger options, or false for none. @default false */
  logger?: boolean | object;
}

/** Builds the application (not yet listening). */
export async function buildApp(context: ServiceContext, options: AppOptions = {}): Promise<FastifyInstance> {
  const trust = options.trustProxy ?? [];
  const app = Fastify({
    logger: options.logger ?? false,
    trustProxy: trust.length > 0 ? trust : false,
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Marketplace Trading and Market-Data API',
        version: '1.0.0',
        description:
          'In-game item marketplace: market data, trading, Instant Sell, P2P, account and webhooks.',
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
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(
    async (v1) => {
      registerAuthentication(v1, context);
      registerStatusRoutes(v1, context);
      registerMarketRoutes(v1, context);
      registerStreamRoutes(v1, context);
      registerSnapshotRoutes(v1, context);
      registerAccountRoutes(v1, context);
    },
    { prefix: '/v1' },
  );
  if (context.sandbox)
    await app.register(async (s) => registerSandboxRoutes(s, context), { prefix: '/sandbox' });
  return app;
}
