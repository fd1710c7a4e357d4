/** Seeded pseudo-random numbers for the simulator (sfc32) with the helpers it needs; never Math.random. */

const TWO_POW_32 = 4294967296;

/** Mixes a 32-bit integer into a well-spread 32-bit unsigned integer (murmur3's finalizer). */
export function mix32(value: number): number {
  let h = value | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Hashes a seed, a non-negative integer up to 2^53 and a salt into one 32-bit unsigned integer.
 * @example hashSequence(42, 1001, 7) // the same three inputs always give the same number
 */
export function hashSequence(seed: number, sequence: number, salt = 0): number {
  const low = sequence >>> 0;
  const high = Math.floor(sequence / TWO_POW_32) >>> 0;
  let h = mix32(seed ^ 0x9e3779b9);
  h = mix32(h ^ low);
  h = mix32(h ^ high ^ 0x7f4a7c15);
  return mix32(h ^ Math.imul(salt, 0x27d4eb2f));
}

/** A small, fast generator (sfc32) that can be reseeded in place, so a hot loop allocates nothing. */
export class Random {
  private a = 0;
  private b = 0;
  private c = 0;
  private d = 0;

  /** Starts the stream of `seed` (any integer; only its low 32 bits matter). */
  constructor(seed = 0) {
    this.reseed(seed, 0);
  }

  /** Restarts the stream from a seed and a sequence number (e.g. one listing of a run). */
  reseed(seed: number, sequence: number): void {
    this.a = hashSequence(seed, sequence, 1);
    this.b = hashSequence(seed, sequence, 2);
    this.c = hashSequence(seed, sequence, 3);
    this.d = 1;
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  /** The next unsigned 32-bit integer. */
  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    return this.nextUint32() / TWO_POW_32;
  }

  /** A float in [min, max). */
  float(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** An integer in [min, max], both ends included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty array, uniformly. */
  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new RangeError('pick needs a non-empty array');
    return item;
  }

  /** An index drawn by weight from cumulative weights made by {@link cumulativeWeights}. */
  weighted(cumulative: Float64Array): number {
    const total = cumulative[cumulative.length - 1] ?? 0;
    const target = this.next() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((cumulative[mid] ?? 0) > target) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** An approximately standard normal number (Irwin-Hall of four uniforms, within ±3.46). */
  normal(): number {
    return (this.next() + this.next() + this.next() + this.next() - 2) * 1.7320508075688772;
  }

  /** An integer in [0, n) for any n up to 2^53, from 53 random bits. */
  below(n: number): number {
    const bits = (this.nextUint32() >>> 5) * 67108864 + (this.nextUint32() >>> 6);
    return Math.floor((bits / 9007199254740992) * n);
  }
}

/** Running sums of `weights`, for {@link Random.weighted}. */
export function cumulativeWeights(weights: readonly number[]): Float64Array {
  const out = new Float64Array(weights.length);
  let sum = 0;
  weights.forEach((w, i) => {
    if (!(w >= 0)) throw new RangeError(`weight ${i} must be a non-negative number`);
    sum += w;
    out[i] = sum;
  });
  return out;
}
