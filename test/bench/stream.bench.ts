/**
 * Fan-out of the listing stream: 300 concurrent streams while the simulator emits 200 events per
 * second. The service runs in this process, where a listener stamps each event when its
 * transaction has committed; the readers run in a child process and stamp receipt. Latency is
 * receipt minus commit; the baseline is the same measure with one stream, in the same run. Also
 * the service's CPU share (this process, readers excluded) in both cases.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningService, startService } from '../../src/service/service.js';
import { projectPath } from '../../src/shared/project-root.js';
import { benchDatabase, print } from './fixtures.js';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 300);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'market-stream-bench-'));
  const dbPath = join(dir, 'market.duckdb');
  await copyFile(await benchDatabase(20_000), dbPath);
  const service = await startService({
    dbPath,
    port: 0,
    sandbox: true,
    churnPaused: true,
    rateLimits: { read: 1e8 },
  });
  try {
    const single = await measure(service, 1);
    const many = await measure(service, STREAMS);
    print(`1 stream, ${RATE} events/s: commit-to-receipt p50 / p99`, `${single.p50} / ${single.p99} ms`);
    print(
      `${STREAMS} streams, ${RATE} events/s: commit-to-receipt p50 / p99`,
      `${many.p50} / ${many.p99} ms`,
    );
    print(`${STREAMS} streams: events received / matched to a commit`, `${many.received} / ${many.matched}`);
    print(
      'p99 ratio, many streams / one (goal: p99 under 100 ms)',
      (many.p99 / Math.max(1, single.p99)).toFixed(2),
    );
    print(
      'service CPU share: one stream / many streams',
      `${pct(single.cpu)} / ${pct(many.cpu)} of one core`,
    );
  } finally {
    await service.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function measure(service: RunningService, streams: number) {
  const keys: string[] = [];
  for (let i = 0; i < Math.ceil(streams / 3); i++) {
    keys.push((await service.context.accounts.createAccount({ appIds: [730], balanceCents: 100 })).rawKey);
  }
  const readers = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      projectPath('test', 'bench', 'stream-readers.ts'),
      `${service.baseUrl}/listings/stream`,
      String(streams),
      keys.join(','),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  let output = '';
  readers.stdout.on('data', (d) => {
    output += d;
  });
  const stop = service.context.catalogue.onChange((changes) => {
    const now = Date.now();
    const log = service.context.catalogue.log;
    readers.stdin.write(changes.map((c) => `${log.eventId(c.event.position)} ${now}\n`).join(''));
  });
  await new Promise((r) => setTimeout(r, 2000));
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await service.context.churn.configure({ paused: false, ratePerSecond: RATE });
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  await service.context.churn.configure({ paused: true });
  const used = process.cpuUsage(cpuBefore);
  const cpu = (used.user + used.system) / 1000 / (performance.now() - started);
  await new Promise((r) => setTimeout(r, 500));
  stop();
  readers.stdin.end();
  await once(readers, 'exit');
  return { ...(JSON.parse(output) as { p50: number; p99: number; received: number; matched: number }), cpu };
}

function pct(share: number): string {
  return `${(share * 100).toFixed(0)}%`;
}
