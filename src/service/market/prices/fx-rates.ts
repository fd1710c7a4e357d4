/**
 * FX rates against USD that drift slowly: a seeded random walk with one step per minute of the
 * service's clock, so the same seed and the same minutes always give the same rates.
 */
import {
  CURRENCIES,
  type Currency,
  type CurrencyResponse,
  TYPICAL_USD_RATES,
} from '../../../contract/market.js';
import type { Clock } from '../../core/clock.js';

/** Units per 1 USD at the start of the walk (late-2026 magnitudes). */
export const BASE_RATES: Record<Currency, number> = TYPICAL_USD_RATES;

const STEP_MS = 60_000;
/** Standard deviation of one minute's log-return (about 0.4 % a day). */
const STEP_SIGMA = 0.0001;
const SIGNIFICANT_DIGITS = 6;

/** Slowly drifting FX rates read from the service's clock. */
export class FxRates {
  private readonly origin: number;
  private step = 0;
  private readonly positions = CURRENCIES.map(() => 0);

  constructor(
    private readonly clock: Clock,
    private readonly seed: number,
    origin?: number,
  ) {
    this.origin = Math.floor((origin ?? clock.now()) / STEP_MS) * STEP_MS;
  }

  /** The rates in force now, with the minute they were set. */
  current(): CurrencyResponse {
    this.advanceTo(Math.max(0, Math.floor((this.clock.now() - this.origin) / STEP_MS)));
    const rates = {} as Record<Currency, number>;
    for (const [i, currency] of CURRENCIES.entries()) {
      const drift = currency === 'USD' ? 0 : STEP_SIGMA * (this.positions[i] ?? 0);
      rates[currency] = round(BASE_RATES[currency] * Math.exp(drift));
    }
    return { base: 'USD', rates, updated_at: new Date(this.origin + this.step * STEP_MS).toISOString() };
  }

  /** Walks every currency forward one step per elapsed minute (a long jump takes one scaled step). */
  private advanceTo(step: number): void {
    const steps = step - this.step;
    if (steps <= 0) return;
    for (const i of this.positions.keys()) {
      const position = this.positions[i] ?? 0;
      this.positions[i] =
        steps > MAX_EXACT_STEPS
          ? position + gaussian(this.seed, i, -step) * Math.sqrt(steps)
          : position + sumOfSteps(this.seed, i, this.step, step);
    }
    this.step = step;
  }
}

/** Beyond this many minutes at once (about 70 days), the walk takes one step of the same variance. */
const MAX_EXACT_STEPS = 100_000;

function sumOfSteps(seed: number, currency: number, from: number, to: number): number {
  let sum = 0;
  for (let s = from; s < to; s++) sum += gaussian(seed, currency, s);
  return sum;
}

/** A standard normal draw that depends only on its arguments. */
function gaussian(seed: number, currency: number, step: number): number {
  const u1 = (hash(seed, currency, step, 1) + 1) / 4_294_967_297;
  const u2 = hash(seed, currency, step, 2) / 4_294_967_296;
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

function hash(...parts: number[]): number {
  let h = 2_166_136_261;
  for (const part of parts) {
    h = Math.imul(h ^ (part | 0), 16_777_619);
    h = Math.imul(h ^ (h >>> 15), 2_246_822_507);
    h ^= h >>> 13;
  }
  return h >>> 0;
}

function round(value: number): number {
  return Number(value.toPrecision(SIGNIFICANT_DIGITS));
}
