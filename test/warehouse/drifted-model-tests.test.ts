/**
 * `market models test` on drifted data: the upstream (one event without the optional
 * `refund_percent`, one with `price_usd` as a string, one cut short, a field added to every
 * listing). What did not type is the concern of the `typing_errors` tests, which warn by default:
 * no other test fails because a payload drifted.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Warehouse } from '../../src/warehouse/index.js';
import { makeListing, makeTempDir, observation, rawNewEvents, T0 } from './fixtures.js';

let dir: string;
let cleanup: () => void;
let warehouse: Warehouse;
beforeEach(async () => {
  ({ dir, cleanup } = makeTempDir());
  warehouse = await Warehouse.open(join(dir, 'w.duckdb'), { clock: () => T0 + 60_000 });
});
afterEach(async () => {
  await warehouse.close();
  cleanup();
});

const listing = (id: string) => ({ ...makeListing(id), seller_rating: 4.5 });
const DATA = [
  ...['A', 'B', 'C'].map((id) => JSON.stringify(listing(id))),
  JSON.stringify({ ...listing('D'), refund_percent: undefined }),
  JSON.stringify({ ...listing('E'), price_usd: '12.34' }),
  JSON.stringify(listing('F')).slice(0, 40),
  JSON.stringify({ ...listing('H'), market_hash_name: null }),
];

it('fails no model test for payloads that drifted; typing_errors warns of them', async () => {
  await warehouse.write([{ source: 'stream', events: rawNewEvents(DATA) }]);
  const page = { ...observation('G', T0 + 10, 'p1'), data: JSON.stringify({ ...listing('G'), wear: 7 }) };
  await warehouse.write([{ source: 'poll:730', observations: [page] }]);
  await warehouse.refreshModels();
  const results = await warehouse.testModels();
  const failed = results.filter((r) => r.failures > 0 && !r.warn);
  expect(failed.map((r) => `${r.model} ${r.name}: ${r.error ?? JSON.stringify(r.sample[0])}`)).toEqual([]);
  const warned = results.filter((r) => r.failures > 0 && r.warn);
  // Partly typed: D (refund_percent missing), E (price a string), H (no name); F rejected.
  expect(warned.map((r) => [r.model, r.name, r.sample])).toEqual([
    [
      'stg_listing_events',
      "typing_errors(warn, source: 'stream')",
      [{ partly_typed: 3, rejected: 1, rows: 6 }],
    ],
  ]);
});
