import { describe, expect, it } from 'vitest';
import { RollingWindowLimiter } from '../../src/service/http/rate-limiter.js';
import { FailedAuthGuard } from '../../src/shared/failed-auth.js';

describe('RollingWindowLimiter memory', () => {
  it('forgets addresses whose minute has passed, however many were seen', () => {
    const limiter = new RollingWindowLimiter();
    for (let i = 0; i < 100_000; i++) {
      const address = `ip:10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`;
      expect(limiter.take(address, 'read', Math.floor(i / 10)).allowed).toBe(true);
    }
    expect(limiter.size).toBe(100_000);
    limiter.take('ip:203.0.113.1', 'read', 10_000 + 60_000);
    expect(limiter.size).toBe(1);
  });

  it('still limits each subject exactly over the rolling minute', () => {
    const limiter = new RollingWindowLimiter();
    for (let i = 0; i < 100; i++) expect(limiter.take('key:a', 'read', i * 100).allowed).toBe(true);
    expect(limiter.take('key:a', 'read', 20_000)).toEqual({
      allowed: false,
      retryAfterSeconds: 40,
      limit: 100,
    });
    expect(limiter.take('key:a', 'read', 60_000).allowed).toBe(true);
  });
});

describe('FailedAuthGuard memory', () => {
  it('forgets failing addresses after their minute and banned ones after their ban', () => {
    const guard = new FailedAuthGuard({ maxFailures: 1 });
    for (let i = 0; i < 50_000; i++)
      guard.recordFailure(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, i / 10);
    // Each address failed once: inside the limit, so no ban yet.
    expect(guard.size).toBe(50_000);
    for (let i = 0; i < 1000; i++) {
      guard.recordFailure(`203.0.${i >> 8}.${i & 255}`, 70_000 + i);
      expect(guard.recordFailure(`203.0.${i >> 8}.${i & 255}`, 70_000 + i)).toBe(370_000 + i);
    }
    expect(guard.size).toBe(1000);
    guard.recordFailure('192.0.2.1', 371_000);
    expect(guard.size).toBe(1);
  });
});
