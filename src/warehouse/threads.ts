/**
 * DuckDB's thread count for a warehouse: one while it lands, two once a read or model build on a
 * connection of its own has run a moment.
 */

/** DuckDB's threads while a model build or a long read runs; one otherwise. */
const WIDE_THREADS = 2;
/** How long such work runs on one thread before DuckDB gets the others, so quick reads change nothing. */
const WIDEN_AFTER_MS = 100;

/**
 * Landing writes are many small statements that a second thread slows down, while model builds and
 * long reads gain from it (`npm run bench landing` and `models`; the figures are in
 * test/bench/README.md). DuckDB's thread count is global to the file, so it is raised while any such work runs and set back to one after; the
 * statements such work runs from then on use both. Open the file with one thread.
 *
 * @example
 * const threads = new WarehouseThreads((n) => db.read(`SET threads = ${n}`));
 * const rows = await threads.widened(() => db.withConnection(readAll));
 */
export class WarehouseThreads {
  /** Work that may widen, in flight. */
  private wideWork = 0;
  /** DuckDB's thread count as last set, and that change, so changes apply in order. */
  private current = 1;
  private change: Promise<void> = Promise.resolve();
  /** Work in flight, each settled only after it has asked for its change of the thread count. */
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly setThreads: (threads: number) => Promise<unknown>) {}

  /** Runs `use`, giving DuckDB {@link WIDE_THREADS} threads once it has run {@link WIDEN_AFTER_MS}. */
  async widened<T>(use: () => Promise<T>): Promise<T> {
    const run = this.run(use);
    this.inFlight.add(run);
    try {
      return await run;
    } finally {
      this.inFlight.delete(run);
    }
  }

  /** Whether any work run through {@link widened} is in flight. */
  get busy(): boolean {
    return this.wideWork > 0;
  }

  /**
   * Resolves once the work in flight has ended and the thread count it asked for is set. The file
   * closes after this: a change of the thread count on a connection that is closing crashes DuckDB.
   */
  async drained(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
    await this.change;
  }

  private async run<T>(use: () => Promise<T>): Promise<T> {
    this.wideWork += 1;
    const widen = setTimeout(() => void this.apply(), WIDEN_AFTER_MS);
    try {
      return await use();
    } finally {
      clearTimeout(widen);
      this.wideWork -= 1;
      void this.apply();
    }
  }

  /** Sets DuckDB's threads for the work now in flight, after any change still in progress. */
  private apply(): Promise<void> {
    this.change = this.change
      .then(async () => {
        const threads = this.wideWork > 0 ? WIDE_THREADS : 1;
        if (threads === this.current) return;
        await this.setThreads(threads);
        this.current = threads;
      })
      // A failed change leaves only the speed as it was.
      .catch(() => undefined);
    return this.change;
  }
}
