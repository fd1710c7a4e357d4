/** Holds the service's writer with a unit of work that waits, so the units queued meanwhile share the next transaction. */
import type { UnitOfWorkRunner } from '../../src/service/core/unit-of-work.js';

/** Starts a unit that blocks until `release` is called; resolves once it is running. */
export async function holdWriter(units: UnitOfWorkRunner): Promise<{ release(): void }> {
  let release: () => void = () => undefined;
  await new Promise<void>((running) => {
    void units.run(
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
          running();
        }),
    );
  });
  return { release: () => release() };
}
