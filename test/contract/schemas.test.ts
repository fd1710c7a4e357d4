import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as account from '../../src/contract/account.js';
import * as listing from '../../src/contract/listing.js';
import * as market from '../../src/contract/market.js';
import * as order from '../../src/contract/order.js';
import * as p2p from '../../src/contract/p2p.js';
import * as sell from '../../src/contract/sell.js';
import * as webhook from '../../src/contract/webhook.js';

const T = '2026-11-21T12:00:00.000Z';
const LATER = '2026-11-29T12:00:00.000Z';
const REVISION = 'rev0123456789abcdef';

const orderItem: order.OrderItem = {
  listing_id: 'l_1',
  market_hash_name: 'AK-47 | Redline (Field-Tested)',
  price_usd: 12.34,
  status: 'hold',
  tradable_at: LATER,
  return_reason: null,
  steam_trade_offer_id: null,
  steam_trade_offer_finished_at: null,
};

const heldOrder: order.Order = {
  order_id: 'o_1',
  app_id: 730,
  steam_id: '76561198000000000',
  status: 'hold',
  custom_id: 'my-order-1',
  currency: 'USD',
  charged_total_usd: 12.34,
  item_count: 1,
  delivery: 'hold',
  expected_minutes: null,
  hold_until: LATER,
  claimable: false,
  refund: null,
  created_at: T,
  updated_at: T,
  items: [orderItem],
};

const dotaOrder = {
  ...heldOrder,
  app_id: 570,
  status: 'cancelled',
  delivery: 'pending',
  hold_until: null,
  refund: { amount_usd: 12.34, refunded_at: T, partial: false },
  items: [{ ...orderItem, status: 'returned', tradable_at: null, return_reason: 'unavailable' }],
};

const endpoint: webhook.WebhookEndpoint = {
  id: 'wh_1',
  url: 'https://example.com/hook',
  events: ['order.updated'],
  enabled: true,
  description: '',
  last_success_at: null,
  last_failure_at: null,
  last_error: null,
  consecutive_failures: 0,
  created_at: T,
};

const orderEvent = { id: 'evt_1', type: 'order.updated', created_at: T, data: heldOrder };
const testEvent = {
  id: 'evt_2',
  type: 'webhook.test',
  created_at: T,
  data: { webhook_id: 'wh_1', message: 'test' },
};

const delivery = {
  delivery_id: 'dl_1',
  webhook_id: 'wh_1',
  event_id: 'evt_1',
  event_type: 'order.updated',
  status: 'failed',
  attempts: 12,
  next_attempt_at: null,
  last_attempt_at: T,
  response_status: 500,
  response_body: 'oops',
  last_error: 'receiver answered 500',
  payload: orderEvent,
  created_at: T,
  delivered_at: null,
};

const inventoryRow: p2p.P2PInventoryItem = {
  asset_id: '123',
  app_id: 730,
  operational_asset_id: 'op_123',
  asset_revision: REVISION,
  market_hash_name: 'AK-47 | Redline (Field-Tested)',
  market_usd: 20,
  floor_usd: 10,
  listable: true,
  reasons: [],
  listed: false,
  listing_id: null,
};

const publishItem = { operational_asset_id: 'op_123', asset_revision: REVISION, price_usd: 12.34 };

const p2pListing: p2p.P2PListing = {
  id: 'p2p_1',
  status: 'active',
  price_usd: 12.34,
  commission_usd: 0.62,
  seller_payout_usd: 11.72,
  asset_id: '123',
  market_hash_name: 'AK-47 | Redline (Field-Tested)',
  needs_resync: false,
  order_id: null,
  trade_offer_id: null,
  end_reason: null,
  created_at: T,
  updated_at: T,
};

const bot = {
  steam_id: '76561198000000001',
  profile_url: 'https://steamcommunity.com/profiles/1',
  name: 'bot-1',
};
const offer = { bot, trade_offer_id: '555', items: ['a1'], status: 'sent' };

const sellOrder = {
  id: 'so_1',
  external_id: null,
  quote_id: 'q_1',
  app_id: 730,
  steam_id: '76561198000000000',
  status: 'offer_sent',
  currency: 'USD',
  total_usd: 5,
  credited_usd: 0,
  settled_usd: 0,
  settles_at: null,
  failure_reason: null,
  items: [{ asset_id: 'a1', market_hash_name: 'Sticker', amount_usd: 5, status: 'offered' }],
  offers: [offer],
  created_at: T,
  updated_at: T,
};

type Case = [name: string, schema: z.ZodType, value: unknown];

