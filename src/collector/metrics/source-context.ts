/**
 * Which source a request is made for: each source runs its work inside {@link inSource}, so what
 * observes the HTTP requests below it (request-meter.ts) labels them without the sources passing
 * a name down through the client.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<string>();

/** The label of requests made outside any source (the start-up's own calls). */
export const NO_SOURCE = 'collector';

/** Runs `work` as `source`'s: every request it makes, now or later in its promises, is `source`'s. */
export function inSource<T>(source: string, work: () => T): T {
  return current.run(source, work);
}

/** The source the running code works for. */
export function currentSource(): string {
  return current.getStore() ?? NO_SOURCE;
}
