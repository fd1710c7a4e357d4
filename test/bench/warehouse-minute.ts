/**
 * Lands one more minute of a generated warehouse the way the collector would: the rows the plan
 * has in that minute, handed to `Warehouse.write` second by second (the batch writer commits about
 * that often), so the real landing code keeps the event log, the live set and `loads`.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Listing } from '../../src/contract/listing.js';
import type { PriceRow } from '../../src/contract/market.js';
import type { Warehouse, WarehouseBatch } from '../../src/warehouse/index.js';
import { prepareConnection } from './warehouse-generator.js';
import {
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

/** What landing a minute did. */
export interface MinuteSummary {
  writes: number;
  /** Rows landed per table (`live_listings`: rows changed). */
  tables: Record<string, number>;
}

const ISO = "'%Y-%m-%dT%H:%M:%S.%gZ'";
/** The contract's Listing as JSON, from the listing columns of a generated row. */
const LISTING_JSON = `to_json({'id': listing_id, 'market_hash_name': market_hash_name, 'wear': wear,
  'doppler_phase': doppler_phase, 'float_value': float_value, 'paint_seed': paint_seed, 'stickers': stickers,
  'price_usd': price_usd::DOUBLE, 'category': category, 'rarity': rarity, 'image': image,
  'inspect_link': inspect_link, 'tradable': tradable, 'tradable_at': strftime(tradable_at, ${ISO}),
  'delivery': delivery, 'refund_percent': refund_percent, 'listed_at': strftime(listed_at, ${ISO})})::VARCHAR`;
const PRICE_ROW = 'market_hash_name, wear, doppler_phase, min_ask_usd::DOUBLE AS min_ask_usd, listed_count';

type Row = Record<string, unknown>;

/**
 * Lands the minute starting at `w0` (epoch µs), with `clock.now` (the warehouse's clock) set to a
 * moment just after each second's rows, as the collector would have written them.
 */
export async function landMinute(
  warehouse: Warehouse,
  plan: WarehousePlan,
  clock: { now: number },
  w0: number,
  dir: string,
): Promise<MinuteSummary> {
  const w1 = w0 + 60_000_000;
  const rows = await readMinute(warehouse, plan, w0, w1);
  const seconds = new Map<number, WarehouseBatch[]>();
  const add = (atUs: number, batch: WarehouseBatch) => {
    const second = Math.floor((atUs - w0) / 1_000_000);
    seconds.set(second, [...(seconds.get(second) ?? []), batch]);
  };
  for (const [second, events] of groupBy(rows.events, (e) => secondOf(e, w0))) {
    add(w0 + second * 1_000_000, {
      source: 'stream',
      events: events.map((e) => ({
        eventId: String(e.event_id),
        kind: e.kind as 'new' | 'gone',
        listingId: String(e.listing_id),
        appId: 730,
        listing: e.listing === null ? null : (JSON.parse(String(e.listing)) as Listing),
        receivedAt: Number(e.at_ms),
      })),
      state: { last_event_id: String(events.at(-1)?.event_id) },
    });
  }
  for (const [, pass] of groupBy(rows.observations, (o) => `${o.source} ${o.at_ms}`)) {
    const first = pass[0] as Row;
    add(Number(first.at_ms) * 1000, {
      source: String(first.source),
      observations: pass.map((o, index) => ({
        appId: 730,
        observedAt: Number(o.at_ms),
        via: o.via as 'poll' | 'sweep',
        passId: String(o.pass_id),
        page: Math.floor(index / 200),
        index: index % 200,
        listingId: (JSON.parse(String(o.listing)) as Listing).id,
        data: String(o.listing),
      })),
    });
  }
  for (const [, gone] of groupBy(rows.gone, (g) => String(g.at_ms))) {
    add(Number(gone[0]?.at_ms) * 1000, {
      source: 'sweep:730',
      gone: gone.map((g) => ({
        appId: 730,
        listingId: String(g.listing_id),
        detectedAt: Number(g.at_ms),
        via: 'sweep',
      })),
    });
  }
  for (const fetch of rows.fetches)
    add(Number(fetch.fetched_ms) * 1000, await snapshotBatch(fetch, rows.prices, dir));
  for (const [, list] of groupBy(rows.minask, (r) => `${r.app_id} ${r.fetched_ms}`)) {
    const first = list[0] as Row;
    add(Number(first.fetched_ms) * 1000, {
      source: `prices:${first.app_id}`,
      minask: {
        appId: Number(first.app_id),
        fetchedAt: Number(first.fetched_ms),
        generatedAt: Number(first.generated_ms),
        rows: list.map(priceRow),
      },
    });
  }
  for (const [, rates] of groupBy(rows.fx, (r) => String(r.fetched_ms))) {
    const first = rates[0] as Row;
    add(Number(first.fetched_ms) * 1000, {
      source: 'fx',
      fx: {
        updatedAt: Number(first.updated_ms),
        fetchedAt: Number(first.fetched_ms),
        rates: Object.fromEntries(rates.map((r) => [String(r.currency), Number(r.rate)])),
      },
    });
  }
  const tables: Record<string, number> = {};
  for (const second of [...seconds.keys()].sort((a, b) => a - b)) {
    // Committed within the next second, like the batch writer's flushes.
    clock.now = (w0 + (second + 1) * 1_000_000) / 1000 + 100;
    const summary = await warehouse.write(seconds.get(second) ?? []);
    for (const load of summary.loads) {
      for (const [table, n] of Object.entries(load.tables)) tables[table] = (tables[table] ?? 0) + n;
      tables.loads = (tables.loads ?? 0) + 1;
    }
  }
  return { writes: seconds.size, tables };
}

