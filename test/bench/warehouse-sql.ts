/**
 * The SQL that makes a generated warehouse's rows: every listing is a pure function of its
 * sequence number (hashed, so any window of time can be produced on its own and agrees with every
 * other), and each SELECT here yields the landing rows of one window [w0, w1) of microseconds.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { BASE_RATES } from '../../src/service/market/prices/fx-rates.js';
import type { BenchSticker } from './warehouse-groups.js';

/** The fixed shape of a generated warehouse. Times are epoch microseconds. */
export interface WarehousePlan {
  startUs: number;
  /** End of the generated data; one more minute starts here. */
  endUs: number;
  /** Listings first seen in [startUs, endUs); listing n first appears at about start + n * step. */
  listings: number;
  groups: number;
  /** Prefix of the stream's event ids, `<logId>-<n>`. */
  logId: string;
}

/** Added to a listing's number to make its id (`c` + 10 base-36 digits, as the service makes them). */
const SEQUENCE_OFFSET = 1_000_000;
const MINUTE = 60_000_000;
/** The collector's default CS2 sweep interval: every live listing is read again this often. */
export const SWEEP_US = 600_000_000;
/** Mean life of the 1 % of listings that stay long, ms. */
const LONG_LIFE_MS = 604_800_000;

/** Defines the macros the SELECTs below use, on `connection` (temporary, so on each connection). */
export async function defineMacros(
  connection: DuckDBConnection,
  plan: WarehousePlan,
  stickers: readonly BenchSticker[],
): Promise<void> {
  const step = (plan.endUs - plan.startUs) / plan.listings;
  const digits = Array.from({ length: 10 }, (_, k) => {
    const power = `${36 ** (9 - k)}`;
    return `substr('0123456789abcdefghijklmnopqrstuvwxyz', CAST(((s + ${SEQUENCE_OFFSET}) // ${power}) % 36 AS INTEGER) + 1, 1)`;
  }).join(' || ');
  const parse = Array.from(
    { length: 10 },
    (_, k) => `(strpos('0123456789abcdefghijklmnopqrstuvwxyz', id[${k + 2}]) - 1) * ${36 ** (9 - k)}`,
  ).join(' + ');
  const pool = `[${stickers.map((s) => `{'name': ${sqlText(s.name)}, 'image': ${sqlText(s.image)}}`).join(', ')}]`;
  const macros = [
    // A uniform number in [0, 1) for (x, salt).
    'bu(x, salt) AS (hash(CAST(x AS BIGINT), CAST(salt AS INTEGER)) >> 11)::DOUBLE / 9007199254740992.0',
    'bts(us) AS make_timestamp(CAST(us AS BIGINT))',
    `b_listing_id(s) AS 'c' || ${digits}`,
    `b_seq(id) AS CAST(${parse} AS BIGINT) - ${SEQUENCE_OFFSET}`,
    'b_uuid(key) AS CAST(CAST(md5(key) AS UUID) AS VARCHAR)',
    `b_t_new(s) AS ${plan.startUs} + CAST(floor((s + 0.98 * bu(s, 1)) * ${step} / 1000) AS BIGINT) * 1000`,
    // Lifetimes of a minute to days, averaging 1.5 h: most short, a tail of long ones; 1 % stay
    // about a week (so the live set stays about as large however long the history).
    `b_life(s) AS CAST(floor(60000 - ln(1 - bu(s, 3)) * CASE WHEN bu(s, 4) < 0.01 THEN ${LONG_LIFE_MS}
       WHEN bu(s, 2) < 0.9 THEN 3300000 ELSE 23700000 END) AS BIGINT) * 1000`,
    "b_fate(s) AS CASE WHEN bu(s, 4) >= 0.01 AND bu(s, 4) < 0.013 THEN 'swept' ELSE 'gone' END",
    // A listing's place in a sweep pass: the pass reads the catalogue over its first minute.
    'b_sweep_offset(s) AS CAST(floor(bu(s, 15) * 60) AS BIGINT) * 1000000 + 100000',
    'b_drift(g, us) AS 1 + 0.06 * sin(2 * pi() * us / 604800e6 + g)',
    // The sticker list is a constant outside the lambdas: inside one, DuckDB would build it per element.
    `b_stickers(s) AS list_transform(
       list_select(${pool}, list_transform(range(1 + CAST(floor(bu(s, 16) * 4) AS BIGINT)),
         lambda k: 1 + CAST(floor(${stickers.length} * bu(s * 5 + k, 17) ^ 2) AS BIGINT))),
       lambda st, i: {'name': st.name, 'image': st.image,
         'slot': CAST((CAST(floor(bu(s, 18) * 5) AS BIGINT) + i - 1) % 5 AS INTEGER),
         'wear': CASE WHEN bu(s * 5 + i, 19) < 0.7 THEN 0.0 ELSE round(0.01 + 0.99 * bu(s * 5 + i, 20), 4) END::DOUBLE})`,
  ];
  for (const macro of macros) await connection.run(`CREATE OR REPLACE TEMP MACRO ${macro}`);
}

