/**
 * Fills a warehouse with what the collector would have landed from the service's simulator over
 * days of CS2 trading, directly in DuckDB (INSERT … SELECT), a few hours at a time and in time order
 * like the real landing: stream events, poll and sweep sightings, sweep verdicts, minute price
 * snapshots with their fetches, minAsk lists, FX rates, a `loads` row per batch, and the live set.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Warehouse } from '../../src/warehouse/index.js';
import { LISTING_FIELDS } from '../../src/warehouse/typing/listing-shape.js';
import { benchGroups, benchMinAskItems, benchStickers } from './warehouse-groups.js';
import {
  defineMacros,
  eventsSql,
  fxSql,
  goneSql,
  minAskSql,
  observationsSql,
  planTableSql,
  snapshotFetchesSql,
  snapshotRowsSql,
  type WarehousePlan,
} from './warehouse-sql.js';

/** What to generate. */
export interface GenerateOptions {
  /** Listing events, about. */
  events: number;
  /** Days of data; a fraction for minutes of it. */
  days: number;
  groups: number;
  /** End of the data, epoch ms (a whole minute). */
  endMs: number;
}

const DAY_US = 86_400_000_000;
/** Rows are made a few hours at a time: each window's sort into time order then fits in memory. */
const WINDOW_US = DAY_US / 4;
/** DuckDB's memory limit while generating. */
const GENERATION_MEMORY = '4GB';
const MEAN_LIFE_US = 5_400_000_000;
/** Share of listings that get a `gone` event (the rest stay, or only a sweep notices they left). */
const GONE_SHARE = 0.987;

/** The plan of a warehouse of about `events` events over `days` days ending at `endMs`. */
export function planWarehouse(options: GenerateOptions): WarehousePlan {
  const spanUs = Math.round(options.days * DAY_US);
  // A span shorter than a listing's mean life (minutes of data) sees few of its listings go.
  const goneShare = Math.max(0, GONE_SHARE * (1 - MEAN_LIFE_US / spanUs));
  return {
    startUs: options.endMs * 1000 - spanUs,
    endUs: options.endMs * 1000,
    listings: Math.round(options.events / (1 + goneShare)),
    groups: options.groups,
    logId: 'mk4q2zxa',
  };
}

/** Defines the generator's macros on `connection` (needed on every connection that runs its SQL). */
export async function prepareConnection(connection: DuckDBConnection, plan: WarehousePlan): Promise<void> {
  await defineMacros(connection, plan, benchStickers());
}

/** Generates the whole plan into `warehouse`; calls `onDay` after each day. Returns rows per table. */
export async function generateWarehouse(
  warehouse: Warehouse,
  plan: WarehousePlan,
  dir: string,
  onDay: (day: number, days: number) => void = () => undefined,
): Promise<Record<string, number>> {
  const counts = await warehouse.withConnection(async (connection) => {
    // Bulk inserts into the tables' primary-key indexes (event ids, load ids) need those indexes in
    // memory, more than the warehouse's own limit allows a month of data: generate with more.
    const limit = await connection.runAndReadAll("SELECT current_setting('memory_limit')");
    await connection.run(`SET memory_limit = '${GENERATION_MEMORY}'`);
    try {
      await generateAll(connection, plan, dir, onDay);
    } finally {
      await connection.run(`SET memory_limit = '${String(limit.getRows()[0]?.[0])}'`);
    }
    const counts: Record<string, number> = {};
    for (const table of GENERATED_TABLES) {
      const reader = await connection.runAndReadAll(`SELECT count(*) FROM ${table}`);
      counts[table] = Number(reader.getRows()[0]?.[0]);
    }
    return counts;
  });
  await warehouse.applyLanded();
  return counts;
}

/** A price row of `s` as the service sends it: its JSON text. */
const PRICE_ROW_JSON = `json_object('market_hash_name', s.market_hash_name, 'wear', s.wear, 'doppler_phase', s.doppler_phase,
  'min_ask_usd', CAST(s.min_ask_usd AS DOUBLE), 'listed_count', s.listed_count)::VARCHAR`;

/** The landing tables the generator fills, `loads` last (every other row names its load). */
export const GENERATED_TABLES = [
  'raw_listing_events',
  'raw_listing_observations',
  'raw_listing_repeats',
  'listing_gone',
  'raw_price_snapshots',
  'raw_price_snapshot_repeats',
  'snapshot_fetches',
  'raw_minask_prices',
  'raw_fx_rates',
  'loads',
] as const;

