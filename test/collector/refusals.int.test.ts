/** The collector through refusals: an address ban backs off and resumes by itself; only a refused key stops a source. */
import { describe, expect, it } from 'vitest';
import { startTestCollector, waitForSweeps } from '../helpers/collector.js';
import { startTestService } from '../helpers/service.js';

const GAMES = [730, 570, 252490];

describe('collector refusals', () => {
  it('backs off through a 5-minute address ban and resumes every source when it ends', async () => {
    const t = await startTestService({ listings: 300, rateLimits: { read: 1_000_000 } });
    const { key } = await t.account({ balance_usd: 100 });
    const collector = await startTestCollector(t, key);
    try {
      await waitForSweeps(collector, GAMES, 0);
      // 31 bad keys from this address ban it: every request of the collector now answers 401.
      for (let i = 0; i < 31; i++) await t.call('/games', { key: 'svc_pub_typo' });
      await expect
        .poll(() => collector.status().some((s) => s.lastError?.includes('too_many_failed_auth') ?? false), {
          timeout: 20_000,
          message: 'a source to meet the ban',
        })
        .toBe(true);
      expect(collector.status().filter((s) => s.stopped !== null)).toEqual([]);
      const banEnds = Date.now();
      t.clock.advance(301_000);
      await waitForSweeps(collector, GAMES, banEnds);
      await expect
        .poll(() => collector.status().find((s) => s.name === 'stream')?.connected === true, {
          timeout: 30_000,
          message: 'the stream',
        })
        .toBe(true);
      expect(collector.status().filter((s) => s.stopped !== null)).toEqual([]);
    } finally {
      await collector.stop();
      await t.close();
    }
  });

  it('stops a source whose key was revoked, and says what to do', async () => {
    const t = await startTestService({ listings: 300, rateLimits: { read: 1_000_000 } });
    const { key, keyId } = await t.account({ balance_usd: 100 });
    const collector = await startTestCollector(t, key);
    try {
      await waitForSweeps(collector, GAMES, 0);
      await t.sandbox(`/keys/${keyId}`, undefined, 'DELETE');
      await expect
        .poll(
          () => collector.status().filter((s) => s.stopped?.includes('invalid_api_key') ?? false).length >= 3,
          { timeout: 30_000, message: 'sources to stop on the revoked key' },
        )
        .toBe(true);
      const stopped = collector.status().find((s) => s.stopped !== null);
      expect(stopped?.stopped).toContain('create a new key');
    } finally {
      await collector.stop();
      await t.close();
    }
  });
});
