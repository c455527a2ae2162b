/** Small shared helpers. */
import { createHash, randomBytes } from 'node:crypto';

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** ISO 8601 with microseconds and +00:00, as Python's isoformat() prints it. */
export function isoFromSeconds(seconds: number): string {
  let iso = isoBySeconds.get(seconds);
  if (iso === undefined) {
    const d = new Date(seconds * 1000).toISOString(); // 2024-01-02T03:04:05.678Z
    iso = `${d.slice(0, 19)}.${d.slice(20, 23)}000+00:00`;
    if (isoBySeconds.size >= 10_000) isoBySeconds.clear();
    isoBySeconds.set(seconds, iso);
  }
  return iso;
}

/**
 * Formatted times already asked for: mostly the same few recur (each user's
 * date_joined, on every GET /users/me and in every user list).
 */
const isoBySeconds = new Map<number, string>();

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random alphanumeric string (API keys are 32 of these, as in Zulip). */
/**
 * Zulip's datetime_to_global_time: a `<time:...>` that the renderer shows in
 * each reader's time zone; the instant in UTC to the second.
 */
export function globalTime(date: Date): string {
  return `<time:${date.toISOString().replace(/\.\d{3}Z$/, '+00:00')}>`;
}

export function randomAlnum(length: number): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  for (let i = 0; i < bytes.length && out.length < length; i++) {
    const b = bytes[i];
    if (b < 248) out += ALNUM[b % 62];
  }
  while (out.length < length) out += ALNUM[randomBytes(1)[0] % 62];
  return out;
}

export const md5Hex = (s: string): string => createHash('md5').update(s).digest('hex');
/** SHA-256 of the UTF-8 text, in hexadecimal. */
export const sha256Hex = (s: string): string => createHash('sha256').update(s).digest('hex');

/** Length in Unicode code points (Zulip's limits count these). */
export const codePointLength = (s: string): number => [...s].length;

/**
 * What `make` derives from one text field of a row, kept with the row
 * object (a WeakMap) and made anew when the row's text is not the one it
 * was made from (a row changed in place). For per-row values read on hot
 * paths, e.g. once per recipient of a send, where the rows themselves are
 * kept (src/actions/cache.ts).
 */
export function memoByRow<R extends object, T>(text: (row: R) => string, make: (text: string) => T): (row: R) => T {
  const kept = new WeakMap<R, { text: string; value: T }>();
  return (row) => {
    const t = text(row);
    const k = kept.get(row);
    if (k !== undefined && k.text === t) return k.value;
    const value = make(t);
    kept.set(row, { text: t, value });
    return value;
  };
}

export function parseJsonObject(text: string): Record<string, unknown> {
  const v = JSON.parse(text || '{}') as unknown;
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** A new API key: 32 random letters and digits, as Zulip's generate_api_key. */
export const newApiKey = (): string => randomAlnum(32);

/** JSON text starts (after JSON's own whitespace) with one of these. */
const JSON_START = /^[ \t\n\r]*[[{"\-0-9tfn]/;

/**
 * The parsed value when `text` is JSON, else `undefined` (a parameter that
 * may be JSON or plain text, as Zulip's `to`). Text that cannot start a JSON
 * value is not handed to JSON.parse: a thrown SyntaxError costs about 20 µs.
 */
export function jsonOrUndefined(text: string): unknown {
  if (!JSON_START.test(text)) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
