import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findMigrationsDir, isWarehouseLockedError, Warehouse } from '../../src/warehouse/index.js';
import { selectListingColumns } from '../../src/warehouse/landing/sql.js';
import { LISTING_TYPE } from '../../src/warehouse/typing/listing-shape.js';
import { goneEvent, makeTempDir, newEvent, observation, startScript, stopScripts, T0 } from './fixtures.js';

/** The landing tables, and the bookkeeping of migrations and models. */
const WAREHOUSE_TABLES = [
  'account_states',
  'account_states_typed',
  'account_transactions',
  'account_transactions_typed',
  'collector_state',
  'event_watermarks',
  'fx_rates',
  'fx_rates_typed',
  'ingest_gaps',
  'lake_bounds',
  'lake_event_ranges',
  'lake_files',
  'lake_moves',
  'lake_rebuilds',
  'listing_events',
  'listing_events_typed',
  'listing_gone',
  'listing_observations',
  'listing_observations_typed',
  'listing_payload_marks',
  'live_listings',
  'live_set_changes',
  'live_set_horizon',
  'live_set_marks',
  'live_set_pending',
  'live_set_state',
  'loads',
  'minask_group_marks',
  'minask_prices',
  'minask_prices_typed',
  'model_build_tests',
  'model_runs',
  'model_state',
  'payload_checks',
  'payload_fields',
  'price_group_marks',
  'price_snapshots',
  'price_snapshots_typed',
  'raw_account_state_repeats',
  'raw_account_state_repeats__hot',
  'raw_account_states',
  'raw_account_states__hot',
  'raw_account_transactions',
  'raw_account_transactions__hot',
  'raw_fx_rate_repeats',
  'raw_fx_rate_repeats__hot',
  'raw_fx_rates',
  'raw_fx_rates__hot',
  'raw_listing_events',
  'raw_listing_events__hot',
  'raw_listing_observations',
  'raw_listing_observations__hot',
  'raw_listing_repeats',
  'raw_listing_repeats__hot',
  'raw_minask_price_repeats',
  'raw_minask_price_repeats__hot',
  'raw_minask_prices',
  'raw_minask_prices__hot',
  'raw_price_snapshot_repeats',
  'raw_price_snapshot_repeats__hot',
  'raw_price_snapshots',
  'raw_price_snapshots__hot',
  'rejected_payloads',
  'schema_migrations',
  'snapshot_fetches',
];

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir());
});

afterEach(() => {
  stopScripts();
  cleanup();
});

/** A folder of the project's migrations numbered before `first`: a file as an older version made it. */
function migrationsBefore(first: string): string {
  const folder = join(dir, `migrations-before-${first}`);
  mkdirSync(folder);
  for (const file of readdirSync(findMigrationsDir()).filter((f) => f < first))
    writeFileSync(join(folder, file), readFileSync(join(findMigrationsDir(), file)));
  return folder;
}

