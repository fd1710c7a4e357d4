/**
 * Ingest of a replay burst: a collector process (the built CLI, `npm run build` first, as users run
 * it) resumes the stream from an old event id while the service replays 1,000,000 events, until the
 * warehouse holds the last one. The baseline, in the same run, is DuckDB's own `read_json` of the
 * same events written to an NDJSON file. Also the collector's peak RSS. BENCH_COLLECTOR_FLAGS adds
 * flags to the collector (e.g. `--models-cron off`).
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '../../src/service/service.js';
import { projectPath } from '../../src/shared/project-root.js';
import { Warehouse } from '../../src/warehouse/index.js';
import { askCollector } from '../helpers/cli.js';
import { copyOfEventLog, readJsonBaseline } from './event-log.js';
import { print } from './fixtures.js';
import { envWords, mainThreadCpuMs, processCpuMs, rssMiB, spawnBuiltMarket } from './service-process.js';

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
      const controlFile = `${warehousePath}.collector.json`;
      try {
        for (;;) {
          await new Promise((r) => setTimeout(r, 500));
          if (collector.exitCode !== null) throw new Error('the collector exited');
          peakRss = Math.max(peakRss, rssMiB(collector.pid));
          if (!existsSync(controlFile)) continue;
          // Through the control endpoint, with the run's token, as `market sql` asks.
          const rows = await askCollector(
            warehousePath,
            "SELECT value FROM collector_state WHERE source = 'stream' AND key = 'last_event_id'",
          );
          if (rows[0]?.value === head) break;
        }
      } catch (error) {
        // A collector left running keeps this process alive and hides the error: stop it first.
        collector.kill('SIGTERM');
        throw error;
      }
      const oursMs = performance.now() - started;
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
      print('throughput ratio, ours / read_json (goal >= 0.25)', (baselineMs / oursMs).toFixed(2));
      print('collector peak RSS (goal < 300 MB)', `${peakRss.toFixed(0)} MiB`);
      // On a shared machine the wall time follows the load; CPU time much less.
      print(
        'CPU during the replay: collector (its main thread), service (the bench process)',
        `${(collectorCpu / 1000).toFixed(1)} s (${(collectorMainCpu / 1000).toFixed(1)} s), ${((served.user + served.system) / 1e6).toFixed(1)} s`,
      );
    } finally {
      await service.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function rate(count: number, ms: number): string {
  return Math.round(count / (ms / 1000)).toLocaleString('en');
}
