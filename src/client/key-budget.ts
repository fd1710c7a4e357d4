/**
 * One request budget per API key, shared by every client of the same base URL and key in the
 * process: a rolling-window limiter in front of a p-queue for reads, and a separate one for
 * snapshot downloads, so that all collectors together stay inside the key's published limits.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import PQueue from 'p-queue';
import type { BudgetLimits, ClientClock, Sleep } from './client-options.js';
import { ClientArgumentError, isNetworkError } from './errors.js';
import { RollingWindow } from './rolling-window.js';

/** Set while work runs whose reads go before every other read of their key (see {@link readFirst}). */
const firstInLine = new AsyncLocalStorage<boolean>();

/**
 * Runs `work` with each read it makes, now or later in its promises, granted before every read of
 * the same key's budget that was not asked first (those wait, in their order, until no such read
 * waits). For work that must end before the rest makes sense, like a collector's first full read
 * of a catalogue.
 */
export function readFirst<T>(work: () => T): T {
  return firstInLine.run(true, work);
}

/** The budget of one key: reads and snapshot downloads, each in its own rolling window. */
export class KeyBudget {
  /** Standard reads (every keyed GET but the snapshot). */
  readonly reads: RollingWindow;
  /** Snapshot downloads: only 200 answers count; a 304 is free. */
  readonly snapshots: RollingWindow;
  private readonly readQueue: PQueue;
  private readonly snapshotQueue = new PQueue({ concurrency: 1 });

  constructor(
    readonly limits: BudgetLimits,
    clock: ClientClock,
    sleep: Sleep,
  ) {
    this.reads = new RollingWindow(limits.read, limits.windowMs, clock, sleep);
    this.snapshots = new RollingWindow(limits.snapshot, limits.windowMs, clock, sleep);
    this.readQueue = new PQueue({ concurrency: limits.concurrency });
  }

  /**
   * Runs one read attempt in turn, once the window has room; it counts whatever the answer. When
   * `signal` aborts, a read still queued or waiting for room ends at once without being sent. A
   * read made inside {@link readFirst} goes ahead of the others, in the queue and for the window.
   */
  read<T>(send: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const first = firstInLine.getStore() === true;
    return this.readQueue.add(
      async () => {
        const slot = await this.reads.acquire(signal, first);
        try {
          return await send();
        } finally {
          slot.settle();
        }
      },
      { signal, priority: first ? 1 : 0 },
    );
  }

  /**
   * Runs one snapshot attempt. A conditional one (an ETag is sent) goes at once, since a 304 costs
   * nothing, and is counted if it comes back 200; an unconditional one waits for a download slot
   * (given up at once when `signal` aborts).
   */
  async snapshot<T extends { status: number }>(
    conditional: boolean,
    send: () => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    if (conditional) {
      const result = await send();
      if (result.status === 200) this.snapshots.record();
      return result;
    }
    return this.snapshotQueue.add(
      async () => {
        const slot = await this.snapshots.acquire(signal);
        let result: T;
        try {
          result = await send();
        } catch (error) {
          // The server counts only downloads it served; after a lost connection we cannot know.
          if (isNetworkError(error)) slot.settle();
          else slot.release();
          throw error;
        }
        if (result.status === 200) slot.settle();
        else slot.release();
        return result;
      },
      { signal },
    );
  }
}

interface RegistryEntry {
  budget: KeyBudget;
  users: number;
}

const registry = new Map<string, RegistryEntry>();

/** A budget handed to one client, with the way to give it back. */
export interface BudgetClaim {
  budget: KeyBudget;
  /** Drops this client's hold on the budget. */
  release(): void;
}

/**
 * The process-wide budget of `baseUrl` + `apiKey`, created by the first client with its limits,
 * clock and sleep. It outlives its clients, so a client made again within the window still sees
 * the requests sent before. Asking for other limits while another client holds the budget is
 * refused rather than silently ignored.
 */
export function claimBudget(
  baseUrl: string,
  apiKey: string,
  limits: BudgetLimits,
  clock: ClientClock,
  sleep: Sleep,
): BudgetClaim {
  const id = `${baseUrl}\n${apiKey}`;
  let entry = registry.get(id);
  if (entry && !sameLimits(entry.budget.limits, limits)) {
    if (entry.users > 0) {
      throw new ClientArgumentError(
        `new MarketClient: another MarketClient of this key already uses the budget ${JSON.stringify(entry.budget.limits)}; pass the same limits to every client of a key`,
      );
    }
    entry = undefined;
  }
  if (!entry) {
    entry = { budget: new KeyBudget(limits, clock, sleep), users: 0 };
    registry.set(id, entry);
  }
  entry.users++;
  const held = entry;
  let released = false;
  return {
    budget: held.budget,
    release() {
      if (released) return;
      released = true;
      held.users--;
    },
  };
}

function sameLimits(a: BudgetLimits, b: BudgetLimits): boolean {
  return (
    a.read === b.read &&
    a.snapshot === b.snapshot &&
    a.windowMs === b.windowMs &&
    a.concurrency === b.concurrency
  );
}
