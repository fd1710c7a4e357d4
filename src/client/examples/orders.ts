/**
 * Example: buying with the typed client. Places one order for the cheapest CS2 listing the key can
 * buy (the idempotency key doubles as custom_id: keep it, it finds the order again), reads it back
 * by id and by custom_id, and shows the ledger rows it made.
 *
 * Run against `npm start` (it prints the key): MARKET_API_KEY=svc_pub_… node --import tsx src/client/examples/orders.ts
 */
import { randomUUID } from 'node:crypto';
import { isApiError, MarketClient } from '../index.js';
import { exampleClientOptions } from './example-env.js';

const client = new MarketClient(exampleClientOptions());
try {
  const { items } = await client.listings.list({ appId: 730, sort: 'price_asc', limit: 20 });
  const listing = items.find((l) => l.tradable && l.api_purchasable !== false);
  if (!listing) throw new Error('no listing to buy');
  const key = randomUUID();
  const order = await client.orders.create({ listing_ids: [listing.id] }, { idempotencyKey: key });
  console.log('placed', order.order_id, order.status, order.charged_total_usd);
  console.log('by id', (await client.orders.get(order.order_id)).status);
  console.log('by custom_id', (await client.orders.getByCustomId(key)).order_id);
  for await (const row of client.account.allTransactions({ limit: 5 }))
    if (row.order_id === order.order_id) console.log('ledger', row.type, row.amount_usd);
  console.log('balance', (await client.account.balance()).balance_usd);
} catch (error) {
  // Every refusal is an ApiError with the specification's status and code.
  if (!isApiError(error)) throw error;
  console.error('refused:', error.status, error.code, error.detail);
  process.exitCode = 1;
} finally {
  await client.close();
}
