/**
 * Decoding of form-encoded text (bodies and query strings). Invalid
 * percent-escapes or bytes that are not UTF-8 are rejected, never replaced,
 * so no parameter is silently altered. For repeated fields the last wins.
 */
import { ApiError } from '../lib/errors.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function decodeUtf8(buf: Buffer): string {
  try {
    return utf8.decode(buf);
  } catch {
    throw new ApiError('Malformed request: the body is not valid UTF-8');
  }
}

export function parseForm(text: string, into = new Map<string, string>()): Map<string, string> {
  if (!text) return into;
  for (const part of text.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const rawKey = eq < 0 ? part : part.slice(0, eq);
    const rawVal = eq < 0 ? '' : part.slice(eq + 1);
    try {
      into.set(decodeField(rawKey), decodeField(rawVal));
    } catch {
      throw new ApiError('Malformed request: invalid percent-encoding or UTF-8 in parameters');
    }
  }
  return into;
}

/** One key or value: `+` is a space, then percent-escapes (most fields have neither). */
function decodeField(raw: string): string {
  if (!raw.includes('%')) return raw.includes('+') ? raw.replace(/\+/g, ' ') : raw;
  return decodeURIComponent(raw.replace(/\+/g, ' '));
}
