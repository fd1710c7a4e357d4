/**
 * The time axis every time chart of a report shares: the window widened to whole grains (so the
 * first and last bars and points lie inside it), and ticks a step apart that names each day.
 */
import type { Grain, ReportWindow } from './report-window.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
const GRAIN_MS: Record<Grain, number> = { minute: MINUTE_MS, hour: HOUR_MS, day: DAY_MS };

/** Steps between ticks, the smallest that gives at most {@link MAX_TICKS} is taken. */
const TICK_STEPS_MS = [
  ...[1, 2, 5, 10, 15, 30].map((n) => n * MINUTE_MS),
  ...[1, 2, 3, 6, 12].map((n) => n * HOUR_MS),
  ...[1, 2, 7, 14].map((n) => n * DAY_MS),
];
/** About 80 px a label on a 640 px chart. */
const MAX_TICKS = 8;

/**
 * Each tick names the coarsest unit that tells it apart (a day at midnight, then its hours),
 * in UTC, 24-hour, never a bare `:30`.
 */
const UTC_LABELS = {
  year: '%Y',
  quarter: '%b %Y',
  month: '%b %Y',
  week: '%b %d',
  date: '%b %d',
  hours: '%H:%M',
  minutes: '%H:%M',
  seconds: '%H:%M:%S',
  milliseconds: '%H:%M:%S',
};

/**
 * The span a report's time charts show: its window from the start of its first grain to the end
 * of its last, so the first day's bar of a window starting at noon is drawn whole, not cut.
 */
export function timeDomain(window: ReportWindow): [number, number] {
  const grain = GRAIN_MS[window.grain];
  return [Math.floor(window.fromMs / grain) * grain, Math.ceil(window.toMs / grain) * grain];
}

/**
 * Where the ticks of a domain go: every whole step (a minute to two weeks) within it, the step the
 * smallest that keeps them at most {@link MAX_TICKS}. Null past that: Vega then ticks by months.
 */
export function timeTicks([fromMs, toMs]: readonly [number, number]): number[] | null {
  const step = TICK_STEPS_MS.find((s) => (toMs - fromMs) / s <= MAX_TICKS);
  if (step === undefined) return null;
  const ticks: number[] = [];
  for (let t = Math.ceil(fromMs / step) * step; t <= toMs; t += step) ticks.push(t);
  return ticks;
}

/** The x encoding of field `field` on a report's time axis (titled `title`, none when empty). */
export function timeAxis(title: string, window: ReportWindow, field = 't') {
  const domain = timeDomain(window);
  const values = timeTicks(domain);
  return {
    field,
    type: 'temporal' as const,
    title,
    scale: { type: 'utc' as const, domain },
    axis: {
      labelOverlap: true,
      labelFlush: true,
      format: UTC_LABELS,
      ...(values ? { values } : { tickCount: MAX_TICKS }),
    },
  };
}
