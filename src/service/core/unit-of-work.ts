/**
 * The one transaction seam of the service: a unit of work is one DuckDB transaction that every
 * store writes into (`applyIn(uow, …)`, `post(uow, …)`, `insert(uow, …)`), plus the in-memory
 * effects (index updates, mirrors, listeners) that run only once it has committed.
 */
import type { Database } from '../../shared/database.js';

/** The open transaction and the effects waiting for its commit. */
export interface UnitOfWork {
  /** The database inside the open transaction (writer connection). */
  readonly tx: Database;
  /** Epoch ms at which the unit of work started, from the service clock. */
  readonly now: number;
  /** Runs `effect` after the commit, before the next unit of work starts; dropped on rollback. */
  afterCommit(effect: () => void): void;
}

/**
 * Runs units of work one at a time. Each one's effects run right after its commit and before the
 * next one starts, so in-memory state read inside a unit of work always matches the database.
 */
export class UnitOfWorkRunner {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Database,
    private readonly now: () => number,
  ) {}

  /** Runs `work` in one transaction; a throw rolls back everything it wrote and drops its effects. */
  run<T>(work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
    const result = this.tail.then(() => this.runNow(work));
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Waits for every unit of work queued so far. */
  async drain(): Promise<void> {
    await this.tail;
  }

  private async runNow<T>(work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
    const effects: (() => void)[] = [];
    const value = await this.db.transaction((tx) =>
      work({ tx, now: this.now(), afterCommit: (effect) => effects.push(effect) }),
    );
    for (const effect of effects) effect();
    return value;
  }
}
