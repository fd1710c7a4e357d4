/**
 * Time to fresh after kill -9: the real service (in this process) with its market churning at
 * BENCH_CHURN (30) changes a second, and the built `market collect` (`npm run build` first, as
 * users run it) against it with its default schedules. The collector is killed with SIGKILL
 * BENCH_KILLS (5) times, BENCH_RUN_SECONDS (5) after it was last fresh, and restarted at once.
 * After each start: the seconds until it holds the warehouse again, and until its live set of CS2
 * listings (what the stream covers) equals the service's at the stream position it has landed,
 * with every change older than BENCH_LAG_MS (1000) landed. The service keeps BENCH_LISTINGS
 * (5,000) listings: the first start reads them all within the default read budget. Goal: fresh within 8 s of each restart.
 * With BENCH_FIRST_KILLS (0), the first start on the empty warehouse is first killed that many times,
 * each BENCH_FIRST_KILL_SECONDS (2) after it held the warehouse: the first start then times the
 * first picture after a crash, its first sweep pass cut short again and again.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { controlFileOf } from '../../src/collector/control/protocol.js';
import type { RunningService } from '../../src/service/service.js';
import { askCollector } from '../helpers/cli.js';
import { askLiveSet, compareLiveSet, followLiveSet, type LiveReference } from '../helpers/live-reference.js';
import { percentile, print } from './fixtures.js';
import { envWords, spawnBuiltMarket, startBenchService } from './service-process.js';

const CHURN = Number(process.env.BENCH_CHURN ?? 30);
const KILLS = Number(process.env.BENCH_KILLS ?? 5);
const RUN_MS = Number(process.env.BENCH_RUN_SECONDS ?? 5) * 1000;
const LAG_MS = Number(process.env.BENCH_LAG_MS ?? 1000);
const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 5_000);
const FIRST_KILLS = Number(process.env.BENCH_FIRST_KILLS ?? 0);
const FIRST_KILL_MS = Number(process.env.BENCH_FIRST_KILL_SECONDS ?? 2) * 1000;
/** A start that is not fresh by then is reported as such, and the bench goes on. */
const GIVE_UP_MS = 120_000;
/** The first start reads the whole catalogue at the default read budget first. */
const FIRST_GIVE_UP_MS = 600_000;
const CS2 = 730;

/** One start of the collector: when it held the warehouse and when it was fresh (ms after the spawn). */
interface Start {
  heldMs: number | null;
  freshMs: number | null;
  /** When the CS2 sweep's first complete pass ended (ms after the spawn), if during this start. */
  firstPassMs?: number | null;
  /** The last probe's lag and difference, to say why a start was not fresh. */
  last?: { lagMs: number; differ: number };
}

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  const { dir, service } = await startBenchService('fresh', LISTINGS, CHURN);
  let collector: ChildProcess | undefined;
  try {
    const { rawKey } = await service.context.accounts.createAccount({ appIds: [CS2], balanceCents: 100 });
    const reference = await followLiveSet(service, CS2, rawKey);
    await fetch(`${service.origin}/sandbox/simulator`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ paused: false, rate_per_second: CHURN }),
    });
    const warehousePath = join(dir, 'warehouse.duckdb');
    const starts: Start[] = [];
    for (let kill = 0; kill < FIRST_KILLS; kill++) {
      collector = startCollector(service, rawKey, warehousePath);
      await killSoonAfterHold(collector, warehousePath);
    }
    for (let kill = 0; kill <= KILLS; kill++) {
      collector = startCollector(service, rawKey, warehousePath);
      const start = await timeToFresh(
        collector,
        warehousePath,
        reference,
        kill === 0 ? FIRST_GIVE_UP_MS : GIVE_UP_MS,
      );
      starts.push(start);
      const first =
        FIRST_KILLS > 0
          ? `empty warehouse, after ${FIRST_KILLS} kills in its first seconds`
          : 'empty warehouse';
      print(`start ${kill} (${kill === 0 ? first : 'after kill -9'})`, describe(start));
      if (kill === KILLS) break;
      await new Promise((r) => setTimeout(r, RUN_MS));
      collector.kill('SIGKILL');
      await once(collector, 'exit');
      await rm(controlFileOf(warehousePath), { force: true });
    }
    printSummary(starts.slice(1));
    reference.stop();
  } finally {
    if (collector && collector.exitCode === null && collector.signalCode === null) {
      collector.kill('SIGTERM');
      await once(collector, 'exit');
    }
    await service.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Kills the collector with SIGKILL FIRST_KILL_MS after it holds the warehouse, and clears its control file. */
async function killSoonAfterHold(collector: ChildProcess, warehousePath: string): Promise<void> {
  while (!existsSync(controlFileOf(warehousePath))) {
    if (collector.exitCode !== null) throw new Error('the collector exited');
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, FIRST_KILL_MS));
  collector.kill('SIGKILL');
  await once(collector, 'exit');
  await rm(controlFileOf(warehousePath), { force: true });
}

