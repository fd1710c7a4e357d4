import { describe, expect, it } from 'vitest';
import { RollingWindow } from '../../src/client/rolling-window.js';

/** A fake clock whose sleep moves it forward and remembers each wait. */
function fakeTime() {
  const time = { now: 0, sleeps: [] as number[] };
  const clock = { now: () => time.now };
  const sleep = async (ms: number) => {
    time.sleeps.push(ms);
    time.now += ms;
  };
  return { time, clock, sleep };
}

describe('RollingWindow', () => {
  it('grants the limit at once, then waits until the oldest answered request leaves the window', async () => {
    const { time, clock, sleep } = fakeTime();
    const window = new RollingWindow(3, 1000, clock, sleep);
    for (let i = 0; i < 3; i++) {
      const slot = await window.acquire();
      time.now += 100;
      slot.settle();
    }
    // Stamps at 100, 200, 300: a rolling window frees the first at 1100, not at a bucket edge.
    const fourth = await window.acquire();
    expect(time.now).toBe(1100);
    expect(time.sleeps).toEqual([800]);
    fourth.settle();
    await window.acquire();
    expect(time.now).toBe(1200);
  });

  it('holds a slot while its request is in flight and frees it when released', async () => {
    const { time, clock, sleep } = fakeTime();
    const window = new RollingWindow(1, 1000, clock, sleep);
    const first = await window.acquire();
    let granted = false;
    const second = window.acquire().then((slot) => {
      granted = true;
      return slot;
    });
    // One turn of the event loop: a grant would have settled by then.
    await new Promise(setImmediate);
    expect(granted).toBe(false);
    first.release();
    await second;
    expect(granted).toBe(true);
    expect(time.sleeps).toEqual([]);
  });

  it('grants slots first come, first served', async () => {
    const { clock, sleep } = fakeTime();
    const window = new RollingWindow(1, 1000, clock, sleep);
    const order: number[] = [];
    await Promise.all(
      [0, 1, 2, 3].map(async (i) => {
        const slot = await window.acquire();
        order.push(i);
        slot.settle();
      }),
    );
    expect(order).toEqual([0, 1, 2, 3]);
  });

  it('waits out a pause before granting', async () => {
    const { time, clock, sleep } = fakeTime();
    const window = new RollingWindow(5, 1000, clock, sleep);
    window.pause(7000);
    await window.acquire();
    expect(time.now).toBe(7000);
    expect(window.used()).toBe(1);
  });

  it('counts recorded requests without waiting', async () => {
    const { time, clock, sleep } = fakeTime();
    const window = new RollingWindow(1, 60_000, clock, sleep);
    window.record();
    expect(window.used()).toBe(1);
    await window.acquire();
    expect(time.sleeps).toEqual([60_000]);
  });
});
