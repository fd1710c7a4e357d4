/** WarehouseThreads: the file closes only after the work in flight and the thread count it set. */
import { describe, expect, it, vi } from 'vitest';
import { WarehouseThreads } from '../../src/warehouse/threads.js';

describe('WarehouseThreads.drained', () => {
  it('waits for work in flight and for the change of threads its end asks for', async () => {
    const changes: number[] = [];
    const threads = new WarehouseThreads(async (n) => {
      changes.push(n);
    });
    let finish = () => {};
    const work = threads.widened(() => new Promise<void>((resolve) => (finish = resolve)));
    await vi.waitFor(() => expect(changes).toEqual([2]));

    let drained = false;
    const closing = threads.drained().then(() => {
      drained = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(drained).toBe(false);

    finish();
    await work;
    await closing;
    expect(changes).toEqual([2, 1]);
  });

  it('resolves at once with nothing in flight', async () => {
    const threads = new WarehouseThreads(async () => undefined);
    await expect(threads.drained()).resolves.toBeUndefined();
  });
});
