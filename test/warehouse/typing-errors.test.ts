import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findSqlDir, Warehouse } from '../../src/warehouse/index.js';
import { makeListing, makeTempDir, observation, rawNewEvents, T0 } from './fixtures.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = makeTempDir());
});
afterEach(() => cleanup());

/** Eight clean events, one without refund_percent, one cut short: 2 of 10 typing errors. */
const DATA = [
  ...Array.from({ length: 8 }, (_, i) => JSON.stringify(makeListing(`L${i}`))),
  JSON.stringify({ ...makeListing('L8'), refund_percent: undefined }),
  JSON.stringify(makeListing('L9')).slice(0, 30),
];

/** A page item without an id: rejected under the poll, not the stream. */
const REJECTED_POLL_ITEM = { ...observation('-', T0, 'p1'), listingId: null, data: '{"price_usd":1}' };

describe('typing_errors', () => {
  it.each([
    ['typing_errors(warn)', { failures: 1, warn: true }, 2],
    ['typing_errors(<= 10%)', { failures: 1 }, 2],
    ['typing_errors(<= 20%)', { failures: 1 }, 2],
    ["typing_errors(<= 20%, source: 'stream')", { failures: 0 }, 1],
    ["typing_errors(<= 10%, source: 'stream', 'catch_up')", { failures: 1 }, 1],
    ["typing_errors(warn, source: 'poll')", { failures: 1, warn: true }, 1],
  ])(
    '%s of a staging model counts its partly typed rows and the rejected payloads',
    async (test, outcome, rejected) => {
      const models = join(dir, 'models');
      cpSync(findSqlDir('models'), models, { recursive: true });
      const file = join(models, 'stg_listing_events.sql');
      const text = readFileSync(file, 'utf8');
      const line = "-- test: typing_errors(warn, source: 'stream')";
      expect(text).toContain(line);
      writeFileSync(file, text.replace(line, `-- test: ${test}`));
      const warehouse = await Warehouse.open(join(dir, 'warehouse.duckdb'), { modelsDir: models });
      try {
        await warehouse.write([{ source: 'stream', events: rawNewEvents(DATA) }]);
        await warehouse.write([{ source: 'poll:730', observations: [REJECTED_POLL_ITEM] }]);
        await warehouse.refreshModels({ select: ['stg_listing_events'] });
        const [result] = (await warehouse.testModels({ select: ['stg_listing_events'] })).filter(
          (r) => r.name === test,
        );
        expect({ failures: result?.failures, ...(result?.warn ? { warn: true } : {}) }).toEqual(outcome);
        if (outcome.failures) expect(result?.sample).toEqual([{ partly_typed: 1, rejected, rows: 9 }]);
      } finally {
        await warehouse.close();
      }
    },
  );

  it('runs when asked, not with each build: it counts what landed since', async () => {
    const warehouse = await Warehouse.open(join(dir, 'warehouse.duckdb'));
    try {
      await warehouse.write([{ source: 'stream', events: rawNewEvents(DATA.slice(0, 1)) }]);
      await warehouse.refreshModels({ select: ['stg_listing_events'] });
      expect(
        await warehouse.query("SELECT test FROM model_build_tests WHERE test LIKE 'typing_errors%'"),
      ).toEqual([]);
      await warehouse.write([{ source: 'stream', events: rawNewEvents(['{"id"'], 2) }]);
      const [result] = (await warehouse.testModels({ select: ['stg_listing_events'] })).filter((r) =>
        r.name.startsWith('typing_errors'),
      );
      expect(result?.sample).toEqual([{ partly_typed: 0, rejected: 1, rows: 1 }]);
    } finally {
      await warehouse.close();
    }
  });

  it('refuses a source list it cannot read, naming the line', async () => {
    const models = join(dir, 'models');
    cpSync(findSqlDir('models'), models, { recursive: true });
    const file = join(models, 'stg_listing_events.sql');
    writeFileSync(file, readFileSync(file, 'utf8').replace("source: 'stream'", "sources 'stream'"));
    const warehouse = await Warehouse.open(join(dir, 'warehouse.duckdb'), { modelsDir: models });
    try {
      await expect(warehouse.testModels({ select: ['stg_listing_events'] })).rejects.toThrow(
        `not "typing_errors(warn, sources 'stream')"`,
      );
    } finally {
      await warehouse.close();
    }
  });
});