/** SQL of a stream load's id and time (one batch per second of events, landed within the next second). */
const streamLoad = (at: string) => `b_uuid('stream:' || ((${at}) // 1000000))`;
const streamIngest = (at: string) =>
  `((${at}) // 1000000 + 1) * 1000000 + CAST(floor(bu((${at}) // 1000000, 60) * 400) AS BIGINT) * 1000`;
/** A poll or sweep page lands as one batch shortly after it was read. */
const sightingLoad = (source: string, at: string) => `b_uuid(${source} || ':' || ${at})`;
const sightingIngest = (source: string, at: string) =>
  `${at} + CASE WHEN ${source} = 'poll:730' THEN 350000 ELSE 500000 END`;

async function generateAll(
  connection: DuckDBConnection,
  plan: WarehousePlan,
  dir: string,
  onDay: (day: number, days: number) => void,
): Promise<void> {
  await createBenchTables(connection, plan, dir);
  await prepareConnection(connection, plan);
  await connection.run(planTableSql(plan, `SELECT range AS seq FROM range(${plan.listings})`));
  await connection.run(
    'CREATE OR REPLACE TEMP TABLE bench_last_lines (grp BIGINT PRIMARY KEY, m BIGINT, etag VARCHAR, fetched_at TIMESTAMP, line BIGINT)',
  );
  const days = Math.ceil((plan.endUs - plan.startUs) / DAY_US);
  let position = 1;
  for (let w0 = plan.startUs; w0 < plan.endUs; w0 += WINDOW_US) {
    position += await landWindow(connection, plan, w0, Math.min(plan.endUs, w0 + WINDOW_US), position);
    const day = (w0 + WINDOW_US - plan.startUs) / DAY_US;
    if (Number.isInteger(day)) onDay(day, days);
  }
  await connection.run(
    `INSERT INTO collector_state VALUES ('stream', 'last_event_id', '${plan.logId}-${position - 1}', bts(${plan.endUs}))`,
  );
  // Every load is pending for the live set's state, which the warehouse then builds from them.
  await connection.run('INSERT INTO live_set_pending SELECT load_id, started_at FROM loads');
  await landMarks(connection);
  await connection.run('DROP TABLE bench_plan');
  await connection.run('DROP TABLE bench_last_lines');
  await connection.run('CHECKPOINT');
}

/**
 * The marks the landing compares new rows with: each listing's stored page item (one per listing),
 * and each item group's last stored snapshot line.
 */
async function landMarks(connection: DuckDBConnection): Promise<void> {
  await connection.run(
    `INSERT INTO listing_payload_marks
     SELECT listing_id, md5_number(data), via, pass_id FROM raw_listing_observations WHERE listing_id IS NOT NULL`,
  );
  await connection.run(
    `INSERT INTO price_group_marks
     SELECT CAST(json_extract(s.data, ['$.market_hash_name', '$.wear', '$.doppler_phase']) AS VARCHAR),
            md5_number(s.data), s.etag, s.fetched_at, s.line
     FROM bench_last_lines l JOIN raw_price_snapshots s ON s.etag = l.etag AND s.fetched_at = l.fetched_at AND s.line = l.line`,
  );
}

async function createBenchTables(
  connection: DuckDBConnection,
  plan: WarehousePlan,
  dir: string,
): Promise<void> {
  let cumulative = 0;
  const groups = benchGroups(plan.groups).map((g, idx) => {
    const row = { idx, cum_lo: cumulative, ...g };
    cumulative += g.share;
    return row;
  });
  const items = benchMinAskItems(40).map((item, idx) => ({ idx, ...item }));
  await connection.run('CREATE SCHEMA IF NOT EXISTS bench');
  for (const [name, rows] of [
    ['groups', groups],
    ['minask_items', items],
  ] as const) {
    const file = join(dir, `bench-${name}.json`);
    await writeFile(file, rows.map((r) => JSON.stringify(r)).join('\n'));
    await connection.run(
      `CREATE OR REPLACE TABLE bench.${name} AS SELECT * FROM read_json('${file}', format = 'newline_delimited') ORDER BY idx`,
    );
  }
}

