/** Service databases for benchmarks, generated once per size and kept in the temp folder. */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnService } from './service-process.js';

/** Path of a service database holding `listings` generated listings (made on first use). */
export async function benchDatabase(listings: number): Promise<string> {
  const path = join(tmpdir(), `market-bench-${listings}.duckdb`);
  if (existsSync(path)) return path;
  const service = await spawnService(['--db', path, '--listings', String(listings), '--churn-paused']);
  process.stdout.write(
    `(generated ${listings} listings into ${path} in ${(service.startMs / 1000).toFixed(1)} s)\n`,
  );
  await service.stop();
  return path;
}

/** Prints one result line. */
export function print(label: string, value: string): void {
  process.stdout.write(`${label.padEnd(72)} ${value}\n`);
}

/** The p-th percentile (0-100) of numbers. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
