/**
 * The export folder on disk: one export at a time per folder (a queue in this process, a lock file
 * across processes), an aside folder on the same filesystem for files being written, and the
 * day folders of each model.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Name prefix of the aside folders; readers (pyarrow, Spark, Hive) skip names that start with a dot. */
const ASIDE_PREFIX = '.tmp-';
const LOCK = '.export.lock';

/** Exports in progress in this process, by export folder. */
const queues = new Map<string, Promise<unknown>>();

/** Runs `work` after every export of this process into `to` that was asked for before it. */
export function serializeExports<T>(to: string, work: () => Promise<T>): Promise<T> {
  const next = (queues.get(to) ?? Promise.resolve()).then(work);
  const settled = next.catch(() => undefined);
  queues.set(to, settled);
  void settled.then(() => {
    if (queues.get(to) === settled) queues.delete(to);
  });
  return next;
}

/**
 * Runs `use` with a fresh aside folder `<to>/.tmp-<uuid>`, holding the lock of `to`; aside
 * folders left by a crash are removed first, and this one afterwards, whether `use` succeeded or not.
 */
export async function withAsideFolder<T>(to: string, use: (aside: string) => Promise<T>): Promise<T> {
  await mkdir(to, { recursive: true });
  const release = await lock(to);
  try {
    const names = await readdir(to);
    await Promise.all(
      names
        .filter((n) => n.startsWith(ASIDE_PREFIX))
        .map((n) => rm(join(to, n), { recursive: true, force: true })),
    );
    const aside = join(to, `${ASIDE_PREFIX}${randomUUID()}`);
    await mkdir(aside);
    try {
      return await use(aside);
    } finally {
      await rm(aside, { recursive: true, force: true });
    }
  } finally {
    await release();
  }
}

/** The day folders (`date=YYYY-MM-DD`) of a model's export folder, each with its parquet file names. */
export async function listDayFolders(modelDir: string): Promise<Map<string, string[]>> {
  const days = new Map<string, string[]>();
  const entries = await readdir(modelDir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const match = /^date=(\d{4}-\d{2}-\d{2})$/.exec(entry.name);
    if (!entry.isDirectory() || !match?.[1]) continue;
    const names = await readdir(join(modelDir, entry.name));
    days.set(match[1], names.filter((n) => n.endsWith('.parquet')).sort());
  }
  return new Map([...days].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** Takes the lock file of `to`, taking over one whose process is gone; returns its release. */
async function lock(to: string): Promise<() => Promise<void>> {
  const file = join(to, LOCK);
  for (let attempt = 0; ; attempt++) {
    try {
      await writeFile(file, String(process.pid), { flag: 'wx' });
      return () => rm(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number.parseInt(await readFile(file, 'utf8').catch(() => ''), 10);
      // This process queues its own exports, so a lock naming it is left from an earlier life of its pid.
      if (attempt > 0 || (isAlive(holder) && holder !== process.pid))
        throw new Error(
          `another export (pid ${holder}) is writing ${to}; wait for it to end, or remove ${file} if no export runs`,
        );
      await rm(file, { force: true });
    }
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
