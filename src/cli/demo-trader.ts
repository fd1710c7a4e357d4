/**
 * The demo trader of `market run`: a small client of the sandbox service that buys with the demo
 * account a few times a minute, so the account's ledger, orders and their states fill in from the
 * first minutes. Each turn it buys one cheap CS2 listing the API can buy, alternating instant and
 * held deliveries, and has the simulated platform user decline every fourth offer (through the
 * sandbox's `POST /sandbox/offers/{id}`), so some orders come back refunded.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { MarketClient } from '../client/index.js';
import type { Delivery } from '../contract/listing.js';
import { startJob } from '../shared/jobs/index.js';

/** What the trader buys with and how often. */
export interface DemoTraderOptions {
  /** `http://host:port/v1` of the sandbox service. */
  baseUrl: string;
  /** A trading key of the demo account. */
  apiKey: string;
  /** @default 20_000 (three orders a minute) */
  intervalMs?: number;
  /** The most it pays for one listing, in USD. @default 3 */
  maxPriceUsd?: number;
  log: Logger;
}

/** Starts the trader, which runs until stopped. */
export function startDemoTrader(options: DemoTraderOptions): { stop(): Promise<void> } {
  const client = new MarketClient({ baseUrl: options.baseUrl, apiKey: options.apiKey });
  const sandbox = new URL('/sandbox', options.baseUrl).toString();
  let turn = 0;
  const job = startJob({
    name: 'demo trader',
    everyMs: options.intervalMs ?? 20_000,
    runAtStart: true,
    run: async (signal) => {
      turn++;
      const delivery: Delivery = turn % 3 === 0 ? 'hold' : 'instant';
      const page = await client.listings(
        { appId: 730, sort: 'price_asc', delivery, max_price: options.maxPriceUsd ?? 3, limit: 50 },
        { signal },
      );
      const candidates = page.items.filter((l) => l.source !== 'external' && l.api_purchasable !== false);
      const listing = candidates[Math.floor(Math.random() * candidates.length)];
      if (!listing) return;
      const order = await client.createOrder(
        { listing_ids: [listing.id] },
        { idempotencyKey: `demo-${randomUUID()}` },
      );
      const offerId = order.items[0]?.steam_trade_offer_id;
      if (turn % 4 === 0 && offerId)
        await fetch(`${sandbox}/offers/${offerId}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ action: 'decline' }),
          signal,
        });
    },
    onError: (error) => options.log.warn({ err: error }, 'the demo trader could not place its order'),
  });
  return {
    async stop() {
      await job.stop();
      await client.close();
    },
  };
}
