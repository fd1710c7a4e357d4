/**
 * Timed work of the lifecycles (offer expiry, hold release, settlement, retries): each feature
 * registers a task that does whatever has fallen due by the service clock. Tasks run one pass at
 * a time, on a short periodic job and whenever the sandbox moves the clock, so nothing in a
 * lifecycle sleeps on the wall clock.
 *
 * Moving the clock is a walk, as a payment provider's test clock does it: the clock stops at every
 * due time a task reports inside the jump, earliest first, and the tasks with work there run at
 * that time, so work that an earlier stop brings (an offer sent when a seller sends, its answer
 * 30 s later) happens inside the same jump at its own time.
 */
import type { Database, Params } from '../../shared/database.js';
import type { AdjustableClock } from './clock.js';

/** A task that does everything due by `now`. */
export type DueTask = (now: number) => Promise<void>;

/**
 * The earliest time at or after `from` at which a task has stored work, or null. A time that turns
 * out to hold nothing to do costs one pass of the task.
 */
export type NextDue = (from: number) => Promise<number | null>;

/**
 * Resolves once the work a task's run started without waiting for it (webhook sends) is recorded.
 * A walk waits for it at every stop, so what that work schedules (a retry) is a stop of the same
 * walk, at its own time; the periodic pass never waits for it.
 */
export type SettleDue = () => Promise<void>;

interface Registered {
  name: string;
  run: DueTask;
  next: NextDue | undefined;
  settle: SettleDue | undefined;
}

/** Runs the registered tasks in registration order, one pass at a time. */
export class DueWork {
  private readonly tasks: Registered[] = [];
  private pass: Promise<unknown> = Promise.resolve();

  /**
   * @param beforeMove called before a clock move with how far it goes, so the destination can be
   *   stored first: a crash in the middle of a walk restarts at or after its end, never before a
   *   stamp the walk made.
   */
  constructor(
    private readonly clock: AdjustableClock,
    private readonly onError: (name: string, error: unknown) => void,
    private readonly beforeMove: (aheadMs: number) => Promise<void> = async () => undefined,
  ) {}

  /**
   * Adds a task; it runs on every pass from now on. With `next`, a walk stops at each of its due
   * times and runs it there; without, it runs at every stop and at the end of a walk. With
   * `settle`, a walk waits for it after each run inside the jump before it looks for the next stop.
   */
  register(name: string, run: DueTask, next?: NextDue, settle?: SettleDue): void {
    this.tasks.push({ name, run, next, settle });
  }

  /** The earliest due time of the tasks that tell theirs (epoch ms), or null when none is due. */
  async earliestDue(): Promise<number | null> {
    let earliest: number | null = null;
    for (const task of this.tasks) {
      const at = task.next ? await task.next(0) : null;
      if (at !== null && (earliest === null || at < earliest)) earliest = at;
    }
    return earliest;
  }

  /** Runs one pass after the one in progress; resolves when it is done. A failing task does not stop the others. */
  runDue(): Promise<void> {
    return this.enqueue(() => this.runTasks(this.tasks));
  }

  /**
   * Moves the clock `ms` forward from where it stands when the move begins (after the pass or move
   * in progress), walking every due time inside the jump in order; resolves once the pass at the
   * target has run.
   */
  advance(ms: number): Promise<void> {
    if (!(ms >= 0)) throw new RangeError('the clock only moves forward');
    return this.enqueue(async () => {
      await this.beforeMove(ms);
      const target = this.clock.now() + ms;
      // At the end the clock is `ms` ahead of where it would be without the move, as before walks.
      const offsetAfter = this.clock.offsetMs + ms;
      let due: Registered[] = this.tasks;
      for (;;) {
        const at = await this.runTasks(due);
        await this.settle(due);
        // Strictly after the pass: work that stays due at its time (a failing item) cannot hold
        // the walk in place; it runs again at the end.
        const next = await this.nextStop(at + 1);
        if (next === null || next.at >= target) break;
        this.moveTo(next.at);
        due = this.tasks.filter((task) => !task.next || next.tasks.includes(task));
      }
      if (offsetAfter > this.clock.offsetMs) this.clock.advance(offsetAfter - this.clock.offsetMs);
      // The pass at the target is not settled: nothing after it needs to know what it schedules,
      // and the move answers without waiting for receivers (like the periodic pass).
      await this.runTasks(this.tasks);
    });
  }

  /** Waits for the pass in progress (if any) to end. */
  async idle(): Promise<void> {
    await this.pass;
  }

  private enqueue(work: () => Promise<unknown>): Promise<void> {
    const done = this.pass.then(work);
    this.pass = done.catch(() => undefined);
    return done.then(() => undefined);
  }

  /** One pass of `tasks` (in registration order) at the clock's time; returns that time. */
  private async runTasks(tasks: readonly Registered[]): Promise<number> {
    const at = this.clock.now();
    for (const task of tasks) {
      try {
        await task.run(this.clock.now());
      } catch (error) {
        this.onError(task.name, error);
      }
    }
    return at;
  }

  /** Waits for the work the tasks' runs started, so what it schedules is known to the next question. */
  private async settle(tasks: readonly Registered[]): Promise<void> {
    for (const task of tasks) {
      try {
        await task.settle?.();
      } catch (error) {
        this.onError(task.name, error);
      }
    }
  }

  /** The earliest due time at or after `from` over the tasks that report one, and the tasks due then. */
  private async nextStop(from: number): Promise<{ at: number; tasks: Registered[] } | null> {
    const reported = await Promise.all(
      this.tasks.map(async (task) => {
        try {
          return { task, at: task.next ? await task.next(from) : null };
        } catch (error) {
          this.onError(task.name, error);
          return { task, at: null };
        }
      }),
    );
    let stop: { at: number; tasks: Registered[] } | null = null;
    for (const { task, at } of reported) {
      if (at === null || at < from) continue;
      if (stop === null || at < stop.at) stop = { at, tasks: [task] };
      else if (at === stop.at) stop.tasks.push(task);
    }
    return stop;
  }

  private moveTo(at: number): void {
    const ahead = at - this.clock.now();
    if (ahead > 0) this.clock.advance(ahead);
  }
}

/**
 * Reads a store's next due time: `sql` selects one timestamp column `due` (a `min(...)` over the
 * store's rows due from `$from`); its epoch ms, or null when nothing is due.
 */
export async function readNextDue(
  db: Pick<Database, 'read'>,
  sql: string,
  params: Params & { from: number },
): Promise<number | null> {
  const [row] = await db.read<{ due: bigint | number | null }>(
    `SELECT epoch_ms(due) AS due FROM (${sql})`,
    params,
  );
  return row?.due === null || row?.due === undefined ? null : Number(row.due);
}
