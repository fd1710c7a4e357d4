/**
 * Trade URLs of the simulated platform: `https://steamcommunity.com/tradeoffer/new/?partner=<id32>&token=<8 chars>`.
 * The token is a keyed hash of the partner, so the platform recognises the URLs it issued without
 * storing them. Simulator rule: partners whose id32 ends in 0 (id32 % 10 === 0) have private inventories.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { steamIdOf } from '../core/platform-ids.js';

const HOST = 'steamcommunity.com';
const PATHS = new Set(['/tradeoffer/new/', '/tradeoffer/new']);
const MAX_PARTNER = 2 ** 32 - 1;
const DEFAULT_SECRET = 'platform-simulator-trade-url-tokens';

/** A trade URL the platform can deliver to, or why not. */
export type TradeUrlCheck = { steamId: string } | { problem: string };

/** True when `partner` is a positive 32-bit account id. */
export function isPartnerId(partner: number): boolean {
  return Number.isInteger(partner) && partner >= 1 && partner <= MAX_PARTNER;
}

/** True when the partner's inventory is private (the simulator's rule: id32 % 10 === 0). */
export function hasPrivateInventory(partner: number): boolean {
  return partner % 10 === 0;
}

/** The 8-character token the platform issues for a partner (`[A-Za-z0-9_-]`). */
export function tokenFor(partner: number, secret = DEFAULT_SECRET): string {
  return createHmac('sha256', secret).update(String(partner), 'utf8').digest('base64url').slice(0, 8);
}

/** The trade URL the platform issues for a partner; a RangeError for an id that is not a positive 32-bit integer. */
export function tradeUrlFor(partner: number, secret = DEFAULT_SECRET): string {
  if (!isPartnerId(partner)) throw new RangeError(`partner must be an integer from 1 to ${MAX_PARTNER}`);
  return `https://${HOST}/tradeoffer/new/?partner=${partner}&token=${tokenFor(partner, secret)}`;
}

/** Checks a trade URL: the platform's own form, a token it issued, and an inventory that is not private. */
export function resolveTradeUrl(text: string, secret = DEFAULT_SECRET): TradeUrlCheck {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: 'the trade URL is not a URL' };
  }
  if (url.protocol !== 'https:') return { problem: 'the trade URL must use https' };
  if (url.username !== '' || url.password !== '')
    return { problem: 'the trade URL must not carry credentials' };
  if (url.hostname !== HOST || url.port !== '') return { problem: `the trade URL must be on ${HOST}` };
  if (!PATHS.has(url.pathname)) return { problem: 'the trade URL must point at /tradeoffer/new/' };
  const partners = url.searchParams.getAll('partner');
  const tokens = url.searchParams.getAll('token');
  if (partners.length !== 1 || tokens.length !== 1)
    return { problem: 'the trade URL needs exactly one partner and one token' };
  const partnerText = partners[0] as string;
  const partner = /^[1-9][0-9]{0,9}$/.test(partnerText) ? Number(partnerText) : Number.NaN;
  if (!isPartnerId(partner)) return { problem: 'partner must be a positive 32-bit account id' };
  if (!tokenMatches(tokens[0] as string, tokenFor(partner, secret)))
    return { problem: 'the token does not belong to this partner; copy the trade URL again' };
  if (hasPrivateInventory(partner))
    return { problem: 'the recipient inventory is private; it must be public to receive items' };
  return { steamId: steamIdOf(partner) };
}

function tokenMatches(presented: string, issued: string): boolean {
  const a = Buffer.from(presented, 'utf8');
  const b = Buffer.from(issued, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