const valid: Case[] = [
  ['a held CS2 order', order.orderSchema, heldOrder],
  ['a cancelled Dota 2 order with pending delivery and a refund', order.orderSchema, dotaOrder],
  [
    'an order body with every field',
    order.createOrderBodySchema,
    {
      listing_ids: ['l_1', 'l_2'],
      custom_id: 'abc',
      max_price_usd: 30,
      autoclaim: true,
      appId: 570,
    },
  ],
  [
    'a market buy body',
    order.marketBuyBodySchema,
    {
      listing_ids: ['l_1'],
      trade_url: 'https://steamcommunity.com/tradeoffer/new/?partner=1&token=abc',
      custom_id: 'k',
      autoclaim: false,
    },
  ],
  ['an orders query', order.ordersQuerySchema, { status: 'hold', limit: '100', appId: '570', cursor: 'c' }],
  ['an orders/info query', order.orderInfoQuerySchema, { custom_id: 'abc' }],
  ['an order page', order.orderPageSchema, { data: [heldOrder], meta: { next_cursor: null } }],
  ['an endpoint', webhook.webhookEndpointSchema, endpoint],
  [
    'an endpoint with its secret',
    webhook.webhookEndpointWithSecretSchema,
    { ...endpoint, secret: 'svc_whsec_abc' },
  ],
  ['a create body with url only', webhook.createWebhookBodySchema, { url: 'https://example.com/hook' }],
  [
    'an http URL (the service answers invalid_webhook_url)',
    webhook.createWebhookBodySchema,
    {
      url: 'http://example.com/hook',
    },
  ],
  ['a patch body with enabled only', webhook.updateWebhookBodySchema, { enabled: true }],
  ['a patch body clearing the description', webhook.updateWebhookBodySchema, { description: '' }],
  ['an order.updated event', webhook.webhookEventSchema, orderEvent],
  ['a webhook.test event', webhook.webhookEventSchema, testEvent],
  ['a failed delivery', webhook.webhookDeliverySchema, delivery],
  ['a deliveries page', webhook.deliveryPageSchema, { data: [delivery], meta: { next_cursor: 'n' } }],
  ['a deliveries query', webhook.deliveriesQuerySchema, { status: 'failed', limit: '10' }],
  [
    'a test result with no answer',
    webhook.webhookTestResultSchema,
    {
      delivered: false,
      status_code: null,
      error: 'connect ECONNREFUSED',
      response_body: null,
      duration_ms: 12,
      event_id: 'evt_2',
    },
  ],
  [
    'a rotate response',
    webhook.rotateWebhookSecretResponseSchema,
    { data: { ...endpoint, secret: 'svc_whsec_x' } },
  ],
  ['a list response', webhook.webhookListSchema, { data: [endpoint] }],
  [
    'an inventory response',
    p2p.p2pInventoryResponseSchema,
    {
      data: [inventoryRow],
      inventory_proof: { status: 'pending', retry_after_ms: 1500, code: null, checked_at: null },
    },
  ],
  [
    'an inventory response without proof',
    p2p.p2pInventoryResponseSchema,
    { data: [], inventory_proof: null },
  ],
  ['a single publish item', p2p.p2pPublishBodySchema, publishItem],
  ['a publish of 0.10', p2p.p2pPublishBodySchema, { ...publishItem, price_usd: 0.1 }],
  ['a publish of 100000', p2p.p2pPublishBodySchema, { ...publishItem, price_usd: 100000 }],
  ['a batch of 50', p2p.p2pPublishBodySchema, { items: Array.from({ length: 50 }, () => publishItem) }],
  ['an 8-character key', p2p.idempotencyKeySchema, 'abcdefgh'],
  ['a 128-character key', p2p.idempotencyKeySchema, 'k'.repeat(128)],
  ['publish headers', p2p.p2pPublishHeadersSchema, { 'idempotency-key': 'abcdefgh', host: 'x' }],
  ['a listing', p2p.p2pListingSchema, p2pListing],
  [
    'a batch response',
    p2p.p2pPublishBatchResponseSchema,
    {
      data: [
        { index: 0, ok: true, status: 201, replayed: false, listing: p2pListing, error: null },
        {
          index: 1,
          ok: false,
          status: 422,
          replayed: false,
          listing: null,
          error: { code: 'price_below_market', detail: 'too low' },
        },
      ],
    },
  ],
  ['a reprice body', p2p.p2pRepriceBodySchema, { price_usd: 19.99 }],
  ['a listings query', p2p.p2pListingsQuerySchema, { status: 'reconciliation_required', limit: '1' }],
  ['a listing page', p2p.p2pListingPageSchema, { data: [p2pListing], meta: { next_cursor: null } }],
  ['a delete response', p2p.p2pListingDeletedSchema, { id: 'p2p_1', deleted: true }],
  [
    'a sell status',
    sell.sellStatusSchema,
    {
      enabled: true,
      max_bots_per_order: 3,
      settlement_days: 8,
      quote_ttl_seconds: 300,
      spread_percent: 12,
      items_per_bot: 10,
    },
  ],
  [
    'a quote body',
    sell.sellQuoteBodySchema,
    { trade_url: 'https://steamcommunity.com/tradeoffer/new/?partner=1' },
  ],
  [
    'a quote',
    sell.sellQuoteSchema,
    {
      quote_id: 'q_1',
      app_id: 730,
      steam_id: '76561198000000000',
      currency: 'USD',
      items: [
        {
          asset_id: 'a1',
          market_hash_name: 'Sticker',
          eligible: true,
          market_usd: 5.69,
          amount_usd: 5,
          reason: null,
        },
        {
          asset_id: 'a2',
          market_hash_name: 'Case',
          eligible: false,
          market_usd: 3,
          amount_usd: null,
          reason: 'trade_locked',
        },
      ],
      total_usd: 5,
      created_at: T,
      expires_at: LATER,
    },
  ],
  [
    'a sell order body',
    sell.createSellOrderBodySchema,
    { quote_id: 'q_1', min_total_usd: 4.5, external_id: 'e1' },
  ],
  ['a sell order', sell.sellOrderSchema, sellOrder],
];

