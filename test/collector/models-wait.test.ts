import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createModelsTask } from '../../src/collector/warehouse-tasks.js';
import { BatchWriter, Warehouse } from '../../src/warehouse/index.js';
import { makeTempDir, newEvent, T0 } from '../warehouse/fixtures.js';

let warehouse: Warehouse;
let cleanup: () => void;

beforeEach(async () => {
  const temp = makeTempDir();
  cleanup = temp.cleanup;
  warehouse = await Warehouse.open(join(temp.dir, 'wh.duckdb'), { clock: () => T0 + 60_000 });
  await warehouse.write([{ source: 'stream', events: [newEvent('e1', 'L1', T0)] }]);
});

afterEach(async () => {
  await warehouse.close();
  cleanup();
});

async function modelRuns(): Promise<number> {
  const [row] = await warehouse.query('SELECT count(*) AS n FROM model_runs');
  return Number(row?.n);
}

/** A landing whose burst ends when the test says. */
function burstingLanding(): { calm: () => Promise<void>; land: () => void } {
  let land = () => {};
  const landed = new Promise<void>((resolve) => {
    land = resolve;
  });
  return { calm: () => landed, land };
}

describe('the model refresh task', () => {
  it('waits for a burst to land before it builds', async () => {
    const landing = burstingLanding();
    const refreshes: number[] = [];
    const refresh = warehouse.refreshModels.bind(warehouse);
    warehouse.refreshModels = (options) => {
      refreshes.push(Date.now());
      return refresh(options);
    };
    const run = createModelsTask(warehouse, undefined, landing).run(new AbortController().signal);
    await new Promise((r) => setTimeout(r, 100));
    expect(refreshes).toEqual([]);
    landing.land();
    expect(await run).toBeGreaterThan(0);
    expect(refreshes).toHaveLength(1);
    expect(await modelRuns()).toBeGreaterThan(0);
  });

  it("builds over a burst of the daemon's batch writer once it has landed, the live set covering it", async () => {
    const writer = new BatchWriter(warehouse, { maxRows: 100_000, maxDelayMs: 60_000, maxWriteRows: 2 });
    const adds = [2, 3, 4, 5, 6].map((n) =>
      writer.add({ source: 'stream', events: [newEvent(`e${n}`, `L${n}`, T0 + n)] }),
    );
    const seen: Record<string, unknown>[] = [];
    const refresh = warehouse.refreshModels.bind(warehouse);
    warehouse.refreshModels = async (options) => {
      const [row] = await warehouse.query(
        'SELECT (SELECT count(*) FROM raw_listing_events) AS events, (SELECT count(*) FROM live_set_pending) AS pending',
      );
      if (row) seen.push(row);
      return refresh(options);
    };
    const run = createModelsTask(warehouse, undefined, writer).run(new AbortController().signal);
    await writer.flush();
    await Promise.all(adds);
    expect(await run).toBeGreaterThan(0);
    expect(seen).toEqual([{ events: 6, pending: 0 }]);
    await writer.close();
  });

  it('gives up waiting when stopped, building nothing', async () => {
    const stop = new AbortController();
    const run = createModelsTask(warehouse, undefined, burstingLanding()).run(stop.signal);
    stop.abort(new Error('stopped'));
    await expect(run).rejects.toThrow('stopped');
    expect(await modelRuns()).toBe(0);
  });
});