/** Every row the plan has in [w0, w1), read from the warehouse's live set and the plan's arithmetic. */
async function readMinute(warehouse: Warehouse, plan: WarehousePlan, w0: number, w1: number) {
  return warehouse.withConnection(async (connection) => {
    await prepareConnection(connection, plan);
    const step = (plan.endUs - plan.startUs) / plan.listings;
    const lo = Math.max(0, Math.floor((w0 - plan.startUs) / step) - 2);
    const hi = Math.ceil((w1 - plan.startUs) / step) + 2;
    // Only live listings can leave or be seen; listings first seen in the minute join them.
    await connection.run(
      planTableSql(
        plan,
        `SELECT b_seq(listing_id) AS seq FROM live_listings WHERE app_id = 730 UNION SELECT range FROM range(${lo}, ${hi})`,
      ),
    );
    const read = async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJS() as Row[];
    const landed = await read('SELECT count(*)::DOUBLE AS n FROM listing_events');
    const first = Number(landed[0]?.n) + 1;
    const ms = (column: string) => `(${column} / 1000)::DOUBLE`;
    const rows = {
      events: await read(
        `SELECT event_id, kind, listing_id, ${ms('t_at')} AS at_ms, CASE WHEN kind = 'new' THEN ${LISTING_JSON} END AS listing
         FROM (${eventsSql(plan, w0, w1, first)}) ORDER BY t_at, seq, kind`,
      ),
      observations: await read(
        `SELECT via, pass_id, source, ${ms('t_at')} AS at_ms, ${LISTING_JSON} AS listing
         FROM (${observationsSql(plan, w0, w1)}) ORDER BY t_at, seq`,
      ),
      gone: await read(
        `SELECT listing_id, ${ms('t_at')} AS at_ms FROM (${goneSql(w0, w1)}) ORDER BY t_at, listing_id`,
      ),
      fetches: await read(
        `SELECT m::DOUBLE AS m, ${ms('fetched')} AS fetched_ms, ${ms('generated')} AS generated_ms, unchanged, etag
         FROM (${snapshotFetchesSql(plan, w0, w1)}) ORDER BY m`,
      ),
      prices: await read(
        `SELECT m::DOUBLE AS m, ${PRICE_ROW} FROM (${snapshotRowsSql(plan, w0, w1)}) ORDER BY m`,
      ),
      minask: await read(
        `SELECT app_id, ${ms('fetched')} AS fetched_ms, ${ms('generated')} AS generated_ms, ${PRICE_ROW}
         FROM (${minAskSql(plan, w0, w1)}) ORDER BY fetched, app_id, market_hash_name`,
      ),
      fx: await read(
        `SELECT currency, rate, ${ms('updated')} AS updated_ms, ${ms('fetched')} AS fetched_ms
         FROM (${fxSql(plan, w0, w1)}) ORDER BY fetched, currency`,
      ),
    };
    await connection.run('DROP TABLE bench_plan');
    return rows;
  });
}

/** The snapshot fetch of one minute: a 304, or the file of its rows written to `dir`. */
async function snapshotBatch(fetch: Row, prices: readonly Row[], dir: string): Promise<WarehouseBatch> {
  const etag = String(fetch.etag);
  const fetchedAt = Number(fetch.fetched_ms);
  if (fetch.unchanged) return { source: 'snapshot', snapshot: { status: 'unchanged', etag, fetchedAt } };
  const file = join(dir, `snapshot-${fetch.m}.ndjson`);
  const lines = prices.filter((p) => p.m === fetch.m).map((p) => JSON.stringify(priceRow(p)));
  await writeFile(file, `${lines.join('\n')}\n`);
  return {
    source: 'snapshot',
    snapshot: { status: 'downloaded', etag, generatedAt: Number(fetch.generated_ms), fetchedAt, file },
    state: { etag },
  };
}

function priceRow(row: Row): PriceRow {
  return {
    market_hash_name: String(row.market_hash_name),
    wear: (row.wear ?? null) as PriceRow['wear'],
    doppler_phase: (row.doppler_phase ?? null) as string | null,
    min_ask_usd: Number(row.min_ask_usd),
    listed_count: Number(row.listed_count),
  };
}

function secondOf(row: Row, w0: number): number {
  return Math.floor((Number(row.at_ms) * 1000 - w0) / 1_000_000);
}

function groupBy<K>(rows: readonly Row[], key: (row: Row) => K): Map<K, Row[]> {
  const groups = new Map<K, Row[]>();
  for (const row of rows) groups.set(key(row), [...(groups.get(key(row)) ?? []), row]);
  return groups;
}