/**
 * Creates the temp table `bench_plan` for the listing numbers `fromSql` yields (a query with a
 * column `seq`): when each is first seen and leaves, its group, when a poll sees it, and its first
 * page item (a poll's or a sweep's), the one whose text the warehouse stores: every later page item
 * of the listing is byte-identical (a listing's fields never change), so it lands as a repeat.
 * Sweep passes start every {@link SWEEP_US} from the plan's start, so a pass never straddles a
 * generated window.
 */
export function planTableSql(plan: WarehousePlan, fromSql: string): string {
  const pass = (at: string) =>
    `${plan.startUs} + CAST(floor(((${at}) - ${plan.startUs}) / ${SWEEP_US}) AS BIGINT) * ${SWEEP_US}`;
  return `CREATE OR REPLACE TEMP TABLE bench_plan AS
    SELECT *,
           CASE WHEN poll_at IS NOT NULL AND poll_at <= coalesce(first_sweep_at, 9e18) THEN poll_at ELSE first_sweep_at END
             AS first_item_at,
           CASE WHEN poll_at IS NOT NULL AND poll_at <= coalesce(first_sweep_at, 9e18) THEN 'poll' ELSE 'sweep' END
             AS first_item_via,
           CASE WHEN poll_at IS NOT NULL AND poll_at <= coalesce(first_sweep_at, 9e18) THEN 'poll-' || (poll_at // 1000 - 200)
             ELSE 'sweep-730-' || ((first_sweep_at - b_sweep_offset(seq)) // 1000) END AS first_item_pass_id
    FROM (
      SELECT seq, t_new, fate, g.idx AS grp, t_new + life AS t_gone,
             CASE WHEN fate = 'swept' THEN ${pass('t_new + life')} + ${SWEEP_US + 61_000_000} END AS detected,
             CASE WHEN bu(seq, 12) < 0.07 AND (t_new // 30000000 + 1) * 30000000 + 200000 < t_new + life
               THEN (t_new // 30000000 + 1) * 30000000 + 200000 END AS poll_at,
             CASE WHEN first_sweep < t_new + life THEN first_sweep END AS first_sweep_at
      FROM (
        SELECT seq, b_t_new(seq) AS t_new, b_life(seq) AS life, b_fate(seq) AS fate, bu(seq, 5) AS pick,
               ${pass(`b_t_new(seq) - b_sweep_offset(seq)`)} + ${SWEEP_US} + b_sweep_offset(seq) AS first_sweep
        FROM (${fromSql})
      ) p
      ASOF JOIN bench.groups g ON p.pick >= g.cum_lo
    )
    ORDER BY seq`;
}

