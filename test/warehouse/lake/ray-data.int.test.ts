/**
 * The lake read past one machine: four days of a real market (the real service and collector, one
 * short run a day) land in a warehouse, `market lake move` sends the days before the fourth to the
 * lake, and a Ray cluster of three nodes on 127.0.0.1 reads it with Ray Data (Hive partitioning, a
 * partition filter on the day) and computes what DuckDB computes from the warehouse, exactly. Where Ray cannot be installed
 * the Ray tests skip and say why; the lake's own checks run anyway.
 */
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { projectPath } from '../../../src/shared/project-root.js';
import { Warehouse } from '../../../src/warehouse/index.js';
import { type LakeManifest, readLakeManifest } from '../../../src/warehouse/lake/index.js';
import { runMarket } from '../../helpers/cli.js';
import { collectMarketDays } from '../../helpers/market-days.js';
import {
  prepareRayPython,
  type RayCluster,
  type RayPython,
  runRayScript,
  startRayCluster,
} from '../../helpers/ray.js';

/** One run a day at 10:00 UTC, far from midnight: every time a row carries falls on its run's day. */
const RUNS = ['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04'].map((day) => `${day}T10:00:00.000Z`);
/** The move: the first three days go to the lake, the fourth stays hot. */
const BEFORE = '2026-11-04T00:00:00.000Z';
const LAKE_DAYS = ['2026-11-01', '2026-11-02', '2026-11-03'];
/** The partition filter: the days from this one on (two of the lake's three). */
const SINCE = '2026-11-02';
const BUCKETS = 20;

const VENV = projectPath('data', 'ray-venv');
const LAUNCHER = fileURLToPath(new URL('ray_cluster.py', import.meta.url));
const READER = fileURLToPath(new URL('ray_read.py', import.meta.url));

/** What ray_read.py prints. */
interface RayAnswer {
  nodes: { address: string; id: string }[];
  files_read: string[];
  worked_on: string[];
  listings: Record<string, unknown>[];
  minask: Record<string, unknown>[];
  histogram: Record<string, unknown>[];
}

/** DuckDB's answers to the same questions, over the same days. */
interface Answers {
  listings: Record<string, unknown>[];
  minask: Record<string, unknown>[];
  histogram: Record<string, unknown>[];
}

let dir: string;
let lake: string;
let manifest: LakeManifest;
let fromWarehouse: Answers;
/** The same answers read from the warehouse after the move (its hot rows and the lake together). */
let afterMove: Answers;
let item: string;
let ray: RayPython;
let cluster: RayCluster | null = null;
let answer: RayAnswer | null = null;

/** Rows in one order, whatever order a side computed them in (and named their columns in). */
function sorted(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  const key = (row: Record<string, unknown>) => JSON.stringify(row, Object.keys(row).sort());
  return [...rows].sort((a, b) => (key(a) < key(b) ? -1 : 1));
}

/**
 * DuckDB's answers over `events` and `minask` (SQL relations of stg_listing_events and
 * fct_minask_hourly rows, each with a `date` column), for the days from SINCE on.
 */
async function computeAnswers(
  warehouse: Warehouse,
  events: string,
  minask: string,
  itemName: string,
): Promise<Answers> {
  const listings = await warehouse.query(
    `SELECT CAST(date AS VARCHAR) AS date, market_hash_name, wear, doppler_phase,
       CAST(min(price_usd) * 100 AS BIGINT) AS min_ask_cents, count(*) AS listings
     FROM ${events} WHERE kind = 'new' AND date >= DATE '${SINCE}' GROUP BY ALL`,
  );
  const minaskDays = await warehouse.query(
    `SELECT CAST(date AS VARCHAR) AS date, app_id, market_hash_name, wear, doppler_phase,
       CAST(min(service_min_ask_low_usd) * 100 AS BIGINT) AS min_ask_cents,
       max(service_listed_count_close) AS max_listed, CAST(sum(minutes) AS BIGINT) AS minutes
     FROM ${minask} WHERE date >= DATE '${SINCE}' GROUP BY ALL`,
  );
  const histogram = await warehouse.query(
    `SELECT CAST(floor(float_value * ${BUCKETS}) AS BIGINT) AS bucket, count(*) AS listings
     FROM ${events}
     WHERE kind = 'new' AND date >= DATE '${SINCE}' AND float_value IS NOT NULL
       AND market_hash_name = '${itemName.replaceAll("'", "''")}'
     GROUP BY ALL`,
  );
  return { listings: sorted(listings), minask: sorted(minaskDays), histogram: sorted(histogram) };
}

