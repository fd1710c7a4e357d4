/** A fast `Date#toISOString` for the generator's hot loop: the date part is cached, the time part is arithmetic. */

const DAY_MS = 86_400_000;
const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

// The date parts seen recently; a listing's listed_at and tradable_at fall on a few days only.
const prefixes = new Map<number, string>();
const MAX_CACHED_DAYS = 256;

/**
 * The same string as `new Date(ms).toISOString()` (UTC, milliseconds, `Z`), for whole milliseconds.
 * @example formatTimestamp(0) // '1970-01-01T00:00:00.000Z'
 */
export function formatTimestamp(ms: number): string {
  const whole = Math.floor(ms);
  const day = Math.floor(whole / DAY_MS);
  let rest = whole - day * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  return `${datePrefix(day)}${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${THREE_DIGITS[millis]}Z`;
}

function datePrefix(day: number): string {
  let prefix = prefixes.get(day);
  if (prefix === undefined) {
    if (prefixes.size >= MAX_CACHED_DAYS) prefixes.clear();
    prefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
    prefixes.set(day, prefix);
  }
  return prefix;
}