/** The listing columns of a landing table for plan row `p` of group `g`; null unless `when` holds. */
export function listingColumnsSql(when = 'true'): string {
  const hold = 'bu(p.seq, 10) >= 0.85';
  const skin = 'g.float_min IS NOT NULL';
  const listed = '(p.t_new // 1000 - 50 - CAST(floor(bu(p.seq, 27) * 400) AS BIGINT)) * 1000';
  const columns: Record<string, string> = {
    market_hash_name: 'g.market_hash_name',
    wear: 'g.wear',
    doppler_phase: 'g.doppler_phase',
    float_value: `CASE WHEN ${skin} THEN least(g.float_max, CAST(g.float_min + bu(p.seq, 6) * (g.float_max - g.float_min) AS FLOAT)::DOUBLE) END`,
    paint_seed: `CASE WHEN ${skin} THEN CAST(floor(bu(p.seq, 22) * 1001) AS INTEGER) END`,
    stickers: 'CASE WHEN g.takes_stickers AND bu(p.seq, 7) < 0.2 THEN b_stickers(p.seq) ELSE [] END',
    price_usd:
      'CAST(greatest(3, round(g.price_cents * (0.92 + 0.2 * bu(p.seq, 9)) * b_drift(g.idx, p.t_new))) / 100 AS DECIMAL(18, 2))',
    category: 'g.category',
    rarity: 'g.rarity',
    image: 'g.image',
    inspect_link: `CASE WHEN ${skin} THEN 'steam://rungame/730/76561202255233023/+csgo_econ_action_preview%20S76561198'
      || (100000000 + CAST(floor(bu(p.seq, 23) * 9e8) AS BIGINT)) || 'A' || (10 + CAST(floor(bu(p.seq, 24) * 40) AS BIGINT))
      || (100000000 + CAST(floor(bu(p.seq, 25) * 9e8) AS BIGINT)) || 'D' || (1000000000 + CAST(floor(bu(p.seq, 26) * 9e9) AS BIGINT))
      || (100000000 + CAST(floor(bu(p.seq, 28) * 9e8) AS BIGINT)) END`,
    tradable: `NOT ${hold}`,
    tradable_at: `CASE WHEN ${hold} THEN bts(${listed} + (24 + CAST(floor(bu(p.seq, 29) * 169) AS BIGINT)) * 3600000000) END`,
    delivery: `CASE WHEN bu(p.seq, 10) < 0.6 THEN 'instant' WHEN NOT ${hold} THEN 'up_to_12h' ELSE 'hold' END`,
    refund_percent:
      'CASE WHEN bu(p.seq, 11) < 0.3 THEN NULL WHEN bu(p.seq, 11) < 0.405 THEN 0 WHEN bu(p.seq, 11) < 0.545 THEN 50 WHEN bu(p.seq, 11) < 0.72 THEN 80 ELSE 100 END::DOUBLE',
    listed_at: `bts(${listed})`,
  };
  return Object.entries(columns)
    .map(([name, sql]) =>
      when === 'true' ? `${sql} AS ${name}` : `CASE WHEN ${when} THEN ${sql} END AS ${name}`,
    )
    .join(',\n');
}

/** Stream events of the window, numbered from `firstPosition`, with their time `t_at`. */
export function eventsSql(plan: WarehousePlan, w0: number, w1: number, firstPosition: number): string {
  return `SELECT '${plan.logId}-' || (${firstPosition - 1} + row_number() OVER (ORDER BY p.t_at, p.seq, p.kind)) AS event_id,
           p.kind, b_listing_id(p.seq) AS listing_id, 730 AS app_id, ${listingColumnsSql("p.kind = 'new'")},
           bts(p.t_at) AS received_at, p.t_at, p.seq
    FROM (
      SELECT seq, grp, t_new, 'new' AS kind, t_new AS t_at FROM bench_plan WHERE t_new >= ${w0} AND t_new < ${w1}
      UNION ALL
      SELECT seq, grp, t_new, 'gone', t_gone FROM bench_plan WHERE fate = 'gone' AND t_gone >= ${w0} AND t_gone < ${w1}
    ) p JOIN bench.groups g ON g.idx = p.grp`;
}

/**
 * Poll and sweep sightings of the window (only while the listing is live), with `t_at`, `source`
 * and `first` (the listing's first page item, stored; the others repeat it). Every sweep pass reads
 * every live listing.
 */
