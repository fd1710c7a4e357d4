/**
 * Checks of what a client method is called with, so that a forgotten argument is refused with a
 * sentence naming the method, the argument and a call that works, instead of a TypeError from
 * inside the client. Values the server validates (prices, lengths, enums) are left to the server.
 */
import { ClientArgumentError } from './errors.js';

/** Throws unless `value` is a plain object; `example` is a call that works. */
export function checkObject(call: string, name: string, value: unknown, example: string): void {
  if (!isObject(value))
    throw new ClientArgumentError(
      `${call}: ${name} must be an object, got ${describe(value)}; e.g. ${example}`,
    );
}

/** Like {@link checkObject}, but `undefined` is allowed (the argument has a default). */
export function checkOptionalObject(call: string, name: string, value: unknown): void {
  if (value !== undefined && !isObject(value))
    throw new ClientArgumentError(`${call}: ${name} must be an object or left out, got ${describe(value)}`);
}

/** Throws unless `value` is a non-empty string, such as an id. */
export function checkString(call: string, name: string, value: unknown): void {
  if (typeof value !== 'string' || value.length === 0)
    throw new ClientArgumentError(`${call}: ${name} must be a non-empty string, got ${describe(value)}`);
}

/** Throws unless `value` is a finite number. */
export function checkNumber(call: string, name: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new ClientArgumentError(`${call}: ${name} must be a number, got ${describe(value)}`);
}

/** Throws unless `value` is a number of at least 1 (a count or a length of time) or left out. */
export function checkOptionalCount(call: string, name: string, value: unknown): void {
  if (value !== undefined && !(typeof value === 'number' && value >= 1))
    throw new ClientArgumentError(
      `${call}: ${name} must be a number of at least 1 or left out, got ${describe(value)}`,
    );
}

/** Throws unless `value` is an app id (a positive integer) or left out. */
export function checkOptionalAppId(call: string, value: unknown): void {
  if (value !== undefined && !(Number.isInteger(value) && (value as number) > 0))
    throw new ClientArgumentError(
      `${call}: appId must be a game's app id (730, 570 or 252490) or left out, got ${describe(value)}`,
    );
}

/** Throws unless `options` carries a string `idempotencyKey`. */
export function checkIdempotencyKey(call: string, options: unknown, example: string): void {
  if (!isObject(options) || typeof (options as { idempotencyKey?: unknown }).idempotencyKey !== 'string')
    throw new ClientArgumentError(
      `${call}: the second argument must be { idempotencyKey: string } (keep the key: it finds the ` +
        `request again after a lost answer), got ${describe(options)}; e.g. ${example}`,
    );
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 40))}`;
  return `${typeof value} ${typeof value === 'object' ? '' : String(value)}`.trim();
}
