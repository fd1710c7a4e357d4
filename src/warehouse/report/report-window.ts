/** The time window of a report (`7d`, `24h`, `90m`) and the grain of its time series. */

/** How finely a report's time series are cut, and the model each grain is read from. */
export type Grain = 'minute' | 'hour' | 'day';

/** A report's window: its end (the warehouse's clock), its start, and the grain its length asks for. */
export interface ReportWindow {
  /** As given, e.g. `7d`. */
  text: string;
  fromMs: number;
  toMs: number;
  grain: Grain;
  /** True when the window was cut to the data the warehouse has: it starts later than asked. */
  fitted: boolean;
}

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const MAX_MS = 366 * UNIT_MS.d;

/** True when `text` is a window: a whole number of minutes, hours or days (`90m`, `24h`, `7d`), up to a year. */
export function isWindow(text: string): boolean {
  return windowMs(text) !== null;
}

/**
 * The window of `text` ending at `toMs`. Minutes up to 6 hours, hours up to 3 days, days beyond,
 * so a chart has between a few dozen and a few hundred points per line.
 */
export function reportWindow(text: string, toMs: number): ReportWindow {
  const ms = windowMs(text);
  if (ms === null) throw new Error(`the window "${text}" is not a number of minutes, hours or days, e.g. 7d`);
  return { text, fromMs: toMs - ms, toMs, grain: grainOf(ms), fitted: false };
}

/**
 * The window cut to start at `firstDataMs` (the first landing, to the minute before) when the
 * warehouse's data starts later than the window, with the grain of what is left: a fresh
 * collector's 7-day report draws its minutes, not one dot per item.
 */
export function fitWindow(window: ReportWindow, firstDataMs: number | null): ReportWindow {
  if (firstDataMs === null) return window;
  const fromMs = Math.floor(firstDataMs / UNIT_MS.m) * UNIT_MS.m;
  if (fromMs <= window.fromMs || fromMs >= window.toMs) return window;
  return { ...window, fromMs, grain: grainOf(window.toMs - fromMs), fitted: true };
}

/** Minutes up to 6 hours, hours up to 3 days, days beyond. */
function grainOf(ms: number): Grain {
  return ms <= 6 * UNIT_MS.h ? 'minute' : ms <= 3 * UNIT_MS.d ? 'hour' : 'day';
}

function windowMs(text: string): number | null {
  const match = /^([1-9]\d{0,5})([mhd])$/.exec(text);
  if (!match?.[1] || !match[2]) return null;
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  return ms <= MAX_MS ? ms : null;
}
