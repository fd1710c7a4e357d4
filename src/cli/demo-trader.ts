/**
 * The demo trader of `market run`: a small client of the sandbox service that trades with the demo
 * account a few times a minute, so the account's ledger, orders, P2P listings and Instant Sell
 * orders and their states fill in from the first minutes. Its setup gives the demo account Instant
 * Sell and makes a second account, the demo buyer. Each turn:
 *
 * 1. the demo buyer buys, with `POST /orders`, every P2P listing the demo account published at an
 *    earlier turn (the seller's platform user sends it a minute later, the buyer's accepts, and
 *    after the platform's trade protection the listing is sold and the seller paid);
 * 2. the demo account lists, sells to the Instant Sell bots or keeps, in turn, each copy newly
 *    received in its platform inventory (`demo-seller.ts`);
 * 3. the demo account buys one cheap CS2 listing of the marketplace the API can buy, of an item it
 *    has not bought before, every third one held; the simulated platform user declines every fourth
 *    offer (through the sandbox's `POST /sandbox/offers/{id}`), so that order comes back refunded.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { MarketClient } from '../client/index.js';
import { isApiError } from '../contract/api-error.js';
import type { Delivery } from '../contract/listing.js';
import { sandboxOf } from '../sandbox/index.js';
import { startJob } from '../shared/jobs/index.js';
import { setUpDemoAccounts } from './demo-sandbox.js';
import { DemoSeller } from './demo-seller.js';

/** What the trader trades with and how often. */
export interface DemoTraderOptions {
  /** `http://host:port/v1` of the sandbox service. */
  baseUrl: string;
  /** The demo account. */
  accountId: string;
  /** A trading key of the demo account. */
  apiKey: string;
  /** @default 20_000 (three turns a minute) */
  intervalMs?: number;
  /** The most it pays for one listing, in USD. @default 3 */
  maxPriceUsd?: number;
  log: Logger;
}

/** A trader whose turns the caller runs (the job of {@link startDemoTrader} runs them on an interval). */
export interface DemoTrader {
  /** Sets the accounts up; run once before the first turn. */
  setUp(signal?: AbortSignal): Promise<void>;
  /** One turn; throws every step's failure together once all steps ran. */
  turn(signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

/** Creates the trader; nothing is sent before `setUp`. */
export function createDemoTrader(options: DemoTraderOptions): DemoTrader {
  const client = new MarketClient({ baseUrl: options.baseUrl, apiKey: options.apiKey });
  let seller: DemoSeller | null = null;
  let buyer: MarketClient | null = null;
  /** P2P listings published and not bought yet. */
  let toBuy: string[] = [];
  const boughtNames = new Set<string>();
  let turns = 0;

  /** The demo buyer buys every listing published before; one it cannot have any more is dropped. */
  const buyListings = async () => {
    const waiting = toBuy;
    toBuy = [];
    for (const [index, listingId] of waiting.entries()) {
      try {
        await buyer?.orders.create(
          { listing_ids: [listingId] },
          { idempotencyKey: `demo-buyer-${listingId}` },
        );
      } catch (error) {
        if (isApiError(error) && (error.status === 409 || error.status === 400)) continue;
        toBuy.push(...waiting.slice(index));
        throw error;
      }
    }
  };

  /** The demo account buys one cheap listing; every fourth offer is declined by its platform user. */
  const buyOne = async (turn: number, signal?: AbortSignal) => {
    const delivery: Delivery = turn % 3 === 0 ? 'hold' : 'instant';
    const page = await client.listings.list(
      { appId: 730, sort: 'price_asc', delivery, max_price: options.maxPriceUsd ?? 3, limit: 100 },
      { signal },
    );
    // The marketplace's own listings only (no P2P one, its own included), one copy per item name, so
    // each copy it sells later is matched with the one order that bought it.
    const candidates = page.items.filter(
      (l) =>
        (l.source ?? 'platform') === 'platform' &&
        l.api_purchasable !== false &&
        !boughtNames.has(l.market_hash_name),
    );
    const listing = candidates[Math.floor(Math.random() * candidates.length)];
    if (!listing) return;
    const order = await client.orders.create(
      { listing_ids: [listing.id] },
      { idempotencyKey: `demo-${randomUUID()}` },
    );
    boughtNames.add(listing.market_hash_name);
    const offerId = order.items[0]?.steam_trade_offer_id;
    if (turn % 4 === 0 && offerId)
      await sandboxOf(options.baseUrl, signal)('POST', `/offers/${offerId}`, { action: 'decline' });
  };

  return {
    async setUp(signal) {
      const setup = await setUpDemoAccounts(options.baseUrl, options.accountId, signal);
      seller = new DemoSeller(client, setup.tradeUrl);
      buyer = new MarketClient({ baseUrl: options.baseUrl, apiKey: setup.buyer.apiKey });
    },
    async turn(signal) {
      if (!seller) throw new Error('the demo trader is not set up');
      const turn = ++turns;
      const failures: unknown[] = [];
      const step = async (run: () => Promise<void>) => {
        if (signal?.aborted) return;
        await run().catch((error: unknown) => failures.push(error));
      };
      await step(buyListings);
      await step(async () => {
        const published = (await seller?.placeNewCopies(signal)) ?? [];
        toBuy.push(...published.map((l) => l.id));
      });
      await step(() => buyOne(turn, signal));
      if (failures.length === 1) throw failures[0];
      if (failures.length > 1)
        throw new AggregateError(failures, `${failures.length} steps of the demo trader failed`);
    },
    async close() {
      await Promise.all([client.close(), buyer?.close()]);
    },
  };
}

/** Sets the trader up and runs a turn every `intervalMs` until stopped. */
export function startDemoTrader(options: DemoTraderOptions): { stop(): Promise<void> } {
  const trader = createDemoTrader(options);
  let ready = false;
  const job = startJob({
    name: 'demo trader',
    everyMs: options.intervalMs ?? 20_000,
    runAtStart: true,
    run: async (signal) => {
      if (!ready) {
        await trader.setUp(signal);
        ready = true;
      }
      await trader.turn(signal);
    },
    onError: (error) => options.log.warn({ err: error }, 'a step of the demo trader failed'),
  });
  return {
    async stop() {
      await job.stop();
      await trader.close();
    },
  };
}
