import { describe, expect, it } from 'vitest';
import { formatListingId, parseListingId } from '../../../src/service/sim/listing-id.js';
import { formatTimestamp } from '../../../src/service/sim/timestamp.js';

describe('formatTimestamp', () => {
  it.each([0, 1, 999, 86_399_999, 951_782_400_000, 1_795_262_400_123, 4_102_444_799_999])(
    'matches Date#toISOString for %d',
    (ms) => {
      expect(formatTimestamp(ms)).toBe(new Date(ms).toISOString());
    },
  );

  it('matches Date#toISOString over many days in any order', () => {
    for (let i = 0; i < 2000; i++) {
      const ms = 1_700_000_000_000 + ((i * 7_919_993_117) % 900_000_000_000);
      expect(formatTimestamp(ms)).toBe(new Date(ms).toISOString());
    }
  });
});

describe('listing ids', () => {
  it('round-trip with their game and sequence', () => {
    expect(formatListingId(730, 1)).toBe('c0000000001');
    expect(formatListingId(570, 36)).toBe('d0000000010');
    expect(parseListingId(formatListingId(252490, 123_456_789))).toEqual({
      appId: 252490,
      sequence: 123_456_789,
    });
    expect(parseListingId('x0000000001')).toBeNull();
    expect(parseListingId('c00000001')).toBeNull();
    expect(() => formatListingId(440, 1)).toThrow(RangeError);
  });
});
