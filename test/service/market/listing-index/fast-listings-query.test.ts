import { describe, expect, it } from 'vitest';
import { listingsQuerySchema } from '../../../../src/contract/listing.js';
import {
  LISTINGS_QUERY_CHECKS,
  parseListingsQuery,
} from '../../../../src/service/market/listing-index/fast-listings-query.js';
import { createRandom } from '../../../helpers/listing-factory.js';

/** Values that sit on and around every rule of the schema. */
const SAMPLES: unknown[] = [
  ...['', 'a', 'Rifle', 'Ak-47 | Redline', '★ StatTrak™ Karambit', ' 1', '1 ', 'x'.repeat(200)],
  ...['x'.repeat(201), 'x'.repeat(300), 'x'.repeat(301), 'x'.repeat(512), 'x'.repeat(513)],
  ...['0', '-0', '1', '-1', '01', '1.', '.5', '1.5', '0.999999', '1.0000001', '100', '100.5', '200'],
  ...['201', '1e3', '0x10', 'Infinity', 'NaN', '1,5', '1000000000', '1000000000.01', '2147483647'],
  ...['2147483648', '9999999999999999', '99999999999999999', '1'.repeat(32), `0.${'1'.repeat(31)}`],
  ...['730', '570', '252490', '2026-11-21T12:00:00Z', '2026-11-21T12:00Z', '2026-11-21T12:00:00.5+02:00'],
  ...['2026-11-21T12:00:00.1234567891Z', '2026-13-45T99:99Z', '2026-11-21 12:00:00Z', '2026-11-21'],
  ...['Factory New', 'factory new', 'Battle-Scarred', 'only', 'exclude', 'Only', 'instant', 'hold'],
  ...['up_to_12h', 'id', 'newest', 'price_asc', 'price_desc', 'PRICE_ASC'],
  ['a', 'b'],
  [],
  5,
  null,
  true,
];

const NAMES = [...LISTINGS_QUERY_CHECKS.map(([name]) => name), 'api_key', 'unknown'];

/** The schema's answer in the fast parser's terms: its value, or undefined when it refuses. */
function bySchema(data: unknown): unknown {
  const result = listingsQuerySchema.safeParse(data);
  return result.success ? result.data : undefined;
}

describe('parseListingsQuery', () => {
  it('checks every parameter of the schema, in its order', () => {
    expect(NAMES.slice(0, -2)).toEqual(Object.keys(listingsQuerySchema.shape));
  });

  it.each(NAMES)('gives what the schema gives for every sample of %s alone', (name) => {
    for (const sample of SAMPLES) {
      const data = { [name]: sample };
      expect({ data, parsed: parseListingsQuery(data) }).toStrictEqual({ data, parsed: bySchema(data) });
    }
  });

  it('gives what the schema gives for random combinations of parameters', () => {
    const random = createRandom(15);
    for (let run = 0; run < 3000; run++) {
      const data: Record<string, unknown> = {};
      const count = 1 + Math.floor(random.next() * 5);
      for (let i = 0; i < count; i++) data[random.pick(NAMES)] = random.pick(SAMPLES);
      expect({ data, parsed: parseListingsQuery(data) }).toStrictEqual({ data, parsed: bySchema(data) });
    }
  });

  it('parses the queries of a listings page', () => {
    expect(
      parseListingsQuery({
        limit: '200',
        wear: 'Factory New',
        sort: 'newest',
        min_price: '10',
        api_key: 'k',
      }),
    ).toStrictEqual({ wear: 'Factory New', min_price: 10, sort: 'newest', limit: 200 });
    expect(parseListingsQuery({})).toStrictEqual({});
    expect(parseListingsQuery(null)).toBeUndefined();
  });
});
