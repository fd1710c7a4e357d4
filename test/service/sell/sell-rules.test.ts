/** The rules of Instant Sell as data and small functions: the state tables, the basket split and the appraisal. */
import { describe, expect, it } from 'vitest';
import { SELL_OFFER_STATUSES, SELL_ORDER_STATUSES } from '../../../src/contract/sell.js';
import { appraise, creditCents } from '../../../src/service/sell/appraisal.js';
import type { SellableCopy } from '../../../src/service/sell/ports.js';
import { BOT_COUNT, botsFor, pickBots, SELL_BOTS, splitBasket } from '../../../src/service/sell/sell-bots.js';
import {
  nextSellOfferStatus,
  nextSellStatus,
  SELL_OFFER_TRANSITIONS,
  SELL_TRANSITIONS,
  type SellEvent,
} from '../../../src/service/sell/sell-states.js';

const EVENTS: SellEvent[] = [
  'offers_sent',
  'not_sent',
  'received',
  'none_received',
  'protection_over',
  'all_reversed',
];

describe('the sell order state table', () => {
  const allowed: [string, SellEvent, string][] = [
    ['pending', 'offers_sent', 'offer_sent'],
    ['pending', 'not_sent', 'failed'],
    ['offer_sent', 'received', 'received'],
    ['offer_sent', 'none_received', 'failed'],
    ['received', 'protection_over', 'completed'],
    ['received', 'all_reversed', 'failed'],
  ];
  it.each(allowed)('%s --%s--> %s', (from, event, to) => {
    expect(nextSellStatus(from as never, event)).toBe(to);
  });

  const refused = SELL_ORDER_STATUSES.flatMap((status) =>
    EVENTS.filter((event) => !allowed.some(([f, e]) => f === status && e === event)).map(
      (event) => [status, event] as const,
    ),
  );
  it.each(refused)('refuses %s --%s--> anything', (status, event) => {
    expect(() => nextSellStatus(status, event)).toThrow(`cannot take '${event}'`);
  });

  it('covers every status, and the terminal ones take no step', () => {
    expect(Object.keys(SELL_TRANSITIONS).sort()).toEqual([...SELL_ORDER_STATUSES].sort());
    expect(SELL_TRANSITIONS.completed).toEqual({});
    expect(SELL_TRANSITIONS.failed).toEqual({});
  });
});

describe('the bot offer state table', () => {
  it.each([
    ['sent', 'accepted', 'accepted'],
    ['sent', 'declined', 'declined'],
    ['sent', 'expired', 'expired'],
    ['accepted', 'rolled_back', 'rolled_back'],
  ] as const)('%s --%s--> %s', (from, event, to) => {
    expect(nextSellOfferStatus(from, event)).toBe(to);
  });

  it.each([
    ['sent', 'rolled_back'],
    ['declined', 'accepted'],
    ['expired', 'accepted'],
    ['rolled_back', 'rolled_back'],
    ['accepted', 'declined'],
  ] as const)('refuses %s --%s-->', (from, event) => {
    expect(() => nextSellOfferStatus(from, event)).toThrow();
  });

  it('covers every offer status', () => {
    expect(Object.keys(SELL_OFFER_TRANSITIONS).sort()).toEqual([...SELL_OFFER_STATUSES].sort());
  });
});

describe('the basket split', () => {
  it.each([
    [1, 1],
    [10, 1],
    [11, 2],
    [20, 2],
    [21, 3],
    [200, 3],
  ])('takes for %i items %i bots', (items, bots) => {
    expect(botsFor(items)).toBe(bots);
  });

  it.each([
    [25, 3, [9, 8, 8]],
    [11, 2, [6, 5]],
    [200, 3, [67, 67, 66]],
    [7, 1, [7]],
  ])('cuts %i items into %i consecutive parts of %j', (count, parts, sizes) => {
    const items = Array.from({ length: count }, (_, i) => i);
    const split = splitBasket(items, parts);
    expect(split.map((part) => part.length)).toEqual(sizes);
    expect(split.flat()).toEqual(items);
  });

  it('picks the bots with the fewest open offers, ties in network order', () => {
    const load = new Map([
      [SELL_BOTS[0]?.steam_id, 4],
      [SELL_BOTS[1]?.steam_id, 0],
      [SELL_BOTS[2]?.steam_id, 2],
      [SELL_BOTS[3]?.steam_id, 0],
    ]);
    const picked = pickBots(3, (steamId) => load.get(steamId) ?? 0);
    expect(picked.map((bot) => SELL_BOTS.indexOf(bot))).toEqual([1, 3, 4]);
  });

  it('has distinct 17-digit bots with their platform profiles', () => {
    expect(new Set(SELL_BOTS.map((bot) => bot.steam_id)).size).toBe(BOT_COUNT);
    for (const bot of SELL_BOTS) {
      expect(bot.steam_id).toMatch(/^[0-9]{17}$/);
      expect(bot.profile_url).toBe(`https://steamcommunity.com/profiles/${bot.steam_id}`);
    }
  });
});

describe('the appraisal', () => {
  const NOW = Date.parse('2026-01-01T00:00:00.000Z');
  const prices = { priceCents: (_appId: number, name: string) => (name === 'Priced' ? 1_999 : undefined) };
  const copy = (listing: Record<string, unknown>, name = 'Priced'): SellableCopy => ({
    assetId: '1',
    appId: 730,
    marketHashName: name,
    listingJson: JSON.stringify(listing),
  });

  it('credits the market price less 12 %, rounded down to the cent', () => {
    expect(creditCents(1_999)).toBe(1_759);
    expect(creditCents(100)).toBe(88);
    expect(creditCents(1)).toBe(0);
    expect(appraise(copy({ tradable: true }), prices, NOW)).toEqual({
      marketCents: 1_999,
      amountCents: 1_759,
      reason: null,
    });
  });

  it.each([
    ['a sticker', { category: 'Sticker', tradable: true }, 'Priced', 'unsupported_item'],
    [
      'a copy inside its trade lock',
      { tradable: false, tradable_at: '2026-01-02T00:00:00.000Z' },
      'Priced',
      'trade_locked',
    ],
    ['a copy that can never be traded', { tradable: false, tradable_at: null }, 'Priced', 'not_tradable'],
    ['an item without a live listing', { tradable: true }, 'Unpriced', 'no_price'],
  ])('refuses %s', (_name, listing, name, reason) => {
    expect(appraise(copy(listing, name), prices, NOW).reason).toBe(reason);
  });

  it('buys a copy whose trade lock has ended', () => {
    const unlocked = copy({ tradable: false, tradable_at: '2025-12-31T00:00:00.000Z' });
    expect(appraise(unlocked, prices, NOW).reason).toBeNull();
  });
});
