/**
 * Building the price snapshot over 1,000,000 listings (the DuckDB aggregation, the NDJSON rows,
 * gzip) against DuckDB's own `COPY … TO … (FORMAT json, COMPRESSION gzip)` of the same rows, in the
 * same run. Goal: within 1.5× of the baseline.
 */
import { copyFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClock } from '../../src/service/core/clock.js';
import { PriceList } from '../../src/service/market/prices/price-list.js';
import { PriceSnapshot } from '../../src/service/market/prices/price-snapshot.js';
import { Database } from '../../src/shared/database.js';
import { projectPath } from '../../src/shared/project-root.js';
import { benchDatabase, print } from './fixtures.js';

const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 1_000_000);
const ROUNDS = 5;

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'market-snapshot-bench-'));
  const path = join(dir, 'market.duckdb');
  await copyFile(await benchDatabase(LISTINGS), path);
  const db = await Database.open(path, projectPath('sql', 'service'));
  try {
    const prices = new PriceList(db, createClock());
    const snapshot = new PriceSnapshot();
    prices.onBuild((build) => snapshot.update({ ...build, cs2: [...build.cs2] }));
    const ours: number[] = [];
    const baseline: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let started = performance.now();
      await db.read(
        `COPY (SELECT market_hash_name, wear, doppler_phase, min(price_usd) AS min_ask_usd, count(*) AS listed_count
               FROM listings WHERE app_id = 730 GROUP BY ALL ORDER BY ALL)
         TO '${join(dir, `copy-${round}.ndjson.gz`)}' (FORMAT json, COMPRESSION gzip)`,
      );
      baseline.push(performance.now() - started);
      started = performance.now();
      await prices.rebuild();
      ours.push(performance.now() - started);
    }
    const copied = await stat(join(dir, 'copy-0.ndjson.gz'));
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    print(
      `DuckDB COPY … (FORMAT json, COMPRESSION gzip), median of ${ROUNDS}`,
      `${median(baseline).toFixed(0)} ms (${copied.size} B)`,
    );
    print(
      `our snapshot build (all games' price list + CS2 gzip), median of ${ROUNDS}`,
      `${median(ours).toFixed(0)} ms (${snapshot.file?.body.length} B, ${snapshot.file?.rows} rows)`,
    );
    print('ratio, ours / DuckDB (goal <= 1.5)', (median(ours) / median(baseline)).toFixed(2));
  } finally {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
}
