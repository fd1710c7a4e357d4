/**
 * Example: webhook endpoints with the typed client. Registers an endpoint (the secret is shown
 * this once), sends it a test event, lists its deliveries and removes it. It needs WEBHOOK_URL, a
 * receiver of yours on the public internet; to receive events on this machine instead, run
 * `market webhooks listen --api-key svc_pub_…`.
 *
 * Run against `npm start`: MARKET_API_KEY=svc_pub_… WEBHOOK_URL=https://… node --import tsx src/client/examples/webhooks.ts
 */
import { isApiError, MarketClient } from '../index.js';
import { exampleClientOptions, requireEnv } from './example-env.js';

const url = requireEnv(
  'WEBHOOK_URL',
  'set it to an HTTPS URL of a receiver of yours whose addresses are all public (the service refuses others); ' +
    'on this machine, `market webhooks listen --api-key …` registers a local receiver instead',
);
const client = new MarketClient(exampleClientOptions());
try {
  const hook = await client.webhooks.create({ url, description: 'example' });
  console.log('endpoint', hook.id, 'secret', hook.secret);
  const test = await client.webhooks.test(hook.id);
  console.log('test delivered', test.delivered, test.status_code ?? test.error);
  for (const endpoint of await client.webhooks.list()) console.log('registered', endpoint.id, endpoint.url);
  await client.webhooks.delete(hook.id);
  console.log('deleted', hook.id);
} catch (error) {
  // invalid_webhook_url names what the guard refused: not HTTPS, or an address that is not public.
  if (!isApiError(error)) throw error;
  console.error('refused:', error.status, error.code, error.detail);
  process.exitCode = 1;
} finally {
  await client.close();
}
