/** Reading the few values a source needs (ids, times) out of payloads it lands unread. */

/** The string `row[key]` holds, or null (not an object, no such key, not a string). */
export function textOf(row: unknown, key: string): string | null {
  const value = typeof row === 'object' && row !== null ? (row as Record<string, unknown>)[key] : undefined;
  return typeof value === 'string' ? value : null;
}

/** Epoch ms of an ISO 8601 time as sent, or null when it is not one. */
export function timeOf(value: unknown): number | null {
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isFinite(ms) ? ms : null;
}
