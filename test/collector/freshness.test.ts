/** Freshness states from a source's last success, its default thresholds, and `--freshness` rules. */
import { describe, expect, it } from 'vitest';
import { collectFlags } from '../../src/cli/options.js';
import { COLLECTOR_DEFAULTS } from '../../src/collector/collector-options.js';
import {
  defaultFreshness,
  freshnessOf,
  parseFreshnessRule,
  thresholdsOf,
} from '../../src/collector/freshness.js';

describe('freshness', () => {
  const thresholds = { warnSeconds: 60, errorSeconds: 300 };

  it('is ok up to the warn age, warn up to the error age, then error', () => {
    const at = (ageSeconds: number) =>
      freshnessOf(thresholds, 1_000_000, 0, 1_000_000 + ageSeconds * 1000).state;
    expect([at(0), at(60), at(61), at(300), at(301)]).toEqual(['ok', 'ok', 'warn', 'warn', 'error']);
  });

  it('counts from the start while a source never succeeded', () => {
    expect(freshnessOf(thresholds, null, 0, 400_000)).toMatchObject({ state: 'error', ageSeconds: 400 });
  });

  it('defaults to ages that fit each schedule, a source taking its kind’s rule', () => {
    const rules = defaultFreshness(COLLECTOR_DEFAULTS.sources);
    expect(thresholdsOf(rules, 'stream')).toEqual({ warnSeconds: 60, errorSeconds: 300 });
    // Dota 2 sweeps every 2 minutes, CS2's every 10.
    expect(thresholdsOf(rules, 'sweep:570')).toEqual({ warnSeconds: 360, errorSeconds: 720 });
    expect(thresholdsOf(rules, 'sweep:730')).toEqual({ warnSeconds: 1800, errorSeconds: 3600 });
    expect(thresholdsOf(rules, 'models')).toBeNull();
  });

  it('reads repeated --freshness SOURCE=WARN/ERROR flags and refuses a bad one', () => {
    const flag = collectFlags.freshness.type;
    expect(flag.parse(['stream=60/300', 'sweep:570=10/20.5'])).toEqual({
      stream: { warnSeconds: 60, errorSeconds: 300 },
      'sweep:570': { warnSeconds: 10, errorSeconds: 20.5 },
    });
    expect(() => parseFreshnessRule('stream=300/60')).toThrow(/at least the warn age/);
    expect(() => flag.parse(['stream:60'])).toThrow(/SOURCE=WARN\/ERROR/);
    expect(flag.parse(undefined)).toEqual({});
  });
});