describe('Warehouse.open', () => {
  it('creates the folders and the file, applies the migrations once and records them', async () => {
    const path = join(dir, 'nested', 'deeper', 'wh.duckdb');
    const first = await Warehouse.open(path);
    const tables = await first.query(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' ORDER BY 1",
    );
    expect(tables.map((t) => t.table_name)).toEqual(WAREHOUSE_TABLES);
    await first.close();
    const again = await Warehouse.open(path);
    const versions = await again.query('SELECT version FROM schema_migrations ORDER BY version');
    expect(versions.map((v) => v.version)).toEqual([
      '001_loads_and_state.sql',
      '002_listings.sql',
      '003_prices.sql',
      '004_models.sql',
      '005_model_build_tests.sql',
      '006_account.sql',
      '007_event_watermarks.sql',
      '008_live_listings_unindexed.sql',
      '009_raw_landing.sql',
      '010_raw_observations.sql',
      '011_live_set.sql',
      '012_raw_prices_account.sql',
      '013_load_upstream_offset.sql',
      '014_load_account.sql',
      '015_fold_legacy.sql',
      '016_listing_repeats.sql',
      '017_price_line_repeats.sql',
      '018_minask_repeats.sql',
      '019_fx_repeats.sql',
      '020_account_state_repeats.sql',
      '021_lake.sql',
      '022_live_set_winner_md5.sql',
      '023_lake_rebuilds.sql',
      '024_lake_event_ranges.sql',
      '025_landing_hot.sql',
      '026_live_set_horizon.sql',
      '027_loads_unindexed.sql',
      '028_model_runs_unindexed.sql',
      '029_raw_text_zstd.sql',
    ]);
    await again.close();
  });

  it('migrates landed stream events, observations and the live set, with the watermarks, so a replay still lands nothing', async () => {
    const path = join(dir, 'wh.duckdb');
    const old = await Warehouse.open(path, { migrationsDir: migrationsBefore('007') });
    // As the landing code of 006 left them (it needs the key this migration drops).
    await old.withConnection((connection) =>
      connection.run(
        `INSERT INTO listing_events (event_id, kind, listing_id, app_id, received_at, load_id, ingested_at)
         VALUES ('abc-9', 'gone', 'A', 730, TIMESTAMP '2026-11-01', 'l1', TIMESTAMP '2026-11-01'),
                ('abc-10', 'gone', 'B', 730, TIMESTAMP '2026-11-01', 'l1', TIMESTAMP '2026-11-01')`,
      ),
    );
    // An observation as the typed landing code left it, in a load of the poll.
    const { loads } = await old.write([{ source: 'poll:730', state: { watermark: '1' } }]);
    await old.withConnection((connection) =>
      connection.run(
        `INSERT INTO listing_observations
         SELECT 730, 'C', ${selectListingColumns('x')}, TIMESTAMP '2026-11-01', 'poll', 'p1', $load, TIMESTAMP '2026-11-01'
         FROM (SELECT CAST(CAST($data AS JSON) AS ${LISTING_TYPE}) AS x)`,
        { data: observation('C', T0, 'p1').data, load: loads[0]?.loadId ?? '' },
      ),
    );
    const rows = await old.query('SELECT * FROM listing_events ORDER BY event_id');
    const observations = await old.query('SELECT * FROM listing_observations');
    await old.close();
    const batch = { source: 'stream', events: [goneEvent('abc-9', 'A', T0), goneEvent('abc-10', 'B', T0)] };
    const migrated = await Warehouse.open(path);
    try {
      expect(await migrated.query('SELECT * FROM listing_events ORDER BY event_id')).toEqual(rows);
      // The typed rows are folded into the raw tables: the views give them back, no legacy table stays.
      expect(await migrated.query('SELECT * FROM listing_observations')).toEqual(observations);
      expect(
        await migrated.query(
          "SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'legacy%'",
        ),
      ).toEqual([]);
      expect(await migrated.query('SELECT listing_id, source FROM live_listings')).toEqual([
        { listing_id: 'C', source: 'poll:730' },
      ]);
      expect(await migrated.query('SELECT log, position FROM event_watermarks')).toEqual([
        { log: 'abc-', position: 10 },
      ]);
      expect((await migrated.write([batch])).rows).toBe(0);
      const [indexes] = await migrated.query(
        "SELECT count(*) AS n FROM duckdb_constraints() WHERE table_name IN ('listing_events', 'live_listings') AND constraint_type = 'PRIMARY KEY'",
      );
      expect(indexes?.n).toBe(0);
    } finally {
      await migrated.close();
    }
  });

  it('drops the keys of loads and model_runs from a file that has them, keeping what reads loads', async () => {
    const path = join(dir, 'wh.duckdb');
    const old = await Warehouse.open(path, { migrationsDir: migrationsBefore('027') });
    await old.write([
      { source: 'stream', events: [newEvent('log-1', 'A', T0)], state: { last_event_id: 'log-1' } },
    ]);
    await old.write([
      { source: 'poll:730', observations: [observation('B', T0 + 1, 'p1')], state: { watermark: '1' } },
    ]);
    await old.applyLanded();
    const keys =
      "SELECT table_name, count(*) AS n FROM duckdb_constraints() WHERE table_name IN ('loads', 'model_runs') AND constraint_type = 'PRIMARY KEY' GROUP BY ALL ORDER BY ALL";
    expect(await old.query(keys)).toEqual([
      { table_name: 'loads', n: 1 },
      { table_name: 'model_runs', n: 1 },
    ]);
    const loads = await old.query('SELECT * FROM loads ORDER BY started_at, load_id');
    const live = await old.query('SELECT listing_id, source FROM live_listings ORDER BY listing_id');
    await old.close();
    const migrated = await Warehouse.open(path);
    try {
      expect(await migrated.query(keys)).toEqual([]);
      expect(await migrated.query('SELECT * FROM loads ORDER BY started_at, load_id')).toEqual(loads);
      expect(live).toEqual([
        { listing_id: 'A', source: 'stream' },
        { listing_id: 'B', source: 'poll:730' },
      ]);
      expect(
        await migrated.query('SELECT listing_id, source FROM live_listings ORDER BY listing_id'),
      ).toEqual(live);
      await migrated.write([
        { source: 'stream', events: [goneEvent('log-2', 'A', T0 + 2)], state: { last_event_id: 'log-2' } },
      ]);
      await migrated.applyLanded();
      expect(await migrated.query('SELECT listing_id, source FROM live_listings')).toEqual([
        { listing_id: 'B', source: 'poll:730' },
      ]);
      expect(await migrated.query('SELECT count(*) AS n, count(DISTINCT load_id) AS ids FROM loads')).toEqual(
        [{ n: 3, ids: 3 }],
      );
    } finally {
      await migrated.close();
    }
  });

  it('stores the raw text with zstd in a new file, and leaves a file of an older storage version as DuckDB compresses it', async () => {
    const events = Array.from({ length: 3000 }, (_, i) => newEvent(`log-${i + 1}`, `L${i % 500}`, T0 + i));
    // The file's storage version, whether 029 applied, and how the landed text is stored.
    const landIn = async (path: string) => {
      const warehouse = await Warehouse.open(path);
      try {
        await warehouse.write([{ source: 'stream', events, state: { last_event_id: 'log-3000' } }]);
        await warehouse.withConnection((connection) => connection.run('CHECKPOINT'));
        const [row] = await warehouse.query(
          `SELECT (SELECT element_at(tags, 'storage_version')[1] FROM duckdb_databases()
                   WHERE database_name = current_database()) AS storage,
                  (SELECT count(*) FROM schema_migrations WHERE version = '029_raw_text_zstd.sql') AS zstd_migration,
                  (SELECT string_agg(DISTINCT compression) FROM pragma_storage_info('raw_listing_events__hot')
                   WHERE column_name = 'data' AND segment_type = 'VARCHAR') AS compression`,
        );
        return row;
      } finally {
        await warehouse.close();
      }
    };
    expect(await landIn(join(dir, 'new.duckdb'))).toEqual({
      storage: 'v1.2.0+',
      zstd_migration: 1,
      compression: 'ZSTD',
    });
    // A file made before the warehouse asked for 1.2: DuckDB's default version, the file's for good.
    const path = join(dir, 'old.duckdb');
    (await DuckDBInstance.create(path)).closeSync();
    expect(await landIn(path)).toEqual({ storage: 'v1.0.0+', zstd_migration: 0, compression: 'FSST' });
    // Nor does a read-only open find that migration missing.
    const reader = await Warehouse.open(path, { readOnly: true });
    expect(await reader.query('SELECT count(*) AS n FROM raw_listing_events')).toEqual([{ n: 3000 }]);
    await reader.close();
  });

  it('checkpoints at a 64 MB write-ahead log unless told otherwise', async () => {
    const setting = "SELECT current_setting('checkpoint_threshold') AS v";
    const byDefault = await Warehouse.open(join(dir, 'a.duckdb'));
    const chosen = await Warehouse.open(join(dir, 'b.duckdb'), { checkpointThreshold: '8MB' });
    try {
      expect(await byDefault.query(setting)).toEqual([{ v: '61.0 MiB' }]);
      expect(await chosen.query(setting)).toEqual([{ v: '7.6 MiB' }]);
    } finally {
      await byDefault.close();
      await chosen.close();
    }
  });

  it('refuses a second open from another process with a message naming the file', async () => {
    const path = join(dir, 'wh.duckdb');
    const warehouse = await Warehouse.open(path);
    try {
      const child = startScript('scripts/open-warehouse.ts', [path]);
      const { code, stdout, stderr } = await child.exited;
      expect(stdout).not.toContain('opened');
      expect(code).toBe(3);
      expect(stderr).toContain('in use by another collector (or process)');
      expect(stderr).toContain(path);
    } finally {
      await warehouse.close();
    }
  });

  it('refuses a second open of the same file in this process, and allows it after close', async () => {
    const path = join(dir, 'wh.duckdb');
    const warehouse = await Warehouse.open(path);
    const second = await Warehouse.open(path).catch((e: unknown) => e);
    expect(isWarehouseLockedError(second)).toBe(true);
    expect((second as Error).message).toContain(path);
    await warehouse.close();
    await (await Warehouse.open(path)).close();
  });

  it('clears staging files a crash left beside the file, and removes the staging folder on close', async () => {
    const path = join(dir, 'wh.duckdb');
    mkdirSync(`${path}.staging`);
    writeFileSync(join(`${path}.staging`, 'crashed-1.staged.ndjson'), '{}');
    writeFileSync(join(`${path}.staging`, 'keep.txt'), 'not ours');
    const warehouse = await Warehouse.open(path);
    expect(readdirSync(`${path}.staging`)).toEqual(['keep.txt']);
    await warehouse.write([{ source: 'stream', events: [newEvent('e1', 'A', T0)] }]);
    rmSync(join(`${path}.staging`, 'keep.txt'));
    await warehouse.close();
    expect(existsSync(`${path}.staging`)).toBe(false);
  });

  it('bounds DuckDB memory at 1 GB unless the memoryLimit option says otherwise', async () => {
    const limit = async (options: { memoryLimit?: string }) => {
      const warehouse = await Warehouse.open(join(dir, 'w.duckdb'), options);
      try {
        const [row] = await warehouse.query("SELECT current_setting('memory_limit') AS v");
        return row?.v;
      } finally {
        await warehouse.close();
      }
    };
    expect(await limit({})).toBe('953.6 MiB');
    expect(await limit({ memoryLimit: '300MB' })).toBe('286.1 MiB');
    expect(await limit({ memoryLimit: '2GB' })).toBe('1.8 GiB');
  });

  it('ignores MARKET_WAREHOUSE_MEMORY: the limit comes only from the options', async () => {
    const saved = process.env.MARKET_WAREHOUSE_MEMORY;
    process.env.MARKET_WAREHOUSE_MEMORY = '2GB';
    try {
      const warehouse = await Warehouse.open(join(dir, 'w.duckdb'));
      const [row] = await warehouse.query("SELECT current_setting('memory_limit') AS v");
      await warehouse.close();
      expect(row?.v).toBe('953.6 MiB');
    } finally {
      if (saved === undefined) delete process.env.MARKET_WAREHOUSE_MEMORY;
      else process.env.MARKET_WAREHOUSE_MEMORY = saved;
    }
  });

  it('opens read-only for queries and refuses writes there', async () => {
    const path = join(dir, 'wh.duckdb');
    const writer = await Warehouse.open(path);
    await writer.write([{ source: 'stream', events: [newEvent('e1', 'A', T0)] }]);
    await writer.close();
    const reader = await Warehouse.open(path, { readOnly: true });
    expect(await reader.query('SELECT count(*) AS n FROM listing_events')).toEqual([{ n: 1 }]);
    await expect(reader.write([{ source: 'stream' }])).rejects.toThrow(/read-only/);
    await reader.close();
  });
});

