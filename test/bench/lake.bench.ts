/**
 * The lake keeps the payloads out of the warehouse file: `BENCH_DAYS` days (default 8) of
 * `BENCH_EVENTS` stream events a day (default 24,000: listings of varied items that appear and
 * leave the same day, a poll seeing each), the models refreshed after each day, landed twice in
 * the same run: once with the days older than `BENCH_HOT_DAYS` (default 2) moved after each day,
 * as `--lake-cron` does, and once without. Prints per day the file's used bytes (DuckDB's used
 * blocks after a checkpoint) in both runs and the lake's bytes, then the file's growth per day
 * once the window is full, with the lake over without, and the rows of what stays in the file.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StreamEventRow } from '../../src/warehouse/index.js';
import { Warehouse } from '../../src/warehouse/index.js';
import { newEvent, observation, T0 } from '../warehouse/fixtures.js';

const DAY = 86_400_000;
const NAMES = [
  'AK-47 | Redline',
  'AWP | Asiimov',
  'M4A4 | Howl',
  'Glock-18 | Fade',
  'USP-S | Kill Confirmed',
];
const WEARS = ['Factory New', 'Minimal Wear', 'Field-Tested', 'Well-Worn', 'Battle-Scarred'] as const;

/** Bytes of every file under `dir` (0 when it does not exist). */
function folderBytes(dir: string): number {
  let bytes = 0;
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const stat = statSync(join(dir, entry));
    if (stat.isFile()) bytes += stat.size;
  }
  return bytes;
}

const mib = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MiB`;

/** An hour's events of day `d`: every other one a listing of a varied item, the next its departure. */
function hourEvents(d: number, hour: number, n: number, at: number): StreamEventRow[] {
  return Array.from({ length: n }, (_, i) => {
    const id = `${d}-${hour}-${i - (i % 2)}`;
    if (i % 2 === 1)
      return {
        eventId: `e${d}-${hour}-${i}`,
        kind: 'gone',
        listingId: `L${id}`,
        appId: 730,
        listing: null,
        receivedAt: at,
      };
    const k = d * 1_000_003 + hour * 10_007 + i;
    const wear = WEARS[k % WEARS.length] as (typeof WEARS)[number];
    return newEvent(`e${d}-${hour}-${i}`, `L${id}`, at, {
      market_hash_name: `${NAMES[k % NAMES.length]} (${wear})`,
      wear,
      float_value: ((k * 7919) % 1_000_000) / 1_000_000,
      paint_seed: k % 1000,
      price_usd: 1 + ((k * 31) % 50_000) / 100,
      listed_at: new Date(at).toISOString(),
    });
  });
}

/** Lands the days into a new warehouse, moving after each day when `moves`; the used bytes after each day. */
async function landDays(
  days: number,
  perDay: number,
  hotDays: number,
  moves: boolean,
): Promise<{ used: number[]; lake: number[]; rows: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-lake-'));
  const clock = { now: T0 };
  const warehouse = await Warehouse.open(join(dir, 'w.duckdb'), { clock: () => clock.now });
  const used: number[] = [];
  const lake: number[] = [];
  try {
    for (let d = 0; d < days; d++) {
      for (let hour = 0; hour < 24; hour++) {
        clock.now = T0 + d * DAY + hour * 3_600_000;
        const events = hourEvents(d, hour, Math.round(perDay / 24), clock.now);
        const seen = events
          .filter((e) => e.kind === 'new')
          .map((e, i) => ({
            ...observation(e.listingId as string, clock.now, `p${d}-${hour}`),
            index: i,
            data: JSON.stringify(e.listing),
          }));
        await warehouse.write([
          { source: 'stream', events },
          { source: 'poll:730', observations: seen },
        ]);
      }
      clock.now = T0 + (d + 1) * DAY;
      await warehouse.applyLanded();
      await warehouse.refreshModels();
      if (moves) await warehouse.moveToLake(clock.now - hotDays * DAY);
      await warehouse.withConnection((connection) => connection.run('CHECKPOINT'));
      const [size] = await warehouse.query(
        'SELECT used_blocks * block_size AS used FROM pragma_database_size() WHERE database_name = current_database()',
      );
      used.push(Number(size?.used ?? 0));
      lake.push(moves ? folderBytes(join(dir, 'lake')) : 0);
    }
    const rows = await warehouse.query(
      `SELECT table_name AS t, estimated_size AS n FROM duckdb_tables() WHERE schema_name = 'main' ORDER BY n DESC LIMIT 8`,
    );
    return { used, lake, rows: rows.map((r) => `${r.t} ${r.n}`).join(', ') };
  } finally {
    await warehouse.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  const days = Number(process.env.BENCH_DAYS ?? 8);
  const perDay = Number(process.env.BENCH_EVENTS ?? 24_000);
  const hotDays = Number(process.env.BENCH_HOT_DAYS ?? 2);
  const withLake = await landDays(days, perDay, hotDays, true);
  const without = await landDays(days, perDay, hotDays, false);
  for (let d = 0; d < days; d++)
    console.log(
      `day ${d + 1}: file used ${mib(withLake.used[d] ?? 0)} with the lake (lake ${mib(withLake.lake[d] ?? 0)}), ${mib(without.used[d] ?? 0)} without`,
    );
  const full = hotDays;
  const perDayGrowth = (used: number[]) => ((used.at(-1) ?? 0) - (used[full] ?? 0)) / (days - 1 - full);
  const lakeGrowth = perDayGrowth(withLake.lake);
  console.log(
    `file growth a day after day ${full + 1}: ${mib(perDayGrowth(withLake.used))} with the lake, ${mib(perDayGrowth(without.used))} without: ratio ${(perDayGrowth(withLake.used) / perDayGrowth(without.used)).toFixed(2)}; lake ${mib(lakeGrowth)} a day`,
  );
  console.log(`rows left in the file with the lake: ${withLake.rows}`);
}
