/**
 * The ingest benchmarks' data: a service database whose event log holds about a million listing
 * events (made once, kept in the temp folder), and DuckDB's own `read_json` of the same events, the
 * baseline both measure against.
 */
import { existsSync } from 'node:fs';
import { copyFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { createClock } from '../../src/service/core/clock.js';
import type { ListingChange } from '../../src/service/market/catalogue.js';
import { startService } from '../../src/service/service.js';
import { createListingGenerator } from '../../src/service/sim/generator.js';
import { Random } from '../../src/service/sim/random.js';

/** Listing events the log is made with (BENCH_EVENTS); about 80 % of them are CS2's. */
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);

/** Runs a statement on the service database (its rows are not needed). */
export type RunSql = (sql: string) => Promise<unknown>;

/** A copy, in `dir`, of the service database whose event log holds about BENCH_EVENTS events; returns its path. */
export async function copyOfEventLog(dir: string): Promise<string> {
  const copy = join(dir, 'service.duckdb');
  await copyFile(await eventLogDatabase(EVENTS), copy);
  return copy;
}

/** A service database whose event log holds about `events` events (made once, kept in the temp folder). */
async function eventLogDatabase(events: number): Promise<string> {
  const path = join(tmpdir(), `market-bench-events-${events}.duckdb`);
  if (existsSync(path)) return path;
  const service = await startService({
    dbPath: path,
    port: 0,
    listings: 20_000,
    churnPaused: true,
    clock: createClock(),
    retention: { maxRows: events * 2 },
  });
  try {
    const catalogue = service.context.catalogue;
    const generator = createListingGenerator({ seed: 5, firstSequence: catalogue.nextSequence });
    const random = new Random(5);
    while (catalogue.log.head < events) {
      const changes: ListingChange[] = [];
      for (let i = 0; i < 2500; i++) {
        const leaving = catalogue.sample(random.next());
        if (leaving) changes.push({ kind: 'remove', id: leaving.id });
        const next = generator.next(Date.now());
        changes.push({ kind: 'add', appId: next.appId, listing: next.listing });
      }
      await catalogue.apply(changes, generator.nextSequence);
    }
    await writeFile(`${path}.done`, String(catalogue.log.head));
  } finally {
    await service.close();
  }
  return path;
}

/**
 * Writes the CS2 events of the service database as NDJSON (as the stream carries them) and times
 * DuckDB reading them into a table of a new database file in `dir`; returns the milliseconds.
 */
export async function readJsonBaseline(runSql: RunSql, dir: string): Promise<number> {
  const file = join(dir, 'events.ndjson');
  await runSql(
    `COPY (SELECT position AS event_id, kind, listing_id, listing::JSON AS listing FROM listing_events WHERE app_id = 730 ORDER BY position)
     TO '${file}' (FORMAT json)`,
  );
  const instance = await DuckDBInstance.create(join(dir, 'baseline.duckdb'));
  const connection = await instance.connect();
  const started = performance.now();
  await connection.run(
    `CREATE TABLE events AS SELECT * FROM read_json('${file}', format = 'newline_delimited')`,
  );
  const elapsed = performance.now() - started;
  connection.closeSync();
  instance.closeSync();
  return elapsed;
}
