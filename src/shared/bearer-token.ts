/** Bearer tokens of `Authorization` headers, compared in constant time (no timing hints at the token). */
import { timingSafeEqual } from 'node:crypto';

/** The token of an `Authorization: Bearer <token>` header, or undefined when there is none. */
export function bearerTokenOf(header: string | undefined): string | undefined {
  return /^Bearer (\S+)$/.exec(header ?? '')?.[1];
}

/** Whether `given` is `expected`, in a time that depends on their lengths alone. */
export function isSameToken(given: string | undefined, expected: string): boolean {
  const candidate = Buffer.from(given ?? '');
  const wanted = Buffer.from(expected);
  return candidate.length === wanted.length && timingSafeEqual(candidate, wanted);
}
