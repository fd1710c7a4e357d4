/**
 * A small warehouse of three days of everything the collector lands (events, page items and their
 * repeats, sweep verdicts, snapshots, minAsk lists, FX answers, the account, each with repeats),
 * its models built; and a print of every relation analysts read (rows and a checksum each).
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Warehouse, WarehouseBatch } from '../../../src/warehouse/index.js';
import { type CrashStep, type LakeManifest, RAW_RELATIONS } from '../../../src/warehouse/lake/index.js';
import { type ChildRun, goneEvent, newEvent, observation, startScript, T0 } from '../fixtures.js';

/** One UTC day in ms. */
export const DAY = 86_400_000;

/** The relations of the README's list and every model (those a refresh stamps are left out). */
export async function printedRelations(warehouse: Warehouse): Promise<string[]> {
  const readme = [
    'listing_events',
    'listing_events_typed',
    'live_listings',
    'rejected_payloads',
    'listing_observations',
    'listing_observations_typed',
    'listing_gone',
    'price_snapshots',
    'price_snapshots_typed',
    'snapshot_fetches',
    'minask_prices',
    'minask_prices_typed',
    'fx_rates',
    'fx_rates_typed',
    'account_transactions',
    'account_transactions_typed',
    'account_states',
    'account_states_typed',
    'ingest_gaps',
    'collector_state',
    'loads',
  ];
  const raw = RAW_RELATIONS.map((r) => r.name);
  return [...readme, ...raw.sort(), ...warehouse.models().map((m) => m.name)];
}

/** Per relation: its rows and an order-free checksum of them (the build stamp `built_watermark` left out). */
export async function printRelations(warehouse: Warehouse): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const relation of await printedRelations(warehouse)) {
    const [row] = await warehouse.query(
      `SELECT count(*) AS n, CAST(sum(hash(r)::HUGEINT) AS VARCHAR) AS sum
       FROM (SELECT COLUMNS(c -> c <> 'built_watermark') FROM ${relation}) r`,
    );
    out[relation] = `${row?.n} rows, ${row?.sum}`;
  }
  return out;
}

function priceRow(name: string, ask: number) {
  return {
    market_hash_name: name,
    wear: 'Field-Tested',
    doppler_phase: null,
    min_ask_usd: ask,
    listed_count: 2,
  };
}

/** The batches of day `d` (0, 1, 2 …) from `start`; snapshot files are written into `dir`. */
export function dayBatches(dir: string, start: number, d: number): { at: number; batch: WarehouseBatch }[] {
  const t = (hours: number) => start + d * DAY + hours * 3_600_000;
  const snapshotFile = join(dir, `snapshot-${d}.ndjson.gz`);
  // The same AK line every day (a repeat after the first), another price for M4.
  writeFileSync(
    snapshotFile,
    gzipSync([priceRow('AK', 1.5), priceRow('M4', 7 + d)].map((r) => JSON.stringify(r)).join('\n')),
  );
  const body = { order_id: 'o1', status: 'pending', updated_at: '2026-11-01T00:00:00.000Z' };
  return [
    {
      at: t(1),
      batch: {
        source: 'stream',
        events: [
          newEvent(`e${d}-1`, `L${d}`, t(1), { price_usd: 10 + d }),
          newEvent(`e${d}-2`, `M${d}`, t(1)),
          goneEvent(`e${d}-3`, `L${d - 1}`, t(1)),
          { eventId: `e${d}-4`, kind: 'new', appId: 730, receivedAt: t(1), data: 'not json' },
        ],
        state: { last_event_id: `e${d}-4` },
      },
    },
    {
      at: t(2),
      // The same listing in every day's poll: stored once, a repeat after that.
      batch: {
        source: 'poll:730',
        observations: [observation('P', t(2), `pass-${d}`), observation(`Q${d}`, t(2), `pass-${d}`)],
      },
    },
    {
      at: t(3),
      batch: {
        source: 'sweep:730',
        gone: [{ appId: 730, listingId: `Q${d}`, detectedAt: t(3), via: 'sweep' }],
      },
    },
    {
      at: t(4),
      batch: {
        source: 'snapshot',
        snapshot: {
          status: 'downloaded',
          etag: `"v${d}"`,
          generatedAt: t(4) - 1000,
          fetchedAt: t(4),
          file: snapshotFile,
        },
      },
    },
    {
      at: t(5),
      batch: {
        source: 'prices:570',
        minask: { appId: 570, fetchedAt: t(5), generatedAt: t(5) - 500, rows: [priceRow('Hook', 0.3)] },
      },
    },
    // The same FX update fetched each day: a repeat after the first.
    {
      at: t(6),
      batch: { source: 'fx', fx: { updatedAt: start, fetchedAt: t(6), rates: { EUR: 0.9, GBP: 0.8 } } },
    },
    {
      at: t(7),
      batch: {
        source: 'account',
        ledger: [
          {
            id: `t${d}`,
            transaction: {
              id: `t${d}`,
              type: 'deposit',
              amount_usd: 5,
              balance_after_usd: 5 * (d + 1),
              order_id: null,
              description: 'd',
              created_at: new Date(t(7)).toISOString(),
            },
            observedAt: t(7),
          },
        ],
        // The same state read each day: a repeat after the first.
        accountStates: [
          { kind: 'order', id: 'o1', appId: 730, updatedAt: body.updated_at, observedAt: t(7), body },
        ],
      },
    },
  ];
}

/**
 * Lands `days` days of batches from `start` (T0) into `warehouse` (its clock read from `clock.now`, set to
 * each batch's time), then refreshes the models.
 */
export async function landDays(
  warehouse: Warehouse,
  clock: { now: number },
  dir: string,
  days: number,
  first = 0,
  start = T0,
): Promise<void> {
  for (let d = first; d < first + days; d++) {
    for (const { at, batch } of dayBatches(dir, start, d)) {
      clock.now = at;
      await warehouse.write([batch]);
    }
  }
  clock.now = start + (first + days - 1) * DAY + 8 * 3_600_000;
  await warehouse.refreshModels();
}

/** Every parquet file under the lake folder `lake`, relative to it, in order. */
export function parquetFilesIn(lake: string): string[] {
  return readdirSync(lake, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.parquet'))
    .map((f) => relative(lake, join(lake, f)))
    .sort();
}

/** Every file `manifest` lists, relative to its lake, in order. */
export function listedFiles(manifest: LakeManifest): string[] {
  return Object.values(manifest.relations)
    .flat()
    .map((f) => f.path)
    .sort();
}

/** How a move of the warehouse at `path` of the rows before `before` (ISO) ended, in a child killed at `step`. */
export function killedMove(path: string, before: string, step: CrashStep): ChildRun['exited'] {
  process.env.MARKET_LAKE_CRASH_AT = step;
  const child = startScript('scripts/lake-move.ts', [path, before]);
  delete process.env.MARKET_LAKE_CRASH_AT;
  return child.exited;
}