const invalid: Case[] = [
  [
    'an order body with an unknown field (a misspelt max_price_usd must never buy unguarded)',
    order.createOrderBodySchema,
    { listing_ids: ['l_1'], max_price: 10 },
  ],
  ['an order with an unknown status', order.orderSchema, { ...heldOrder, status: 'shipped' }],
  [
    'an order item with an unknown return reason',
    order.orderItemSchema,
    {
      ...orderItem,
      status: 'returned',
      return_reason: 'lost',
    },
  ],
  ['an order with delivery soon', order.orderSchema, { ...heldOrder, delivery: 'soon' }],
  ['an order without claimable', order.orderSchema, { ...heldOrder, claimable: undefined }],
  ['an order body without listings', order.createOrderBodySchema, { listing_ids: [] }],
  [
    'an order body with 51 listings',
    order.createOrderBodySchema,
    {
      listing_ids: Array.from({ length: 51 }, (_, i) => `l_${i}`),
    },
  ],
  ['an order body repeating a listing', order.createOrderBodySchema, { listing_ids: ['l_1', 'l_1'] }],
  [
    'an order body with a 129-character custom_id',
    order.createOrderBodySchema,
    {
      listing_ids: ['l_1'],
      custom_id: 'c'.repeat(129),
    },
  ],
  ['an order body with a numeric listing id', order.createOrderBodySchema, { listing_ids: [1] }],
  ['a market buy body without trade_url', order.marketBuyBodySchema, { listing_ids: ['l_1'] }],
  ['an orders query with limit 101', order.ordersQuerySchema, { limit: '101' }],
  ['an orders query with a bad status', order.ordersQuerySchema, { status: 'done' }],
  ['an orders/info query without custom_id', order.orderInfoQuerySchema, {}],
  ['a create body without url', webhook.createWebhookBodySchema, { description: 'x' }],
  [
    'a create body with a 201-character description',
    webhook.createWebhookBodySchema,
    {
      url: 'https://example.com',
      description: 'd'.repeat(201),
    },
  ],
  [
    'a create body with an unknown event',
    webhook.createWebhookBodySchema,
    {
      url: 'https://example.com',
      events: ['order.created'],
    },
  ],
  [
    'a create body subscribing to webhook.test',
    webhook.createWebhookBodySchema,
    {
      url: 'https://example.com',
      events: ['webhook.test'],
    },
  ],
  ['an empty patch body', webhook.updateWebhookBodySchema, {}],
  ['a secret without its prefix', webhook.webhookEndpointWithSecretSchema, { ...endpoint, secret: 'abc' }],
  ['a delivery with an unknown status', webhook.webhookDeliverySchema, { ...delivery, status: 'sent' }],
  ['an event of an unknown type', webhook.webhookEventSchema, { ...orderEvent, type: 'order.created' }],
  ['a price of 12.345', p2p.p2pPublishBodySchema, { ...publishItem, price_usd: 12.345 }],
  ['a price of 0.09', p2p.p2pPublishBodySchema, { ...publishItem, price_usd: 0.09 }],
  ['a price over 100000', p2p.p2pPublishBodySchema, { ...publishItem, price_usd: 100000.01 }],
  ['a batch of 51', p2p.p2pPublishBodySchema, { items: Array.from({ length: 51 }, () => publishItem) }],
  ['an empty batch', p2p.p2pPublishBodySchema, { items: [] }],
  ['a batch with a field beside items', p2p.p2pPublishBodySchema, { items: [publishItem], note: 'x' }],
  ['a 15-character revision', p2p.p2pPublishItemSchema, { ...publishItem, asset_revision: 'r'.repeat(15) }],
  ['a 129-character revision', p2p.p2pPublishItemSchema, { ...publishItem, asset_revision: 'r'.repeat(129) }],
  [
    'a 257-character operational id',
    p2p.p2pPublishItemSchema,
    {
      ...publishItem,
      operational_asset_id: 'o'.repeat(257),
    },
  ],
  ['a 7-character key', p2p.idempotencyKeySchema, 'abcdefg'],
  ['a 129-character key', p2p.idempotencyKeySchema, 'k'.repeat(129)],
  ['publish headers without a key', p2p.p2pPublishHeadersSchema, {}],
  ['a reprice to 12.345', p2p.p2pRepriceBodySchema, { price_usd: 12.345 }],
  ['a listing with an unknown status', p2p.p2pListingSchema, { ...p2pListing, status: 'shipped' }],
  [
    'an inventory proof with an unknown status',
    p2p.inventoryProofSchema,
    {
      status: 'done',
      retry_after_ms: null,
      code: null,
      checked_at: T,
    },
  ],
  [
    'a sell order with 4 offers',
    sell.sellOrderSchema,
    { ...sellOrder, offers: [offer, offer, offer, offer] },
  ],
  ['a sell order with an unknown status', sell.sellOrderSchema, { ...sellOrder, status: 'shipped' }],
  ['a sell order body without quote_id', sell.createSellOrderBodySchema, { min_total_usd: 1 }],
  [
    'a quote body repeating an asset',
    sell.sellQuoteBodySchema,
    {
      trade_url: 'https://steamcommunity.com/tradeoffer/new/?partner=1',
      asset_ids: ['a1', 'a1'],
    },
  ],
];

