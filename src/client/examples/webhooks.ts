/**
 * Example: webhook endpoints with the typed client. Registers an endpoint (the secret is shown
 * this once), sends it a test event, lists its deliveries and removes it. To receive events on
 * this machine instead, run `npx market webhooks listen --api-key svc_pub_…`.
 *
 * Run against `npm start`: MARKET_API_KEY=svc_pub_… WEBHOOK_URL=https://… npx tsx src/client/examples/webhooks.ts
 */
import { MarketClient } from '../index.js';

const client = new MarketClient({
  baseUrl: process.env.MARKET_BASE_URL ?? 'http://127.0.0.1:8080/v1',
  apiKey: process.env.MARKET_API_KEY,
});
try {
  const url = process.env.WEBHOOK_URL ?? 'https://bot.example.com/hooks';
  const hook = await client.webhooks.create({ url, description: 'example' });
  console.log('endpoint', hook.id, 'secret', hook.secret);
  const test = await client.webhooks.test(hook.id);
  console.log('test delivered', test.delivered, test.status_code ?? test.error);
  for (const endpoint of await client.webhooks.list()) console.log('registered', endpoint.id, endpoint.url);
  await client.webhooks.delete(hook.id);
  console.log('deleted', hook.id);
} finally {
  await client.close();
}
