/**
 * The service's bot network and how a basket is split across it: one bot per started
 * `itemsPerBot` items, at most `maxBotsPerOrder`; the items, in quote order, cut into consecutive
 * parts whose sizes differ by at most one (earlier parts take the extra items); the bots with the
 * fewest unanswered offers take them (ties: network order).
 */
import { SELL_LIMITS, type SellBot } from '../../contract/sell.js';
import { steamIdOf } from '../core/platform-ids.js';

/** 32-bit account numbers of the bots: far above the sandbox's random user accounts (below 10^9). */
const FIRST_BOT_PARTNER = 1_900_000_001;

/** How many bots the network has. */
export const BOT_COUNT = 5;

/** The bots, as the seller sees them on the platform. */
export const SELL_BOTS: readonly SellBot[] = Array.from({ length: BOT_COUNT }, (_, i) => {
  const steamId = steamIdOf(FIRST_BOT_PARTNER + i);
  return {
    steam_id: steamId,
    profile_url: `https://steamcommunity.com/profiles/${steamId}`,
    name: `Instant Sell Bot ${i + 1}`,
  };
});

/** How many bots a basket of `itemCount` items takes. */
export function botsFor(itemCount: number): number {
  return Math.min(SELL_LIMITS.maxBotsPerOrder, Math.ceil(itemCount / SELL_LIMITS.itemsPerBot));
}

/** The items cut into `parts` consecutive parts whose sizes differ by at most one, larger first. */
export function splitBasket<T>(items: readonly T[], parts: number): T[][] {
  const base = Math.floor(items.length / parts);
  const extra = items.length % parts;
  const out: T[][] = [];
  let start = 0;
  for (let part = 0; part < parts; part++) {
    const size = base + (part < extra ? 1 : 0);
    out.push(items.slice(start, start + size));
    start += size;
  }
  return out;
}

/** The `count` bots with the fewest unanswered offers, ties in network order. */
export function pickBots(count: number, pendingOffers: (steamId: string) => number): SellBot[] {
  return SELL_BOTS.map((bot, index) => ({ bot, index, load: pendingOffers(bot.steam_id) }))
    .sort((a, b) => a.load - b.load || a.index - b.index)
    .slice(0, count)
    .map((entry) => entry.bot);
}