/** Lands every row of [w0, w1) in time order; returns the number of events landed. */
async function landWindow(
  connection: DuckDBConnection,
  plan: WarehousePlan,
  w0: number,
  w1: number,
  position: number,
): Promise<number> {
  // Events and page items land raw, as the service sends them: a listing's JSON (times as ISO 8601 UTC), {"id":…} when gone.
  const json = LISTING_FIELDS.map(({ name, kind }) =>
    kind === 'timestamp' ? `'${name}': strftime(${name}, '%Y-%m-%dT%H:%M:%S.%gZ')` : `'${name}': ${name}`,
  ).join(', ');
  const events = await connection.run(
    `INSERT INTO raw_listing_events__hot (event_id, kind, app_id, listing_id, data, received_at, load_id, ingested_at)
     SELECT event_id, kind, app_id, NULL,
            CASE WHEN kind = 'new' THEN to_json({'id': listing_id, ${json}}) ELSE to_json({'id': listing_id}) END,
            received_at, ${streamLoad('t_at')}, bts(${streamIngest('t_at')})
     FROM (${eventsSql(plan, w0, w1, position)}) ORDER BY t_at, seq, kind`,
  );
  // A listing's first page item is stored; every later one repeats its text (raw_listing_repeats).
  await connection.run(
    `CREATE OR REPLACE TEMP TABLE bench_items AS
     SELECT *, n // 200 AS page, n % 200 AS item, ${sightingLoad('source', 't_at')} AS load_id,
            bts(${sightingIngest('source', 't_at')}) AS ingested_at
     FROM (SELECT *, row_number() OVER (PARTITION BY via, pass_id ORDER BY t_at, seq) - 1 AS n
           FROM (${observationsSql(plan, w0, w1)}))`,
  );
  await connection.run(
    `INSERT INTO raw_listing_observations__hot (via, pass_id, page, item, listing_id, app_id, data, observed_at, load_id, ingested_at)
     SELECT via, pass_id, page, item, listing_id, app_id, to_json({'id': listing_id, ${json}}), observed_at, load_id, ingested_at
     FROM bench_items WHERE first ORDER BY t_at, seq`,
  );
  await connection.run(
    `INSERT INTO raw_listing_repeats__hot
     SELECT via, pass_id, page, item, listing_id, app_id, observed_at, first_item_via, first_item_pass_id, load_id, ingested_at
     FROM bench_items WHERE NOT first ORDER BY t_at, seq`,
  );
  await connection.run('DROP TABLE bench_items');
  await connection.run(
    `INSERT INTO listing_gone
     SELECT app_id, listing_id, detected_at, via, b_uuid('sweep-gone:' || t_at), bts(t_at + 400000)
     FROM (${goneSql(w0, w1)}) ORDER BY t_at, listing_id`,
  );
  await landPrices(connection, plan, w0, w1);
  await landLoads(connection, w0, w1);
  return events.rowsChanged;
}

