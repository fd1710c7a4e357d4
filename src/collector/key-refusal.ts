/**
 * Which refusals stop a source for good: only a key the service does not know (revoked, mistyped)
 * can never succeed by waiting. A ban, a rate limit or an allowlist change ends by itself, so
 * those back off and resume.
 */

/** True when the error code says the key itself is refused. */
export function isKeyRefused(code: string | undefined): boolean {
  return code === 'invalid_api_key' || code === 'missing_api_key';
}

/** What `market status` shows for a source stopped by a refused key. */
export function keyRefusedReason(code: string, detail: string): string {
  return `${code}: ${detail}; create a new key and restart the collector with it (--api-key or MARKET_API_KEY)`;
}
