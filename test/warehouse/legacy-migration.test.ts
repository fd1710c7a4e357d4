import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findMigrationsDir, findSqlDir, Warehouse } from '../../src/warehouse/index.js';
import { makeTempDir } from './fixtures.js';

/**
 * A warehouse of the typed landing layout: the real collector (commit 752a3c1, before raw landing)
 * against the real service under churn, its models built, exported with DuckDB's EXPORT DATABASE.
 */
const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'legacy-warehouse');

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = makeTempDir());
});
afterEach(() => cleanup());

/** Rebuilds the exported file as it was: its schema, then its rows. */
async function importFixture(path: string): Promise<void> {
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  try {
    // The tables; the view models are built again from their SQL (unchanged since) by the caller.
    const statements = readFileSync(join(FIXTURE, 'schema.sql'), 'utf8').split(/;\n/);
    for (const statement of statements.filter((s) => s.startsWith('CREATE TABLE')))
      await connection.run(statement);
    await connection.run(readFileSync(join(FIXTURE, 'load.sql'), 'utf8').replaceAll('{{dir}}', FIXTURE));
    for (const statement of ACCOUNT_HISTORY) await connection.run(statement);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** The fixture's account held one deposit: an account's history as that layout's collector landed it. */
const ACCOUNT_HISTORY = (() => {
  const name = 'AWP | Exoskeleton (Field-Tested)';
  const at = (hms: string) => `2026-11-26T18:${hms}.000Z`;
  const order = (id: string, created: string, items: object[], extra: object) => ({
    order_id: id,
    app_id: 730,
    created_at: at(created),
    delivery: 'instant',
    item_count: 1,
    hold_until: null,
    refund: null,
    items,
    ...extra,
  });
  const item = { market_hash_name: name, price_usd: 12.34, steam_trade_offer_id: null, return_reason: null };
  // The API's object names its status and update instant, as the typed layout kept it in body.
  const state = (kind: string, id: string, status: string, hms: string, body: object) => ({
    kind,
    id,
    app: kind === 'order' ? 730 : null,
    status,
    hms,
    body: { ...body, status, updated_at: at(hms) },
  });
  const offered = [{ ...item, steam_trade_offer_id: 'tof_1' }];
  const bought = { charged_total_usd: 12.34 };
  const listing = (status: string) => ({
    id: 'p2p_1',
    market_hash_name: name,
    asset_id: 'a1',
    price_usd: 10,
    commission_usd: 0.5,
    seller_payout_usd: 9.5,
    created_at: at('47:00'),
    status,
  });
  const states = [
    state('order', 'ord_a', 'pending', '42:00', order('ord_a', '42:00', [item], bought)),
    state('order', 'ord_a', 'delivering', '42:05', order('ord_a', '42:00', offered, bought)),
    state('order', 'ord_a', 'completed', '43:00', order('ord_a', '42:00', offered, bought)),
    state('order', 'ord_b', 'pending', '45:00', order('ord_b', '45:00', [{ ...item, price_usd: 5.5 }], {})),
    state(
      'order',
      'ord_b',
      'cancelled',
      '46:00',
      order('ord_b', '45:00', [{ ...item, price_usd: 5.5, return_reason: 'declined' }], {
        charged_total_usd: 5.5,
        refund: { amount_usd: 5.5 },
      }),
    ),
    state('p2p_listing', 'p2p_1', 'active', '47:00', listing('active')),
    state('p2p_listing', 'p2p_1', 'sold', '50:00', listing('sold')),
  ];
  const ledger = [
    ['txn_a', 'purchase', -12.34, 37.66, 'ord_a', '42:00'],
    ['txn_b', 'purchase', -5.5, 32.16, 'ord_b', '45:00'],
    ['txn_c', 'refund', 5.5, 37.66, 'ord_b', '46:00'],
    ['txn_d', 'sale', 9.5, 47.16, 'p2p_1', '50:00'],
  ] as const;
  const text = (v: unknown) => (v === null ? 'NULL' : `'${String(v).replaceAll("'", "''")}'`);
  const time = (hms: string) => `TIMESTAMP '2026-11-26 18:${hms}'`;
  return [
    `INSERT INTO account_states VALUES ${states
      .map(
        ({ kind, id, app, status, hms, body }) =>
          `(${text(kind)}, ${text(id)}, ${app ?? 'NULL'}, ${text(status)}, ${time(hms)}, ${time(hms)}, ${text(JSON.stringify(body))}, 'legacy', ${time(hms)})`,
      )
      .join(', ')}`,
    `INSERT INTO account_transactions VALUES ${ledger
      .map(
        ([id, type, amount, balance, orderId, hms]) =>
          `(${text(id)}, ${text(type)}, ${amount}, ${balance}, ${text(orderId)}, ${text(type)}, ${time(hms)}, ${time(hms)}, 'legacy', ${time(hms)})`,
      )
      .join(', ')}`,
  ];
})();

/** Every row of `relation` as JSON lines, sorted: the same rows compare equal whatever their order. */
async function rowsOf(read: (sql: string) => Promise<Record<string, unknown>[]>, relation: string) {
  const rows = await read(`SELECT * FROM ${relation}`);
  return rows.map((r) => JSON.stringify(r)).sort();
}

/** The landing tables of prices, FX and the account, views over the raw rows after migrations 012 and 013. */
const LANDED = [
  'price_snapshots',
  'snapshot_fetches',
  'minask_prices',
  'fx_rates',
  'account_transactions',
  'account_states',
];

/** Rows the comparison needs before it proves anything. */
const AT_LEAST: Record<string, number> = {
  price_snapshots: 200,
  minask_prices: 300,
  fx_rates: 20,
  account_transactions: 5,
  account_states: 7,
  fct_account_daily: 1,
  fct_order_outcomes: 2,
  fct_p2p_sales: 1,
  fct_prices_fx: 1000,
};

describe('a warehouse of the typed landing layout', () => {
  /** The typing notes of a row typed whole. */
  const NO_NOTES = 'CAST([] AS STRUCT(field VARCHAR, reason VARCHAR)[]) AS typing_notes';

  it('migrates without losing a row, and the live set, events, observations and models give the same answers', async () => {
    const path = join(dir, 'warehouse.duckdb');
    await importFixture(path);
    // Before: the file as the typed layout's code left it, every model of that time rebuilt on it
    // (the stored tables were built a moment before the collector's last writes).
    const layout = join(dir, 'migrations-008');
    mkdirSync(layout);
    for (const file of readdirSync(findMigrationsDir()).filter((f) => f < '009'))
      writeFileSync(join(layout, file), readFileSync(join(findMigrationsDir(), file)));
    // The models as that layout had them: staging read the typed listing_events table.
    const oldModels = join(dir, 'models-typed-layout');
    mkdirSync(oldModels);
    for (const file of readdirSync(findSqlDir('models')).filter((f) => f.endsWith('.sql'))) {
      if (file === 'stg_listing_events.sql') continue;
      const sql = readFileSync(join(findSqlDir('models'), file), 'utf8')
        .replace('-- depends_on: stg_listing_events\n', '')
        // That layout's typed tables had no typing notes: every row typed whole.
        .replaceAll(', typing_notes\nFROM stg_listing_events', `, ${NO_NOTES}\nFROM listing_events`)
        .replaceAll(
          ', typing_notes\nFROM listing_observations_typed',
          `, ${NO_NOTES}\nFROM listing_observations`,
        )
        .replaceAll('FROM stg_listing_events', 'FROM listing_events')
        // Nor a clock offset kept with each load (migration 013).
        .replaceAll(/least\(generated_at - [^\n]*, fetched_at\) AS generated_at/g, 'generated_at')
        .replaceAll('LEFT JOIN loads l USING (load_id)\n', '')
        .replaceAll('LEFT JOIN offsets l USING (load_id)\n', '')
        // Nor the account of a load (migration 014).
        .replaceAll(/\b[lm]\.account_id\b/g, 'NULL::VARCHAR');
      writeFileSync(join(oldModels, file), sql);
    }
    const old = await Warehouse.open(path, { migrationsDir: layout, modelsDir: oldModels });
    const before = new Map<string, string[]>();
    const models = new Set<string>();
    try {
      for (const row of await old.query('SELECT DISTINCT model FROM model_runs'))
        models.add(String(row.model));
      // Today's refresh keeps in model_state when each model began a build (migration 028): given
      // for this rebuild, then taken away as the layout had it.
      const started = ['last_started_at', 'full_started_at'];
      await old.withConnection(async (connection) => {
        for (const column of started)
          await connection.run(`ALTER TABLE model_state ADD COLUMN ${column} TIMESTAMP`);
      });
      await old.refreshModels({ select: [...models], fullRefresh: true });
      await old.withConnection(async (connection) => {
        for (const column of started) await connection.run(`ALTER TABLE model_state DROP COLUMN ${column}`);
      });
      const read = (sql: string) => old.query(sql);
      for (const relation of [
        'listing_events',
        'listing_observations',
        'live_listings',
        ...LANDED,
        ...models,
      ])
        before.set(relation, await rowsOf(read, relation));
    } finally {
      await old.close();
    }
    expect(before.get('listing_events')?.length).toBeGreaterThan(100);
    expect(before.get('listing_observations')?.length).toBeGreaterThan(400);
    expect(before.get('live_listings')?.length).toBeGreaterThan(400);
    expect(models.size).toBeGreaterThan(10);
    for (const [relation, least] of Object.entries(AT_LEAST))
      expect(before.get(relation)?.length, relation).toBeGreaterThanOrEqual(least);

    const warehouse = await Warehouse.open(path);
    try {
      const read = (sql: string) => warehouse.query(sql);
      // One layout: every typed row folded into its raw twin, no legacy table left.
      const [legacy] = await read(
        "SELECT count(*) AS n FROM information_schema.tables WHERE table_name LIKE 'legacy%'",
      );
      expect(Number(legacy?.n)).toBe(0);
      expect(await rowsOf(read, 'listing_events')).toEqual(before.get('listing_events'));
      expect(await rowsOf(read, 'listing_observations')).toEqual(before.get('listing_observations'));
      expect(await rowsOf(read, 'live_listings')).toEqual(before.get('live_listings'));
      for (const relation of LANDED)
        expect(await rowsOf(read, relation), relation).toEqual(before.get(relation));
      const [notes] = await read(
        `SELECT (SELECT count(*) FROM listing_events_typed WHERE len(typing_notes) > 0)
              + (SELECT count(*) FROM listing_observations_typed WHERE len(typing_notes) > 0) AS n`,
      );
      expect(Number(notes?.n), 'typing notes of folded rows').toBe(0);
      await warehouse.refreshModels({ fullRefresh: true });
      for (const model of models) {
        expect(await rowsOf(read, model), model).toEqual(before.get(model));
      }

      // What landed before the migration is known to the raw landing: sent again, it lands once
      // (an FX answer of a landed update whose rates changed is another answer of it).
      const [fx] = await read('SELECT epoch_ms(updated_at) AS at FROM fx_rates LIMIT 1');
      const [list] = await read(
        'SELECT epoch_ms(generated_at) AS at FROM minask_prices WHERE app_id = 730 LIMIT 1',
      );
      const observedAt = Date.parse('2026-11-26T19:00:00.000Z');
      const summary = await warehouse.write([
        {
          source: 'account',
          ledger: [
            { id: 'txn_a', transaction: { id: 'txn_a' }, observedAt },
            { id: 'txn_e', transaction: { id: 'txn_e', type: 'deposit' }, observedAt },
          ],
        },
        { source: 'fx', fx: { updatedAt: Number(fx?.at), fetchedAt: observedAt, rates: { EUR: 1 } } },
        {
          source: 'prices:730',
          minask: {
            appId: 730,
            generatedAt: Number(list?.at),
            fetchedAt: observedAt,
            rows: [{ market_hash_name: 'x' }],
          },
        },
      ]);
      expect(summary.loads.map((l) => l.tables)).toEqual([
        { raw_account_transactions: 1 },
        { raw_fx_rates: 1 },
        {},
      ]);
    } finally {
      await warehouse.close();
    }
  }, 180_000);
});