describe('trading, webhook, P2P and Instant Sell schemas', () => {
  it.each(valid)('accepts %s', (_name, schema, value) => {
    const result = schema.safeParse(value);
    expect(result.error).toBeUndefined();
  });

  it.each(invalid)('refuses %s', (_name, schema, value) => {
    expect(schema.safeParse(value).success).toBe(false);
  });

  it('takes a batch whatever its items, which the service checks one by one', () => {
    const items = [publishItem, { ...publishItem, price_usd: 12.345 }, 'not an item'];
    expect(p2p.p2pPublishBodySchema.parse({ items })).toEqual({ items });
  });

  it('defaults the events of a new endpoint to order.updated', () => {
    expect(webhook.createWebhookBodySchema.parse({ url: 'https://example.com' }).events).toEqual([
      'order.updated',
    ]);
  });

  it('reads a body with items as a batch', () => {
    const body = p2p.p2pPublishBodySchema.parse({ items: [publishItem] });
    expect(p2p.isPublishBatch(body)).toBe(true);
    expect(p2p.isPublishBatch(p2p.p2pPublishBodySchema.parse(publishItem))).toBe(false);
  });

  it('turns query-string numbers into numbers', () => {
    expect(order.ordersQuerySchema.parse({ limit: '20', appId: '252490' })).toEqual({
      limit: 20,
      appId: 252490,
    });
  });
});

const modules = { account, listing, market, order, p2p, sell, webhook };
const named = Object.entries(modules).flatMap(([module, exports]) =>
  Object.entries(exports)
    .filter((entry): entry is [string, z.ZodType] => entry[1] instanceof z.ZodType)
    .map(([name, schema]) => ({ module, name, schema, id: z.globalRegistry.get(schema)?.id }))
    .filter((entry) => entry.id !== undefined),
);
const ours = named.filter((entry) => ['order', 'p2p', 'sell', 'webhook'].includes(entry.module));

describe('OpenAPI components', () => {
  it.each(ours.map((entry) => [`${entry.module}.${entry.name}`, entry.schema] as const))(
    'converts %s to JSON Schema',
    (_name, schema) => {
      expect(() => z.toJSONSchema(schema, { io: 'input' })).not.toThrow();
      expect(() => z.toJSONSchema(schema, { io: 'output' })).not.toThrow();
    },
  );

  it('gives every component a distinct id', () => {
    const owners = new Map<string, z.ZodType>();
    for (const entry of named) {
      const id = entry.id as string;
      expect(owners.get(id) ?? entry.schema, `${id} names two schemas (${entry.module}.${entry.name})`).toBe(
        entry.schema,
      );
      owners.set(id, entry.schema);
    }
  });
});
