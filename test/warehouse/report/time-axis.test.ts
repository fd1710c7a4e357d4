/** The report's time axis: whole grains at both ends, and ticks that name each day of a long window. */
import { describe, expect, it } from 'vitest';
import { reportWindow } from '../../../src/warehouse/report/report-window.js';
import { timeDomain, timeTicks } from '../../../src/warehouse/report/time-axis.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('the report time axis', () => {
  it('widens a window to whole grains, so the first and last bars lie inside it', () => {
    const days = { ...reportWindow('7d', at('2026-11-20T12:00:01.000Z')), grain: 'day' as const };
    expect(timeDomain(days).map(iso)).toEqual(['2026-11-13T00:00:00.000Z', '2026-11-21T00:00:00.000Z']);
    const minutes = reportWindow('5m', at('2026-11-20T12:00:01.000Z'));
    expect(timeDomain(minutes).map(iso)).toEqual(['2026-11-20T11:55:00.000Z', '2026-11-20T12:01:00.000Z']);
  });

  it('ticks every minute of five minutes, and every 12 hours of three days, midnights included', () => {
    expect(timeTicks([at('2026-11-20T11:55:00.000Z'), at('2026-11-20T12:01:00.000Z')])).toHaveLength(7);
    const ticks = timeTicks([at('2026-11-17T12:00:00.000Z'), at('2026-11-20T13:00:00.000Z')]) ?? [];
    expect(ticks.map(iso)).toEqual([
      '2026-11-17T12:00:00.000Z',
      '2026-11-18T00:00:00.000Z',
      '2026-11-18T12:00:00.000Z',
      '2026-11-19T00:00:00.000Z',
      '2026-11-19T12:00:00.000Z',
      '2026-11-20T00:00:00.000Z',
      '2026-11-20T12:00:00.000Z',
    ]);
  });

  it('leaves the ticks of a window of months to Vega', () => {
    expect(timeTicks([at('2026-01-01T00:00:00.000Z'), at('2026-11-01T00:00:00.000Z')])).toBeNull();
  });
});
