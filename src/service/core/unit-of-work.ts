/**
 * The one transaction seam of the service: a unit of work is the writes of one operation (an
 * order, a claim, an offer closing) that every store makes through `uow.tx` (`applyIn(uow, …)`,
 * `post(uow, …)`, `insert(uow, …)`), plus the in-memory effects (index updates, mirrors,
 * listeners) that run only once those writes have committed.
 *
 * Units queued while a transaction is running commit together in the next one (group commit):
 * they run one after another inside it, and their effects run in order after its commit, before
 * any later unit starts. A unit that fails before writing anything fails alone; one that fails
 * after writing rolls the shared transaction back, and each unit of it then runs again alone.
 */
import type { Database, Params, Tx } from '../../shared/database.js';

/** The open transaction as one unit of work sees it, and the effects waiting for its commit. */
export interface UnitOfWork {
  /** Statements of this unit, inside the open transaction. */
  readonly tx: Tx;
  /** Epoch ms at which the unit started, from the service clock. */
  readonly now: number;
  /**
   * The transaction this unit shares with others: stores key the state they keep between the
   * statements of one transaction (working balances, planned log positions) by it.
   */
  readonly batch: object;
  /** Runs `effect` after the commit, before any later unit starts; dropped on rollback. */
  afterCommit(effect: () => void): void;
  /**
   * Writes state the units of the transaction share once, after the last of them and before the
   * commit (an account's balances after all its movements): the last flush given for a key wins.
   */
  beforeCommit(key: string, flush: (tx: Tx) => Promise<void>): void;
}

/** Most units one transaction carries. */
const MAX_UNITS_PER_TRANSACTION = 64;

interface Queued {
  work: (uow: UnitOfWork) => Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Outcome =
  | { unit: Queued; ok: true; value: unknown; effects: (() => void)[] }
  | { unit: Queued; ok: false; error: unknown };

/** A unit that failed after writing: the shared transaction must roll back. */
class WroteThenFailed extends Error {
  constructor(readonly failure: unknown) {
    super('a unit of work failed after writing');
  }
}

/** Runs units of work in as few transactions as the load allows, effects strictly in order. */
export class UnitOfWorkRunner {
  private readonly waiting: Queued[] = [];
  /** The drain in progress; cleared in the same step that finds the queue empty, so no unit is missed. */
  private draining: Promise<void> | null = null;

  constructor(
    private readonly db: Database,
    private readonly now: () => number,
  ) {}

  /** Runs `work` in a transaction; a throw rolls back everything it wrote and drops its effects. */
  run<T>(work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.draining ??= this.drainAll();
    });
  }

  /** Units waiting for the next transaction. */
  queued(): number {
    return this.waiting.length;
  }

  /** Waits for every unit of work queued so far. */
  async drain(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drainAll(): Promise<void> {
    try {
      while (this.waiting.length > 0)
        await this.runTogether(this.waiting.splice(0, MAX_UNITS_PER_TRANSACTION));
    } finally {
      this.draining = null;
    }
  }

  private async runTogether(units: Queued[]): Promise<void> {
    let outcomes: Outcome[];
    try {
      outcomes = await this.db.transaction((tx) => this.runUnits(tx, units));
    } catch (error) {
      if (units.length > 1) {
        for (const unit of units) await this.runTogether([unit]);
      } else units[0]?.reject(error instanceof WroteThenFailed ? error.failure : error);
      return;
    }
    for (const outcome of outcomes) {
      if (!outcome.ok) {
        outcome.unit.reject(outcome.error);
        continue;
      }
      for (const effect of outcome.effects) effect();
      outcome.unit.resolve(outcome.value);
    }
  }

  private async runUnits(tx: Database, units: readonly Queued[]): Promise<Outcome[]> {
    const batch = {};
    const flushes = new Map<string, (tx: Tx) => Promise<void>>();
    const outcomes: Outcome[] = [];
    for (const unit of units) {
      const counted = countingTx(tx);
      const effects: (() => void)[] = [];
      const unitFlushes = new Map<string, (tx: Tx) => Promise<void>>();
      const uow: UnitOfWork = {
        tx: counted,
        now: this.now(),
        batch,
        afterCommit: (e) => effects.push(e),
        beforeCommit: (key, flush) => unitFlushes.set(key, flush),
      };
      try {
        outcomes.push({ unit, ok: true, value: await unit.work(uow), effects });
        for (const [key, flush] of unitFlushes) flushes.set(key, flush);
      } catch (error) {
        if (counted.writes > 0 || unitFlushes.size > 0) throw new WroteThenFailed(error);
        outcomes.push({ unit, ok: false, error });
      }
    }
    for (const flush of flushes.values()) await flush(tx);
    return outcomes;
  }
}

/** The transaction's statements, counting the ones that may write (`all` only reads inside a unit). */
function countingTx(tx: Database): Tx & { writes: number } {
  const counted = {
    writes: 0,
    run: (sql: string, params?: Params) => {
      counted.writes += 1;
      return tx.run(sql, params);
    },
    runPrepared: (sql: string, params?: Params) => {
      counted.writes += 1;
      return tx.runPrepared(sql, params);
    },
    all: <T = Record<string, unknown>>(sql: string, params?: Params) => tx.all<T>(sql, params),
  };
  return counted;
}
