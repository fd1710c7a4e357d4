/** Runs the service's market churn for a number of changes rather than for a length of time. */

import { expect, vi } from 'vitest';
import type { TestService } from './service.js';

/** What {@link churnUntil} waits for. */
export interface ChurnGoal {
  /** Changes the catalogue must have committed (of `appId` alone when given) before the pause. */
  changes: number;
  /** Listings appearing or leaving per second while it runs. */
  rate: number;
  appId?: number;
  timeoutMs?: number;
}

/**
 * Resumes the churn, waits until it has committed `changes` changes, then pauses it; resolves with
 * how many changes were committed in all (a tick in flight at the pause may add a few).
 */
export async function churnUntil(t: TestService, goal: ChurnGoal): Promise<number> {
  let committed = 0;
  const stop = t.service.context.catalogue.onChange((batch) => {
    committed += batch.filter((c) => goal.appId === undefined || c.entry.appId === goal.appId).length;
  });
  try {
    await t.sandbox('/simulator', { paused: false, rate_per_second: goal.rate });
    await vi.waitFor(() => expect(committed >= goal.changes).toBe(true), {
      timeout: goal.timeoutMs ?? 15_000,
    });
    await t.sandbox('/simulator', { paused: true });
    return committed;
  } finally {
    stop();
  }
}