async function landPrices(
  connection: DuckDBConnection,
  plan: WarehousePlan,
  w0: number,
  w1: number,
): Promise<void> {
  await connection.run(
    `CREATE OR REPLACE TEMP TABLE bench_fetches AS
     SELECT *, b_uuid('snapshot:' || m) AS load_id,
            bts(fetched + 300000 + CAST(floor(bu(m, 61) * 500) AS BIGINT) * 1000) AS ingested_at
     FROM (${snapshotFetchesSql(plan, w0, w1)})`,
  );
  // A line repeating its group's epoch lands as a repeat of the line stored first in the epoch:
  // this window's, or the one `bench_last_lines` carries over from an earlier window.
  await connection.run(
    `CREATE OR REPLACE TEMP TABLE bench_lines AS
     SELECT s.m, s.grp, s.first_m, s.repeat, s.etag, bts(s.generated) AS generated_at, bts(s.fetched) AS fetched_at,
            row_number() OVER (PARTITION BY s.m ORDER BY s.market_hash_name, s.wear, s.doppler_phase) AS line,
            ${PRICE_ROW_JSON} AS data, f.load_id, f.ingested_at
     FROM (${snapshotRowsSql(plan, w0, w1)}) s JOIN bench_fetches f ON f.m = s.m`,
  );
  await connection.run(
    `INSERT INTO raw_price_snapshots__hot
     SELECT etag, generated_at, fetched_at, line, data, load_id, ingested_at FROM bench_lines WHERE NOT repeat ORDER BY m, line`,
  );
  await connection.run(
    `INSERT INTO raw_price_snapshot_repeats__hot
     SELECT r.etag, r.generated_at, r.fetched_at, r.line, s.etag, s.fetched_at, s.line, r.load_id, r.ingested_at
     FROM bench_lines r JOIN (SELECT grp, m, etag, fetched_at, line FROM bench_lines WHERE NOT repeat UNION ALL SELECT * FROM bench_last_lines) s ON s.grp = r.grp AND s.m = r.first_m
     WHERE r.repeat ORDER BY r.m, r.line`,
  );
  await connection.run(
    `INSERT OR REPLACE INTO bench_last_lines
     SELECT grp, m, etag, fetched_at, line FROM bench_lines WHERE NOT repeat QUALIFY row_number() OVER (PARTITION BY grp ORDER BY m DESC) = 1`,
  );
  await connection.run(
    `INSERT INTO snapshot_fetches
     SELECT bts(f.fetched), f.etag, CASE WHEN f.unchanged THEN 'unchanged' ELSE 'downloaded' END, coalesce(s.n, 0),
            f.load_id, f.ingested_at
     FROM bench_fetches f LEFT JOIN (SELECT m, count(*) AS n FROM bench_lines GROUP BY m) s ON s.m = f.m
     ORDER BY f.m`,
  );
  await connection.run('DROP TABLE bench_lines');
  await connection.run('DROP TABLE bench_fetches');
  await connection.run(
    `INSERT INTO raw_minask_prices__hot
     SELECT app_id, bts(generated), bts(fetched), row_number() OVER (PARTITION BY app_id, m ORDER BY market_hash_name) - 1,
            ${PRICE_ROW_JSON}, b_uuid('prices:' || app_id || ':' || m), bts(fetched + 250000)
     FROM (${minAskSql(plan, w0, w1)}) s ORDER BY fetched, app_id, market_hash_name`,
  );
  // One answer of GET /currency per fetch, as the service sends it.
  await connection.run(
    `INSERT INTO raw_fx_rates__hot
     SELECT bts(updated), bts(fetched),
            json_object('base', 'USD', 'rates', json_group_object(currency, rate),
                        'updated_at', strftime(bts(updated), '%Y-%m-%dT%H:%M:%S.%gZ'))::VARCHAR,
            b_uuid('fx:' || m), bts(fetched + 150000)
     FROM (${fxSql(plan, w0, w1)}) GROUP BY m, updated, fetched ORDER BY fetched`,
  );
}

/** One `loads` row per batch of the window, counting the rows it landed (the live set not counted). */
async function landLoads(connection: DuckDBConnection, w0: number, w1: number): Promise<void> {
  const within = (column: string) => `${column} >= bts(${w0}) AND ${column} < bts(${w1})`;
  await connection.run(
    `INSERT INTO loads (load_id, source, started_at, rows)
     SELECT load_id, source, started_at, sum(n) FROM (
       SELECT load_id, 'stream' AS source, ingested_at AS started_at, count(*) AS n
       FROM raw_listing_events WHERE ${within('received_at')} GROUP BY ALL
       UNION ALL
       SELECT load_id, via || ':730', ingested_at, count(*) FROM raw_listing_observations WHERE ${within('observed_at')} GROUP BY ALL
       UNION ALL
       SELECT load_id, via || ':730', ingested_at, count(*) FROM raw_listing_repeats WHERE ${within('observed_at')} GROUP BY ALL
       UNION ALL
       SELECT load_id, 'sweep:730', ingested_at, count(*) FROM listing_gone WHERE ${within('detected_at')} GROUP BY ALL
       UNION ALL
       SELECT load_id, 'snapshot', ingested_at, count(*) FROM raw_price_snapshots WHERE ${within('fetched_at')} GROUP BY ALL
       UNION ALL
       SELECT load_id, 'snapshot', ingested_at, count(*) FROM raw_price_snapshot_repeats WHERE ${within('fetched_at')} GROUP BY ALL
       UNION ALL
       SELECT load_id, 'snapshot', ingested_at, count(*) FROM snapshot_fetches WHERE ${within('fetched_at')} GROUP BY ALL
       UNION ALL
       SELECT load_id, 'prices:' || app_id, ingested_at, count(*) FROM raw_minask_prices WHERE ${within('fetched_at')} GROUP BY ALL
       UNION ALL
       SELECT load_id, 'fx', ingested_at, count(*) FROM raw_fx_rates WHERE ${within('fetched_at')} GROUP BY ALL
     ) GROUP BY load_id, source, started_at ORDER BY started_at, load_id`,
  );
}
