/**
 * Ingest of a replay burst: a collector process (the built CLI, `npm run build` first, as users run
 * it) resumes the stream from an old event id while the service replays 1,000,000 events, until the
 * warehouse holds the last one. The baseline, in the same run, is DuckDB's own `read_json` of the
 * same events written to an NDJSON file. Also the collector's peak RSS, sampled until the live set
 * has applied the last event too (its apply after the burst is part of the work).
 * BENCH_COLLECTOR_FLAGS adds flags to the collector (e.g. `--models-cron off`); BENCH_TRACE=1 prints
 * every memory sample.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ControlFile } from '../../src/collector/control/protocol.js';
import { startService } from '../../src/service/service.js';
import { projectPath } from '../../src/shared/project-root.js';
import { Warehouse } from '../../src/warehouse/index.js';
import { askCollector } from '../helpers/cli.js';
import { copyOfEventLog, readJsonBaseline } from './event-log.js';
import { print } from './fixtures.js';
import {
  anonymousMiB,
  envWords,
  mainThreadCpuMs,
  processCpuMs,
  rssMiB,
  scrapeMetrics,
  spawnBuiltMarket,
} from './service-process.js';

const TRACE = process.env.BENCH_TRACE === '1';
/** How long the bench waits for the apply after the burst before it gives up (it takes seconds). */
const APPLY_WAIT_MS = 300_000;

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'market-ingest-bench-'));
  try {
    const dbPath = await copyOfEventLog(dir);
    const service = await startService({
      dbPath,
      port: 0,
      sandbox: true,
      churnPaused: true,
      rateLimits: { read: 1e8 },
    });
    try {
      const log = service.context.catalogue.log;
      const events = await service.context.db.read<{ n: number }>(
        'SELECT count(*) AS n FROM listing_events WHERE app_id = 730',
      );
      const count = Number(events[0]?.n);
      const baselineMs = await readJsonBaseline((sql) => service.context.db.read(sql), dir);
      const { rawKey } = await service.context.accounts.createAccount({ appIds: [730], balanceCents: 100 });
      const warehousePath = join(dir, 'warehouse.duckdb');
      const seed = await Warehouse.open(warehousePath);
      await seed.write([{ source: 'stream', state: { last_event_id: log.eventId(log.oldest) } }]);
      await seed.close();
      const head = await log.lastEventIdOf(730);
      execFileSync('npm', ['run', '--silent', 'build'], { cwd: projectPath(), stdio: 'inherit' });
      const started = performance.now();
      const benchCpu = process.cpuUsage();
      const collector = spawnBuiltMarket([
        'collect',
        '--base-url',
        service.baseUrl,
        '--api-key',
        rawKey,
        '--warehouse',
        warehousePath,
        '--games',
        '730',
        '--status-seconds',
        '0',
        '--poll-seconds',
        '3600',
        '--cs2-sweep-seconds',
        '3600',
        '--prices-seconds',
        '3600',
        '--fx-seconds',
        '3600',
        '--snapshot-cron',
        '0 0 1 1 *',
        ...envWords('BENCH_COLLECTOR_FLAGS'),
      ]);
      let peakRss = 0;
      const samples: MemorySample[] = [];
      const controlFile = `${warehousePath}.collector.json`;
      // When the last event landed; the samples go on until the live set has applied it too.
      let landedMs: number | undefined;
      try {
        for (;;) {
          await new Promise((r) => setTimeout(r, 500));
          if (collector.exitCode !== null) throw new Error('the collector exited');
          // Read together: the queries below take long enough for an apply to move on.
          const rss = rssMiB(collector.pid);
          const anonymous = anonymousMiB(collector.pid);
          peakRss = Math.max(peakRss, rss);
          if (!existsSync(controlFile)) continue;
          // Through the control endpoint, with the run's token, as `market sql` asks.
          const rows = await askCollector(warehousePath, PROGRESS_SQL);
          const row = rows[0];
          const control = JSON.parse(await readFile(controlFile, 'utf8')) as ControlFile;
          const metrics = await scrapeMetrics(control);
          const sample = {
            rss,
            anonymous,
            heap: (metrics.get('nodejs_heap_size_used_bytes') ?? Number.NaN) / 2 ** 20,
            pool: Number(row?.pool ?? 0) / 2 ** 20,
            landed: Number(row?.landed ?? 0),
            tags: String(row?.tags ?? ''),
            wal: walMiB(warehousePath),
          };
          samples.push(sample);
          if (TRACE) printSample(sample, performance.now() - started);
          if (row?.value === head) landedMs ??= performance.now() - started;
          if (landedMs !== undefined && Number(row?.pending) === 0) break;
          if (landedMs !== undefined && performance.now() - started - landedMs > APPLY_WAIT_MS) {
            throw new Error(`the live set did not apply the last event within ${APPLY_WAIT_MS / 1000} s`);
          }
        }
      } catch (error) {
        // A collector left running keeps this process alive and hides the error: stop it first.
        collector.kill('SIGTERM');
        throw error;
      }
      const oursMs = landedMs ?? 0;
      const appliedMs = performance.now() - started;
      const collectorCpu = processCpuMs(collector.pid);
      const collectorMainCpu = mainThreadCpuMs(collector.pid);
      const served = process.cpuUsage(benchCpu);
      collector.kill('SIGTERM');
      await once(collector, 'exit');
      print(
        `DuckDB read_json of ${count} events from NDJSON`,
        `${(baselineMs / 1000).toFixed(1)} s (${rate(count, baselineMs)} events/s)`,
      );
      print(
        `replay of ${count} events into the warehouse by the collector`,
        `${(oursMs / 1000).toFixed(1)} s (${rate(count, oursMs)} events/s)`,
      );
      print('then applied to the live set by', `${(appliedMs / 1000).toFixed(1)} s`);
      print('throughput ratio, ours / read_json (goal >= 0.5)', (baselineMs / oursMs).toFixed(2));
      print('collector peak RSS (goal < 300 MB)', `${peakRss.toFixed(0)} MiB`);
      printMemoryByQuarter(samples, count);
      // On a shared machine the wall time follows the load; CPU time much less.
      print(
        'CPU during the replay and its apply: collector (its main thread), service (the bench process)',
        `${(collectorCpu / 1000).toFixed(1)} s (${(collectorMainCpu / 1000).toFixed(1)} s), ${((served.user + served.system) / 1e6).toFixed(1)} s`,
      );
    } finally {
      await service.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The stream's progress and the loads the live set has yet to apply, with what DuckDB's own
 * accounting holds (`duckdb_memory()`) and the events landed.
 */
const PROGRESS_SQL = `SELECT (SELECT value FROM collector_state WHERE source = 'stream' AND key = 'last_event_id') AS value,
  (SELECT count(*) FROM live_set_pending) AS pending, (SELECT sum(memory_usage_bytes) FROM duckdb_memory()) AS pool,
  (SELECT count(*) FROM raw_listing_events) AS landed,
  (SELECT string_agg(lower(tag) || ' ' || (memory_usage_bytes >> 20), ', ' ORDER BY memory_usage_bytes DESC)
   FROM duckdb_memory() WHERE memory_usage_bytes >= 2 ** 20) AS tags`;

/** One probe of the collector while it replays: its memory in MiB (RSS, V8's heap, DuckDB's accounting), events landed. */
interface MemorySample {
  rss: number;
  /** The anonymous part of the RSS in MiB (the rest is mapped files: Node's and DuckDB's code). */
  anonymous: number;
  /** V8's heap in use, in MiB (from the collector's `/metrics`). */
  heap: number;
  pool: number;
  landed: number;
  /** DuckDB's accounted memory by tag, in MiB. */
  tags: string;
  /** The write-ahead log's size in MiB: what is committed and not yet checkpointed. */
  wal: number;
}

function walMiB(warehousePath: string): number {
  return existsSync(`${warehousePath}.wal`) ? statSync(`${warehousePath}.wal`).size / 2 ** 20 : 0;
}

/**
 * The peak RSS and DuckDB's accounted peak in each quarter of the replay (by events landed): a
 * peak bounded by a batch is flat from the first quarter to the last, one held by the input grows.
 */
function printMemoryByQuarter(samples: readonly MemorySample[], count: number): void {
  for (let quarter = 0; quarter < 4; quarter++) {
    const inQuarter = samples.filter((s) => Math.min(3, Math.floor((4 * s.landed) / count)) === quarter);
    const peak = inQuarter.reduce<MemorySample | undefined>(
      (a, s) => (a && a.rss >= s.rss ? a : s),
      undefined,
    );
    const top = inQuarter.reduce<MemorySample | undefined>(
      (a, s) => (a && a.pool >= s.pool ? a : s),
      undefined,
    );
    print(
      `  quarter ${quarter + 1} of the events: peak RSS (anonymous, heap), DuckDB's accounted peak (by tag, MiB)`,
      `${(peak?.rss ?? 0).toFixed(0)} (${(peak?.anonymous ?? 0).toFixed(0)}, ${(peak?.heap ?? 0).toFixed(0)}) MiB, ${(top?.pool ?? 0).toFixed(0)} MiB (${top?.tags ?? ''}; write-ahead log ${(top?.wal ?? 0).toFixed(0)} MiB)`,
    );
  }
}

function printSample(sample: MemorySample, ms: number): void {
  print(
    `  ${(ms / 1000).toFixed(1)} s, ${sample.landed} landed: RSS (anonymous, heap), DuckDB (by tag, MiB)`,
    `${sample.rss.toFixed(0)} (${sample.anonymous.toFixed(0)}, ${sample.heap.toFixed(0)}) MiB, ${sample.pool.toFixed(0)} MiB (${sample.tags}; log ${sample.wal.toFixed(0)} MiB)`,
  );
}

function rate(count: number, ms: number): string {
  return Math.round(count / (ms / 1000)).toLocaleString('en');
}
