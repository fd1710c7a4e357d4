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

/** A `new` event as the stream sends it, with the field the upstream added. */
const drifted = (i: number) => ({
  eventId: `log-${i}`,
  kind: 'new' as const,
  appId: 730,
  receivedAt: T0 + i,
  data: JSON.stringify({ ...makeListing(`L${i}`), seller_rating: i / 10 }),
});

describe('a field the upstream added', () => {
  it('is kept as it lands, and a column added to the staging model is filled for the whole history by a full refresh', async () => {
    const models = join(dir, 'models');
    cpSync(findSqlDir('models'), models, { recursive: true });
    const path = join(dir, 'warehouse.duckdb');
    let warehouse = await Warehouse.open(path, { modelsDir: models });
    try {
      await warehouse.write([{ source: 'stream', events: [1, 2, 3].map(drifted) }]);
      await warehouse.refreshModels({ select: ['stg_listing_events'] });
      await warehouse.write([{ source: 'stream', events: [4, 5].map(drifted) }]);
      await warehouse.applyLanded();
      expect(
        await warehouse.query("SELECT field, payloads FROM payload_fields WHERE field = 'seller_rating'"),
      ).toEqual([{ field: 'seller_rating', payloads: 5 }]);
    } finally {
      await warehouse.close();
    }

    // The analyst types the field: one column more in the staging model.
    const file = join(models, 'stg_listing_events.sql');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(
        'SELECT * EXCLUDE (raw)',
        "SELECT * EXCLUDE (raw), CAST(extra_fields->>'seller_rating' AS DOUBLE) AS seller_rating",
      ),
    );
    warehouse = await Warehouse.open(path, { modelsDir: models });
    try {
      const run = await warehouse.refreshModels({ select: ['stg_listing_events'], fullRefresh: true });
      expect(run.models.find((m) => m.model === 'stg_listing_events')?.mode).toBe('full');
      expect(
        await warehouse.query('SELECT event_id, seller_rating FROM stg_listing_events ORDER BY event_id'),
      ).toEqual([1, 2, 3, 4, 5].map((i) => ({ event_id: `log-${i}`, seller_rating: i / 10 })));
    } finally {
      await warehouse.close();
    }
  });
});
