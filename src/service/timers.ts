/** The service's periodic jobs: due work every second, the price list, the event log's pruning; and the churn. */
import { startJob } from '../shared/jobs/index.js';
import type { Clock } from './core/clock.js';
import type { DueWork } from './core/due-work.js';
import type { Catalogue } from './market/catalogue.js';
import type { PriceList } from './market/prices/price-list.js';
import type { MarketChurn } from './sim/churn.js';

/** What the timers drive. */
export interface TimedParts {
  clock: Clock;
  due: DueWork;
  prices: PriceList;
  catalogue: Catalogue;
  churn: MarketChurn;
}

/** Starts the churn and the periodic jobs; returns the function that stops them. */
export function startTimers(
  parts: TimedParts,
  options: { priceIntervalMs?: number },
  log: (error: unknown, what: string) => void,
): () => Promise<void> {
  parts.churn.start();
  const jobs = [
    startJob({ name: 'due work', everyMs: 1_000, run: () => parts.due.runDue() }),
    startJob({
      name: 'price list',
      everyMs: options.priceIntervalMs ?? 60_000,
      run: () => parts.prices.rebuild(),
      onError: (error) => log(error, 'price list rebuild failed'),
    }),
    startJob({
      name: 'event log pruning',
      everyMs: 60_000,
      run: () => parts.catalogue.log.prune(parts.clock.now()),
      onError: (error) => log(error, 'event log prune failed'),
    }),
  ];
  return async () => {
    await Promise.all(jobs.map((job) => job.stop()));
    await parts.churn.stop();
    await parts.due.idle();
  };
}