describe('Warehouse.query', () => {
  it('answers JSON-safe values: integers and decimals as numbers, timestamps as ISO UTC', async () => {
    const warehouse = await Warehouse.open(join(dir, 'wh.duckdb'));
    const rows = await warehouse.query(
      `SELECT count(*) AS n, sum(x) AS total, 12.34::DECIMAL(18,2) AS price, 9007199254740993::BIGINT AS big,
              TIMESTAMP '2026-11-21 12:00:00.123' AS at, [1, 2] AS list, {'a': 1} AS struct
       FROM (VALUES (1), (2)) t(x)`,
    );
    expect(rows).toEqual([
      {
        n: 2,
        total: 3,
        price: 12.34,
        big: '9007199254740993',
        at: '2026-11-21T12:00:00.123Z',
        list: [1, 2],
        struct: { a: 1 },
      },
    ]);
    expect(JSON.parse(JSON.stringify(rows))).toEqual(rows);
    await warehouse.close();
  });
});

describe('DuckDB threads', () => {
  const THREADS = "SELECT current_setting('threads')::INTEGER AS threads";
  const threadsNow = async (warehouse: Warehouse) => Number((await warehouse.query(THREADS))[0]?.threads);
  /** The thread count once nothing widens it (a change back is applied as wide work ends, not awaited by it). */
  const threadsAtRest = async (warehouse: Warehouse) => {
    let threads = await threadsNow(warehouse);
    for (let i = 0; i < 50 && threads !== 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      threads = await threadsNow(warehouse);
    }
    return threads;
  };

  it('runs writes and quick reads on one thread, and gives a long read or model build two until it ends', async () => {
    const warehouse = await Warehouse.open(join(dir, 'w.duckdb'));
    await warehouse.write([{ source: 'stream', events: [newEvent('e1', 'A', T0)] }]);
    expect(await threadsAtRest(warehouse)).toBe(1);
    const duringLongRead = await warehouse.withConnection(async (connection) => {
      let threads = 1;
      for (let i = 0; i < 100 && threads !== 2; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        threads = Number((await connection.runAndReadAll(THREADS)).getRowObjectsJS()[0]?.threads);
      }
      return threads;
    });
    expect(duringLongRead).toBe(2);
    expect(await threadsAtRest(warehouse)).toBe(1);
    await warehouse.close();
  });
});

describe('findMigrationsDir', () => {
  it('finds sql/warehouse of the project from src/ and from a compiled copy in .build/src/', () => {
    mkdirSync(join(dir, 'sql', 'warehouse'), { recursive: true });
    mkdirSync(join(dir, '.build', 'src', 'warehouse'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{}');
    writeFileSync(join(dir, '.build', 'package.json'), '{}');
    expect(findMigrationsDir(join(dir, 'src', 'warehouse'))).toBe(join(dir, 'sql', 'warehouse'));
    expect(findMigrationsDir(join(dir, '.build', 'src', 'warehouse'))).toBe(join(dir, 'sql', 'warehouse'));
  });
});
