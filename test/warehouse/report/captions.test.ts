/** The FX chart of a young warehouse, flat at 0 %, says that nothing has moved yet rather than nothing. */
import { describe, expect, it } from 'vitest';
import { describeChart } from '../../../src/warehouse/report/chart-specs.js';
import { reportWindow } from '../../../src/warehouse/report/report-window.js';

const window = reportWindow('5m', Date.parse('2026-11-20T12:05:00.000Z'));
const row = (currency: string, t: string, change_pct: number) => ({
  item: 'AWP | Test',
  currency,
  t,
  change_pct,
});

describe('the FX chart caption', () => {
  it('says nothing has moved yet when every currency is still at 0 %', () => {
    const { caption } = describeChart(
      'fx',
      [row('EUR', '2026-11-20T12:01:00.000Z', 0), row('SEK', '2026-11-20T12:01:00.000Z', 0)],
      window,
    );
    expect(caption).toMatch(/Nothing has moved yet: one reading in the window, every currency at 0 %/);
  });

  it('says nothing of the kind once a currency has moved', () => {
    const { caption } = describeChart(
      'fx',
      [row('EUR', '2026-11-20T12:01:00.000Z', 0), row('EUR', '2026-11-20T12:04:00.000Z', 0.12)],
      window,
    );
    expect(caption).not.toMatch(/Nothing has moved/);
  });
});