/** DuckDB's answers over the warehouse's rows of the days the move sends to the lake. */
function lakeDaysAnswers(warehouse: Warehouse): Promise<Answers> {
  const before = `TIMESTAMP '${BEFORE.slice(0, 19)}'`;
  return computeAnswers(
    warehouse,
    `(SELECT *, CAST(received_at AS DATE) AS date FROM stg_listing_events WHERE received_at < ${before})`,
    `(SELECT *, CAST(hour AS DATE) AS date FROM fct_minask_hourly WHERE hour < ${before})`,
    item,
  );
}

/**
 * A relation of the lake as any reader sees it: the manifest's files, a day file's day from its path,
 * a month file's from the time column (engines refuse `date=` and `month=` folders in one Hive read).
 */
function lakeRelation(relation: string, time: string): string {
  const files = manifest.relations[relation] ?? [];
  const list = (month: boolean) =>
    files
      .filter((f) => (f.through !== undefined) === month)
      .map((f) => `'${join(lake, f.path)}'`)
      .join(', ');
  const reads = [
    ...(list(false) ? [`SELECT * FROM read_parquet([${list(false)}], hive_partitioning = true)`] : []),
    ...(list(true) ? [`SELECT *, CAST(${time} AS DATE) AS date FROM read_parquet([${list(true)}])`] : []),
  ];
  return `(${reads.join(' UNION ALL BY NAME ')})`;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ray-'));
  lake = join(dir, 'lake');
  const warehouseFile = join(dir, 'warehouse.duckdb');
  ray = await prepareRayPython(VENV);
  if ('skipped' in ray) process.stderr.write(`the Ray Data tests are skipped: ${ray.skipped}\n`);
  // The cluster starts while the market is collected.
  const starting =
    'python' in ray ? startRayCluster(ray.python, LAUNCHER, dir).then((c) => (cluster = c)) : null;
  try {
    await collectMarketDays(warehouseFile, { runs: RUNS });
    const warehouse = await Warehouse.open(warehouseFile, { readOnly: true });
    try {
      const [top] = await warehouse.query(
        `SELECT market_hash_name FROM stg_listing_events
         WHERE kind = 'new' AND float_value IS NOT NULL AND CAST(received_at AS DATE) BETWEEN DATE '${SINCE}' AND DATE '${LAKE_DAYS.at(-1)}'
         GROUP BY ALL ORDER BY count(*) DESC, market_hash_name LIMIT 1`,
      );
      item = String(top?.market_hash_name);
      fromWarehouse = await lakeDaysAnswers(warehouse);
    } finally {
      await warehouse.close();
    }
    const moved = await runMarket([
      'lake',
      'move',
      '--warehouse',
      warehouseFile,
      '--lake',
      lake,
      '--before',
      BEFORE,
    ]);
    if (moved.code !== 0) throw new Error(`market lake move exited ${moved.code}: ${moved.stderr}`);
    manifest = await readLakeManifest(lake);
    const after = await Warehouse.open(warehouseFile, { readOnly: true });
    try {
      afterMove = await lakeDaysAnswers(after);
    } finally {
      await after.close();
    }
  } finally {
    await starting;
  }
  if (cluster && 'python' in ray)
    answer = await runRayScript<RayAnswer>(
      ray.python,
      READER,
      [
        '--address',
        cluster.address,
        '--lake',
        lake,
        '--since',
        SINCE,
        '--item',
        item,
        '--buckets',
        String(BUCKETS),
      ],
      dir,
    );
}, 600_000);

