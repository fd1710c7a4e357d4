/**
 * The models bench's first full build in a process of its own, so its peak RSS is the build's
 * alone (not the generator's): `node .build/test/bench/models-full-build.js <warehouse> <now ms>`
 * (compiled, as the collector runs; `node --import tsx test/bench/models-full-build.ts` alike)
 * builds every model in full at that clock, prints a line per model, and last a line
 * `RESULT <json>` with the run summary, its time and the process's peak RSS (VmHWM, MiB).
 */
import { readFileSync } from 'node:fs';
import { type ModelRunSummary, Warehouse } from '../../src/warehouse/index.js';

/** What the last line carries. */
export interface FullBuildResult {
  summary: ModelRunSummary;
  ms: number;
  peakMiB: number;
}

/** The process's peak resident memory (VmHWM) in MiB. */
export function peakRssMiB(): number {
  const kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? Number.NaN);
  return Math.round(kb / 1024);
}

async function main(path: string, nowMs: number): Promise<void> {
  const memory = process.env.MARKET_WAREHOUSE_MEMORY;
  const warehouse = await Warehouse.open(path, {
    clock: () => nowMs,
    ...(memory ? { memoryLimit: memory } : {}),
  });
  try {
    const begun = performance.now();
    const summary = await warehouse.refreshModels({
      onModel: (m) =>
        process.stdout.write(
          `(built ${m.model} in ${(m.durationMs / 1000).toFixed(2)} s, peak RSS so far ${peakRssMiB()} MiB)\n`,
        ),
    });
    const result: FullBuildResult = { summary, ms: performance.now() - begun, peakMiB: peakRssMiB() };
    process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  } finally {
    await warehouse.close();
  }
}

// Run as the TypeScript source or as its compiled copy in `.build/`.
if (/models-full-build\.[jt]s$/.test(process.argv[1] ?? ''))
  await main(String(process.argv[2]), Number(process.argv[3]));
