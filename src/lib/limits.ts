/**
 * Input limits shared by the parameter layer (src/http/params.ts) and the few
 * actions that decode a parameter themselves (message recipients, drafts).
 * Integers default to the range of the database's integer columns (IDs are
 * 32-bit on PostgreSQL), so an out-of-range value is Zulip's 400 rather than
 * a database error; lists default to a length no query's parameter count can
 * overflow; U+0000 is refused because no PostgreSQL text column can store it.
 */
import { ApiError } from './errors.ts';

export const LIMITS = {
  intMin: -(2 ** 31),
  intMax: 2 ** 31 - 1,
  /** UNIX timestamps in seconds (64-bit columns): up to the end of year 9999, so dates stay valid. */
  timestampMax: 253_402_300_799,
  listMaxLength: 10_000,
  /**
   * Terms of a narrow. Every event is matched against each queue's narrow, so
   * a queue registered with thousands of terms would slow every delivery;
   * real narrows have a handful.
   */
  narrowMaxTerms: 100,
} as const;

/** Zulip's error for a string carrying U+0000. */
export function nulError(name: string): ApiError {
  return new ApiError(`${name} contains NULL (0x00) characters.`);
}

/** The integer if it lies in [min, max] (default: the column range), else Zulip's "too small"/"too large". */
export function checkIntRange(x: number, name: string, min: number = LIMITS.intMin, max: number = LIMITS.intMax): number {
  if (x < min) throw new ApiError(`${name} is too small`);
  if (x > max) throw new ApiError(`${name} is too large`);
  return x;
}

/** Throws when a decoded JSON value holds U+0000 in any string or key (iterative, so depth cannot overflow the stack). */
export function rejectNulDeep(value: unknown, name: string): void {
  const stack: unknown[] = [value];
  while (stack.length) {
    const x = stack.pop();
    if (typeof x === 'string') {
      if (x.includes('\0')) throw nulError(name);
    } else if (Array.isArray(x)) {
      for (const el of x) stack.push(el);
    } else if (x !== null && typeof x === 'object') {
      for (const [k, el] of Object.entries(x)) {
        if (k.includes('\0')) throw nulError(name);
        stack.push(el);
      }
    }
  }
}