export function observationsSql(plan: WarehousePlan, w0: number, w1: number): string {
  const k0 = Math.floor((w0 - plan.startUs) / SWEEP_US) - 1;
  const k1 = Math.ceil((w1 - plan.startUs) / SWEEP_US);
  return `SELECT 730 AS app_id, b_listing_id(p.seq) AS listing_id, ${listingColumnsSql()},
           bts(p.t_at) AS observed_at, p.via, p.pass_id, p.t_at, p.seq, p.source,
           p.t_at = p.first_item_at AND p.via = p.first_item_via AS first, p.first_item_via, p.first_item_pass_id
    FROM (
      SELECT seq, grp, t_new, poll_at AS t_at, 'poll' AS via, 'poll-' || (poll_at // 1000 - 200) AS pass_id,
             'poll:730' AS source, first_item_at, first_item_via, first_item_pass_id
      FROM bench_plan WHERE poll_at >= ${w0} AND poll_at < ${w1}
      UNION ALL
      SELECT seq, grp, t_new, t_at, 'sweep', 'sweep-730-' || (pass // 1000), 'sweep:730', first_item_at, first_item_via,
             first_item_pass_id
      FROM (
        SELECT b.*, ${plan.startUs} + k * ${SWEEP_US} AS pass, ${plan.startUs} + k * ${SWEEP_US} + b_sweep_offset(seq) AS t_at
        FROM (SELECT * FROM bench_plan WHERE t_new < ${w1} AND t_gone > ${w0 - SWEEP_US}) b, range(${k0}, ${k1}) r(k)
      )
      WHERE t_at >= ${w0} AND t_at < ${w1} AND t_at > t_new AND t_at < t_gone
    ) p JOIN bench.groups g ON g.idx = p.grp`;
}

/** Listings a sweep of the window found gone (their `gone` event was missed). */
export function goneSql(w0: number, w1: number): string {
  return `SELECT 730 AS app_id, b_listing_id(seq) AS listing_id, bts(detected) AS detected_at, 'sweep' AS via,
           detected AS t_at
    FROM bench_plan WHERE fate = 'swept' AND detected >= ${w0} AND detected < ${w1}`;
}

/** One snapshot fetch per minute of the window: about 1 in 20 a 304 (the ETag of the minute before). */
export function snapshotFetchesSql(plan: WarehousePlan, w0: number, w1: number): string {
  const etag = (m: string) =>
    `'"' || rtrim(replace(replace(to_base64(unhex(sha256('snapshot:' || ${m}))), '+', '-'), '/', '_'), '=') || '"'`;
  const m0 = Math.ceil((w0 - plan.startUs - 1_200_000) / MINUTE);
  const m1 = Math.ceil((w1 - plan.startUs) / MINUTE) + 1;
  return `SELECT m, fetched, fetched - 2000000 - CAST(floor(bu(m, 31) * 6000) AS BIGINT) * 1000 AS generated,
           unchanged, CASE WHEN unchanged THEN ${etag('(m - 1)')} ELSE ${etag('m')} END AS etag
    FROM (
      SELECT m, ${plan.startUs} + m * ${MINUTE} + 200000 + CAST(floor(bu(m, 30) * 1000) AS BIGINT) * 1000 AS fetched,
             bu(m, 32) < 0.05 AND bu(m - 1, 32) >= 0.05 AS unchanged
      FROM range(${m0}, ${m1}) r(m)
    ) WHERE fetched >= ${w0} AND fetched < ${w1}`;
}

/**
 * The rows of the snapshots downloaded in the window. A group's line changes every 2 to 8 minutes
 * (its period, at a phase of its own): within one such epoch it is present or not, with
 * probability 1 - e^-expected listings, and its listed count and cheapest ask near the group's
 * typical price stay the same, so every line after the epoch's first downloaded one (`first_m`) is
 * byte-identical to it (`repeat`).
 */
