/** Trade URL checks: the platform's own URLs resolve to a steam id; anything else says what is wrong. */
import { describe, expect, it } from 'vitest';
import { STEAM_ID_BASE } from '../../../src/service/core/platform-ids.js';
import { resolveTradeUrl, tokenFor, tradeUrlFor } from '../../../src/service/platform/trade-urls.js';

const PARTNER = 123_456_789;
const TOKEN = tokenFor(PARTNER);
const GOOD = `https://steamcommunity.com/tradeoffer/new/?partner=${PARTNER}&token=${TOKEN}`;
const otherToken = TOKEN === 'AAAAAAAA' ? 'BBBBBBBB' : 'AAAAAAAA';

describe('tradeUrlFor', () => {
  it('issues an 8-character token of [A-Za-z0-9_-] that is the same every time', () => {
    expect(TOKEN).toMatch(/^[A-Za-z0-9_-]{8}$/);
    expect(tradeUrlFor(PARTNER)).toBe(GOOD);
    expect(tokenFor(PARTNER + 1)).not.toBe(TOKEN);
  });

  it.each([0, -1, 1.5, 2 ** 32])('refuses partner %s', (partner) => {
    expect(() => tradeUrlFor(partner)).toThrow(RangeError);
  });
});

describe('resolveTradeUrl', () => {
  it('resolves an issued URL to the 17-digit steam id of the partner', () => {
    expect(resolveTradeUrl(GOOD)).toEqual({ steamId: '76561198083722517' });
    expect(String(STEAM_ID_BASE + BigInt(PARTNER))).toBe('76561198083722517');
  });

  it.each([
    ['without the trailing slash', GOOD.replace('/new/?', '/new?')],
    [
      'with the parameters swapped',
      `https://steamcommunity.com/tradeoffer/new/?token=${TOKEN}&partner=${PARTNER}`,
    ],
    ['for the largest 32-bit partner', tradeUrlFor(2 ** 32 - 1)],
    ['for partner 1', tradeUrlFor(1)],
  ])('accepts a URL %s', (_, url) => {
    expect(resolveTradeUrl(url)).toHaveProperty('steamId');
  });

  it.each([
    ['not a URL', 'steamcommunity.com/tradeoffer/new/?partner=1', 'not a URL'],
    ['plain http', GOOD.replace('https:', 'http:'), 'https'],
    ['credentials', GOOD.replace('https://', 'https://user:pw@'), 'credentials'],
    [
      'another host',
      GOOD.replace('steamcommunity.com', 'steamcommunity.com.example.org'),
      'steamcommunity.com',
    ],
    ['a look-alike host', GOOD.replace('steamcommunity.com', 'steamcommunlty.com'), 'steamcommunity.com'],
    ['a port', GOOD.replace('steamcommunity.com', 'steamcommunity.com:8443'), 'steamcommunity.com'],
    ['another path', GOOD.replace('/tradeoffer/new/', '/tradeoffer/'), '/tradeoffer/new/'],
    [
      'no token',
      `https://steamcommunity.com/tradeoffer/new/?partner=${PARTNER}`,
      'one partner and one token',
    ],
    ['two partners', `${GOOD}&partner=${PARTNER}`, 'one partner and one token'],
    ['a non-numeric partner', GOOD.replace(`partner=${PARTNER}`, 'partner=abc'), 'positive 32-bit'],
    ['a partner with a sign', GOOD.replace(`partner=${PARTNER}`, `partner=+${PARTNER}`), 'positive 32-bit'],
    [
      'a partner with leading zeros',
      GOOD.replace(`partner=${PARTNER}`, `partner=0${PARTNER}`),
      'positive 32-bit',
    ],
    ['partner 0', 'https://steamcommunity.com/tradeoffer/new/?partner=0&token=abcdefgh', 'positive 32-bit'],
    [
      'a partner above 32 bits',
      `https://steamcommunity.com/tradeoffer/new/?partner=${2 ** 32}&token=abcdefgh`,
      'positive 32-bit',
    ],
    ['a wrong token', GOOD.replace(TOKEN, otherToken), 'token'],
    ['a short token', GOOD.replace(TOKEN, TOKEN.slice(0, 7)), 'token'],
    ['the token of another partner', GOOD.replace(TOKEN, tokenFor(PARTNER + 1)), 'token'],
    ['a private inventory (id32 % 10 === 0)', tradeUrlFor(123_456_780), 'private'],
  ])('refuses %s', (_, url, problem) => {
    const check = resolveTradeUrl(url);
    expect(check).not.toHaveProperty('steamId');
    expect((check as { problem: string }).problem).toContain(problem);
  });
});
