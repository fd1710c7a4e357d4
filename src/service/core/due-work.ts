/**
 * Timed work of the lifecycles (offer expiry, hold release, settlement, retries): each feature
 * registers a task that does whatever has fallen due by the service clock. Tasks run one pass at
 * a time, on a short periodic job and whenever the sandbox moves the clock, so nothing in a
 * lifecycle sleeps on the wall clock.
 */
import type { Clock } from './clock.js';

/** A task that does everything due by `now`. */
export type DueTask = (now: number) => Promise<void>;

/** Runs the registered tasks in registration order, one pass at a time. */
export class DueWork {
  private readonly tasks: { name: string; run: DueTask }[] = [];
  private pass: Promise<void> = Promise.resolve();

  constructor(
    private readonly clock: Clock,
    private readonly onError: (name: string, error: unknown) => void,
  ) {}

  /** Adds a task; it runs on every pass from now on. */
  register(name: string, run: DueTask): void {
    this.tasks.push({ name, run });
  }

  /** Runs one pass after the one in progress; resolves when it is done. A failing task does not stop the others. */
  runDue(): Promise<void> {
    this.pass = this.pass.then(async () => {
      for (const task of this.tasks) {
        try {
          await task.run(this.clock.now());
        } catch (error) {
          this.onError(task.name, error);
        }
      }
    });
    return this.pass;
  }

  /** Waits for the pass in progress (if any) to end. */
  async idle(): Promise<void> {
    await this.pass;
  }
}
