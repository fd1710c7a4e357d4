/** Helpers of the kill -9 tests: a free loopback port, stopping a child by signal, waiting for a collector to hold its warehouse. */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { expect, vi } from 'vitest';
import { controlFileOf } from '../../src/collector/control/protocol.js';

/** A port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

/** Sends `signal` to a child still running, waits for it to exit, and forgets it from `children`. */
export async function stopChild(
  child: ChildProcess,
  signal: NodeJS.Signals,
  children: Set<ChildProcess>,
): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill(signal);
    await once(child, 'exit');
  }
  children.delete(child);
}

/**
 * Waits until a collector holds the warehouse: its control file is there. A restart after kill -9
 * replays the write-ahead log first; under CI's full load one took more than 30 s.
 */
export async function holdsWarehouse(warehousePath: string): Promise<void> {
  await vi.waitFor(() => expect(existsSync(controlFileOf(warehousePath))).toBe(true), {
    timeout: 90_000,
  });
}