function startCollector(service: RunningService, key: string, warehousePath: string): ChildProcess {
  return spawnBuiltMarket([
    'collect',
    ...['--base-url', service.baseUrl, '--api-key', key, '--warehouse', warehousePath],
    ...['--status-seconds', '0', '--log-level', 'error'],
    ...envWords('BENCH_COLLECTOR_FLAGS'),
  ]);
}

/** Probes the collector every 100 ms until it is fresh (or gives up); times from the spawn. */
async function timeToFresh(
  collector: ChildProcess,
  warehousePath: string,
  reference: LiveReference,
  giveUpMs: number,
): Promise<Start> {
  const spawned = performance.now();
  const since = reference.head();
  const start: Start = { heldMs: null, freshMs: null };
  while (performance.now() - spawned < giveUpMs) {
    if (collector.exitCode !== null) throw new Error('the collector exited');
    if (start.heldMs === null && existsSync(controlFileOf(warehousePath)))
      start.heldMs = performance.now() - spawned;
    const landed = start.heldMs === null ? null : await askLiveSet(warehousePath, CS2);
    if (landed && landed.position >= since) {
      start.last = compareLiveSet(reference, landed);
      if (start.last.differ === 0 && start.last.lagMs <= LAG_MS) {
        start.freshMs = performance.now() - spawned;
        start.firstPassMs = await firstPassEnd(warehousePath, Date.now() - start.freshMs);
        return start;
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return start;
}

/** When the CS2 sweep last completed, in ms after `spawnedAt` (epoch ms); null if before it. */
async function firstPassEnd(warehousePath: string, spawnedAt: number): Promise<number | null> {
  const [row] = await askCollector(
    warehousePath,
    "SELECT value FROM collector_state WHERE source = 'sweep:730' AND key = 'last_sweep_at'",
  );
  const at = Number(row?.value);
  return Number.isFinite(at) && at >= spawnedAt ? at - spawnedAt : null;
}

function describe(start: Start): string {
  const held = start.heldMs === null ? 'never' : `${(start.heldMs / 1000).toFixed(1)} s`;
  const last = start.last
    ? ` (last probe: ${start.last.lagMs} ms behind, ${start.last.differ} ids differ)`
    : '';
  const fresh =
    start.freshMs === null ? `not within the bench's bound${last}` : `${(start.freshMs / 1000).toFixed(1)} s`;
  const pass =
    start.firstPassMs === undefined || start.firstPassMs === null
      ? ''
      : `, its first CS2 sweep pass ended at ${(start.firstPassMs / 1000).toFixed(1)} s`;
  return `held the warehouse ${held}, fresh ${fresh}${pass}`;
}

function printSummary(restarts: Start[]): void {
  const fresh = restarts.flatMap((s) => (s.freshMs === null ? [] : [s.freshMs / 1000]));
  const held = restarts.flatMap((s) => (s.heldMs === null ? [] : [s.heldMs / 1000]));
  print(
    `churn, CS2 listings compared, restarts`,
    `${CHURN} changes/s, lag <= ${LAG_MS} ms, ${restarts.length}`,
  );
  print(
    'seconds to hold the warehouse after kill -9 (median, max)',
    `${percentile(held, 50).toFixed(1)}, ${Math.max(...held).toFixed(1)}`,
  );
  print(
    'seconds to fresh after kill -9 (median, max; goal <= 8)',
    `${percentile(fresh, 50).toFixed(1)}, ${Math.max(...fresh).toFixed(1)}`,
  );
  print('restarts not fresh within the bound of the bench', String(restarts.length - fresh.length));
}
