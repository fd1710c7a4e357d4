import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findSqlDir, Warehouse } from '../../src/warehouse/index.js';
import { makeListing, makeTempDir, T0 } from './fixtures.js';

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

describe('typing_errors', () => {
  it.each([
    ['typing_errors(warn)', { failures: 1, warn: true }],
    ['typing_errors(<= 10%)', { failures: 1 }],
    ['typing_errors(<= 20%)', { failures: 0 }],
  ])(
    '%s of a staging model counts its partly typed rows and the rejected payloads',
    async (test, outcome) => {
      const models = join(dir, 'models');
      cpSync(findSqlDir('models'), models, { recursive: true });
      const file = join(models, 'stg_listing_events.sql');
      writeFileSync(
        file,
        readFileSync(file, 'utf8').replace('-- test: typing_errors(warn)', `-- test: ${test}`),
      );
      const warehouse = await Warehouse.open(join(dir, 'warehouse.duckdb'), { modelsDir: models });
      try {
        const events = DATA.map((data, i) => ({
          eventId: `log-${i + 1}`,
          kind: 'new' as const,
          appId: 730,
          receivedAt: T0 + i,
          data,
        }));
        await warehouse.write([{ source: 'stream', events }]);
        await warehouse.refreshModels({ select: ['stg_listing_events'] });
        const [result] = (await warehouse.testModels({ select: ['stg_listing_events'] })).filter(
          (r) => r.name === test,
        );
        expect({ failures: result?.failures, ...(result?.warn ? { warn: true } : {}) }).toEqual(outcome);
        if (outcome.failures) expect(result?.sample).toEqual([{ partly_typed: 1, rejected: 1, rows: 9 }]);
      } finally {
        await warehouse.close();
      }
    },
  );
});
