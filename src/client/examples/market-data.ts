/**
 * Example: market data with the typed client. The cheapest CS2 listings, one page of the minAsk
 * price list, and the FX rates.
 *
 * Run against `npm start` (it prints the key): MARKET_API_KEY=svc_pub_… node --import tsx src/client/examples/market-data.ts
 */
import { MarketClient } from '../index.js';
import { exampleClientOptions } from './example-env.js';

const client = new MarketClient(exampleClientOptions());
try {
  const page = await client.listings.list({ appId: 730, sort: 'price_asc', limit: 3 });
  for (const listing of page.items) console.log(listing.id, listing.market_hash_name, listing.price_usd);
  const prices = await client.prices.list({ appId: 730, limit: 3 });
  for (const row of prices.items) console.log('minAsk', row.market_hash_name, row.min_ask_usd);
  const fx = await client.info.currency();
  console.log('EUR per USD', fx.rates.EUR);
} finally {
  await client.close();
}