afterAll(async () => {
  await cluster?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the lake of a collected warehouse', () => {
  it('holds the days before the move, one zstd parquet file per relation and day (a month for a sorted model), each listed in the manifest', async () => {
    for (const relation of [
      'stg_listing_events',
      'fct_minask_hourly',
      'raw_listing_events',
      'raw_price_snapshots',
    ]) {
      const files = manifest.relations[relation] ?? [];
      // fct_minask_hourly is sorted by item group: its days are one file of their month.
      const month = relation === 'fct_minask_hourly';
      expect(
        files.map((f) => [f.date, f.through ?? f.date]),
        relation,
      ).toEqual(month ? [[LAKE_DAYS[0], LAKE_DAYS.at(-1)]] : LAKE_DAYS.map((d) => [d, d]));
      for (const file of files) {
        expect(file.path).toBe(
          month
            ? `${relation}/month=${file.date.slice(0, 7)}/part-0.parquet`
            : `${relation}/date=${file.date}/part-0.parquet`,
        );
        expect(statSync(join(lake, file.path)).size).toBe(file.bytes);
        expect(file.rows).toBeGreaterThan(0);
      }
    }
    expect(existsSync(join(lake, 'stg_listing_events', 'date=2026-11-04'))).toBe(false);
    // The move, then the merge of its month's days of the sorted models.
    expect(manifest.moves.map((m) => m.before)).toEqual([BEFORE, BEFORE]);
    expect(manifest.moves.at(-1)?.merged).toContain('fct_minask_hourly');
  });

  it('read by DuckDB through its manifest, gives the answers of the warehouse', async () => {
    const warehouse = await Warehouse.open(':memory:', { readOnly: false });
    try {
      const fromLake = await computeAnswers(
        warehouse,
        lakeRelation('stg_listing_events', 'received_at'),
        lakeRelation('fct_minask_hourly', 'hour'),
        item,
      );
      expect(fromWarehouse.listings.length).toBeGreaterThan(100);
      expect(fromWarehouse.minask.length).toBeGreaterThan(100);
      expect(fromWarehouse.histogram.length).toBeGreaterThan(0);
      expect(fromLake).toEqual(fromWarehouse);
      // The warehouse itself answers as before the move: its views read the hot rows and the lake.
      expect(afterMove).toEqual(fromWarehouse);
    } finally {
      await warehouse.close();
    }
  });
});

describe('the lake read by Ray Data on a cluster of three nodes', () => {
  /** Ray's answer, or a skip saying why there is none. */
  function rayAnswer(context: TestContext): RayAnswer {
    if ('skipped' in ray) context.skip(ray.skipped);
    if (!answer || 'skipped' in ray) throw new Error(`no answer from Ray:\n${cluster?.log() ?? ''}`);
    return answer;
  }

  it('runs a head and two worker nodes, every one at 127.0.0.1', (context) => {
    const { nodes } = rayAnswer(context);
    expect(nodes).toHaveLength(3);
    expect(new Set(nodes.map((n) => n.id)).size).toBe(3);
    expect(nodes.every((n) => n.address === '127.0.0.1')).toBe(true);
  });

  it('reads only the listed files of the days the partition filter keeps, each on a node of its own', (context) => {
    const { files_read, worked_on, nodes } = rayAnswer(context);
    const kept = ['stg_listing_events', 'fct_minask_hourly'].flatMap((relation) =>
      (manifest.relations[relation] ?? []).filter((f) => (f.through ?? f.date) >= SINCE).map((f) => f.path),
    );
    // Two days of events, and the month of fct_minask_hourly holding them.
    expect(kept).toHaveLength(3);
    expect(files_read).toEqual(kept.sort());
    // Three files pinned to three nodes in turn.
    expect(worked_on).toEqual(nodes.map((n) => n.id).sort());
  });

  it('gives per day and item group the cheapest listing and the listings count DuckDB gives', (context) => {
    expect(sorted(rayAnswer(context).listings)).toEqual(fromWarehouse.listings);
  });

  it("gives per day and item group fct_minask_hourly's lowest minAsk, most listed at an hour's close and minutes as DuckDB does", (context) => {
    expect(sorted(rayAnswer(context).minask)).toEqual(fromWarehouse.minask);
  });

  it('gives the float histogram of one item DuckDB gives', (context) => {
    expect(sorted(rayAnswer(context).histogram)).toEqual(fromWarehouse.histogram);
  });
});