export function snapshotRowsSql(plan: WarehousePlan, w0: number, w1: number): string {
  const perMinute = plan.listings / ((plan.endUs - plan.startUs) / MINUTE);
  // Live listings: 1.5 hours of arrivals, and the 1 % that stay about a week.
  const live = `${perMinute * 190}`;
  const downloaded = (m: string) => `NOT (bu(${m}, 32) < 0.05 AND bu(${m} - 1, 32) >= 0.05)`;
  return `SELECT *, m > first_m AS repeat FROM (
    SELECT m, etag, generated, fetched, grp, market_hash_name, wear, doppler_phase,
           CAST(greatest(3, round(price_cents * 0.9 * b_drift(grp, ${plan.startUs} + epoch_start * ${MINUTE})
             * (0.97 + 0.03 * bu(epoch * 100003 + grp, 35)))) / 100 AS DECIMAL(18, 2)) AS min_ask_usd,
           CAST(greatest(1, round(share * ${live} * (0.6 + 0.8 * bu(epoch * 100003 + grp, 36)))) AS INTEGER) AS listed_count,
           greatest(CASE WHEN ${downloaded('epoch_start')} THEN epoch_start ELSE epoch_start + 1 END,
                    CASE WHEN ${downloaded('0')} THEN 0 ELSE 1 END) AS first_m
    FROM (
      SELECT f.*, g.idx AS grp, g.market_hash_name, g.wear, g.doppler_phase, g.price_cents, g.share,
             (f.m + g.phase) // g.period AS epoch, (f.m + g.phase) // g.period * g.period - g.phase AS epoch_start
      FROM (${snapshotFetchesSql(plan, w0, w1)}) f
      CROSS JOIN (SELECT *, 2 + idx % 7 AS period, CAST(floor(bu(idx, 38) * (2 + idx % 7)) AS BIGINT) AS phase FROM bench.groups) g
      WHERE NOT f.unchanged
    )
    WHERE bu(epoch * 100003 + grp, 34) < 1 - exp(-share * ${live})
  )`;
}

/** The minAsk price lists of Dota 2 and Rust read in the window (every 5 minutes). */
export function minAskSql(plan: WarehousePlan, w0: number, w1: number): string {
  return `SELECT i.app_id, f.fetched, f.fetched - 10000000 - CAST(floor(bu(f.m * 7 + i.app_id, 40) * 120) AS BIGINT) * 1000000 AS generated,
           i.market_hash_name, NULL::VARCHAR AS wear, NULL::VARCHAR AS doppler_phase,
           CAST(greatest(3, round(i.price_cents * b_drift(i.idx, f.fetched) * (0.9 + 0.1 * bu(f.m * 1009 + i.idx, 41)))) / 100
                AS DECIMAL(18, 2)) AS min_ask_usd,
           CAST(1 + floor(40 * i.share * bu(f.m * 1009 + i.idx, 42)) AS INTEGER) AS listed_count, f.m
    FROM (${everyFiveMinutes(plan, w0, w1, 2_000_000)}) f CROSS JOIN bench.minask_items i`;
}

/** The FX rates read in the window (every 5 minutes): each currency drifts slowly around its base. */
export function fxSql(plan: WarehousePlan, w0: number, w1: number): string {
  // The service's currencies and base rates; USD is the base, not a rate.
  const currencies = Object.entries(BASE_RATES)
    .filter(([code]) => code !== 'USD')
    .map(([code, rate], i) => `('${code}', ${rate}, ${i})`)
    .join(', ');
  return `SELECT c.code AS currency,
           round(c.base * exp(0.01 * sin(2 * pi() * f.fetched / 777600e6 + c.i) + 0.004 * sin(2 * pi() * f.fetched / 112320e6 + 2 * c.i)), 6) AS rate,
           f.minute AS updated, f.fetched, f.m
    FROM (${everyFiveMinutes(plan, w0, w1, 3_000_000)}) f
    CROSS JOIN (VALUES ${currencies}) c(code, base, i)`;
}

function everyFiveMinutes(plan: WarehousePlan, w0: number, w1: number, offset: number): string {
  const m0 = Math.ceil((w0 - plan.startUs - 2 * offset) / MINUTE);
  const m1 = Math.ceil((w1 - plan.startUs) / MINUTE);
  return `SELECT m, minute, minute + ${offset} + CAST(floor(bu(m, ${offset / 1_000_000 + 50}) * 500) AS BIGINT) * 1000 AS fetched
    FROM (SELECT m, ${plan.startUs} + m * ${MINUTE} AS minute FROM range(${m0}, ${m1}) r(m) WHERE m % 5 = 0)
    WHERE minute + ${offset} >= ${w0} AND minute + ${offset} < ${w1}`;
}

function sqlText(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
