/**
 * The upstream's clock, measured rather than trusted: each answer's `Date` header (the upstream's
 * time, whole seconds) against the middle of the request's round trip on the collector's clock.
 * The offset is the median of the last samples, so one slow answer or one odd header moves nothing.
 */
import type { AnswerTiming, RequestObserver } from './metrics/request-meter.js';

/** Samples the median is taken over. */
const SAMPLES = 15;

/** A `Date` header drops the milliseconds: on average the true time is half a second later. */
const TRUNCATION_MS = 500;

/**
 * Offsets under a second cannot be told from none with whole-second headers: they count as 0, so
 * a deployment whose clock agrees with the collector's is never moved by the measure's noise.
 */
const RESOLUTION_MS = 1000;

/** The measured offset of the upstream's clock: upstream time minus the collector's, in ms. */
export class UpstreamClock implements RequestObserver {
  private readonly samples: number[] = [];
  private median: number | null = null;

  answered(_source: string, _status: number, timing: AnswerTiming): void {
    if (timing.dateHeader === undefined) return;
    const upstream = Date.parse(timing.dateHeader);
    if (Number.isNaN(upstream)) return;
    const local = (timing.sentAtMs + timing.answeredAtMs) / 2;
    this.samples.push(upstream + TRUNCATION_MS - local);
    if (this.samples.length > SAMPLES) this.samples.shift();
    const sorted = [...this.samples].sort((a, b) => a - b);
    this.median = sorted[Math.floor(sorted.length / 2)] ?? null;
  }

  /**
   * Upstream minus collector time in ms (positive: the upstream runs ahead), 0 within the headers'
   * resolution, null before an answer.
   */
  offsetMs(): number | null {
    if (this.median === null) return null;
    return Math.abs(this.median) < RESOLUTION_MS ? 0 : Math.round(this.median);
  }
}
