/** The seller delay of `up_to_12h` listings: fixed per listing, about a tenth never send, the rest in 2 min-10 h. */
import { describe, expect, it } from 'vitest';
import {
  MAX_SELLER_DELAY_MS,
  MIN_SELLER_DELAY_MS,
  sellerDelayMs,
} from '../../../src/service/platform/seller-delay.js';

const IDS = Array.from({ length: 10_000 }, (_, i) => `lst_${i.toString(36).padStart(6, '0')}`);

describe('sellerDelayMs', () => {
  it('gives the same answer for the same listing id', () => {
    for (const id of IDS.slice(0, 500)) expect(sellerDelayMs(id)).toBe(sellerDelayMs(id));
  });

  it('never sends for about 10 % of 10,000 listings', () => {
    const never = IDS.filter((id) => sellerDelayMs(id) === null).length;
    expect(never).toBeGreaterThan(900);
    expect(never).toBeLessThan(1_100);
  });

  it('sends the others between 2 minutes and 10 hours, spread over the range', () => {
    const delays = IDS.map(sellerDelayMs).filter((d): d is number => d !== null);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(MIN_SELLER_DELAY_MS);
    expect(Math.max(...delays)).toBeLessThanOrEqual(MAX_SELLER_DELAY_MS);
    const underOneHour = delays.filter((d) => d < 3_600_000).length / delays.length;
    expect(underOneHour).toBeGreaterThan(0.05);
    expect(underOneHour).toBeLessThan(0.15);
  });
});
