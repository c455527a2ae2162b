/**
 * Typed access to an untrusted JSON payload, with Zulip's validation
 * messages (its WildValue): a missing key is "payload['x'] is missing", a
 * wrong type "payload['x'] is not a string", and so on. Every failure is a
 * 400 BAD_REQUEST, so a malformed payload never becomes a 500.
 */
import { ApiError, badRequest } from '../errors.ts';

/** Python's repr of a dictionary key or list index. */
export function pyRepr(key: string | number): string {
  return pyValueRepr(key);
}

/** Characters Python's repr escapes (those str.isprintable() refuses, but the space). */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** Python's repr of a string: single quotes unless it holds one and no double quote; unprintable characters escaped. */
function pyStringRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '\\' || ch === quote) out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch !== ' ' && UNPRINTABLE.test(ch)) out += c < 0x100 ? `\\x${c.toString(16).padStart(2, '0')}` : c < 0x10000 ? `\\u${c.toString(16).padStart(4, '0')}` : `\\U${c.toString(16).padStart(8, '0')}`;
    else out += ch;
  }
  return out + quote;
}

/** Python's repr of a JSON value (what str() writes of a list or a dict, and of the strings inside them). */
export function pyValueRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : pyFloatRepr(v);
  if (v instanceof PyNumber) return v.text;
  if (typeof v === 'string') return pyStringRepr(v);
  if (Array.isArray(v)) return `[${v.map(pyValueRepr).join(', ')}]`;
  return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${pyStringRepr(k)}: ${pyValueRepr(x)}`).join(', ')}}`;
}

const isDict = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Python truthiness of a JSON value. */
export function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isDict(v)) return Object.keys(v).length > 0;
  return true;
}

export class Wild {
  readonly name: string;
  readonly value: unknown;
  constructor(name: string, value: unknown) {
    this.name = name;
    this.value = value;
  }

  private child(key: string | number, value: unknown): Wild {
    return new Wild(`${this.name}[${pyRepr(key)}]`, value);
  }

  /** payload[key]: the value, which must exist. */
  at(key: string | number): Wild {
    if (typeof key === 'number') {
      if (!Array.isArray(this.value)) throw badRequest(`${this.name} is not a list`);
      if (key >= this.value.length) throw badRequest(`${this.name}[${key}] is missing`);
      return this.child(key, this.value[key]);
    }
    if (!isDict(this.value)) throw badRequest(`${this.name} is not a dict`);
    if (!Object.prototype.hasOwnProperty.call(this.value, key)) throw badRequest(`${this.name}[${pyRepr(key)}] is missing`);
    return this.child(key, this.value[key]);
  }

  /** payload.get(key, default). */
  get(key: string, fallback: unknown = null): Wild {
    if (!isDict(this.value)) throw badRequest(`${this.name} is not a dict`);
    return this.child(key, Object.prototype.hasOwnProperty.call(this.value, key) ? this.value[key] : fallback);
  }

  /** key in payload. */
  has(key: string): boolean {
    if (!isDict(this.value)) throw badRequest(`${this.name} is not a dict`);
    return Object.prototype.hasOwnProperty.call(this.value, key);
  }

  get truthy(): boolean {
    return truthy(this.value);
  }

  get isNull(): boolean {
    return this.value === null || this.value === undefined;
  }

  str(): string {
    if (typeof this.value !== 'string') throw badRequest(`${this.name} is not a string`);
    return this.value;
  }

  strOrNull(): string | null {
    return this.isNull ? null : this.str();
  }

  /** A string among the allowed values. */
  oneOf<T extends string>(allowed: readonly T[]): T {
    const s = this.str();
    if (!(allowed as readonly string[]).includes(s)) throw badRequest(`Invalid ${this.name}`);
    return s as T;
  }

  int(): number {
    if (typeof this.value !== 'number' || !Number.isInteger(this.value)) throw badRequest(`${this.name} is not an integer`);
    return this.value;
  }

  num(): number {
    if (typeof this.value !== 'number') throw badRequest(`${this.name} is not a float`);
    return this.value;
  }

  bool(): boolean {
    if (typeof this.value !== 'boolean') throw badRequest(`${this.name} is not a boolean`);
    return this.value;
  }

  url(): string {
    const s = this.str();
    if (!/^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(s)) throw badRequest(`${this.name} is not a URL`);
    return s;
  }

  /** len(payload): the items of a list or dict, or the characters of a string. */
  length(): number {
    if (Array.isArray(this.value)) return this.value.length;
    if (isDict(this.value)) return Object.keys(this.value).length;
    if (typeof this.value === 'string') return [...this.value].length;
    throw badRequest(`${this.name} does not have a length`);
  }

  /** Iterates a list. */
  list(): Wild[] {
    if (!Array.isArray(this.value)) throw badRequest(`${this.name} is not a list`);
    return this.value.map((v, i) => this.child(i, v));
  }

  /** Iterates a dict's items. */
  entries(): Array<[string, Wild]> {
    if (!isDict(this.value)) throw badRequest(`${this.name} is not a dict`);
    return Object.entries(this.value).map(([k, v]) => [k, this.child(k, v)]);
  }

  keys(): string[] {
    if (!isDict(this.value)) throw badRequest(`${this.name} is not a dict`);
    return Object.keys(this.value);
  }
}

/** A payload that is not JSON (Zulip's InvalidJSONError): a 400, and the bot's owner may be told (see the action). */
export class MalformedJson extends ApiError {
  constructor() {
    super('Malformed JSON');
  }
}

/** Parses a JSON document into a Wild named "payload"; bad JSON is Zulip's "Malformed JSON". */
export function parsePayload(text: string): Wild {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new MalformedJson();
  }
  return new Wild('payload', value);
}

/** A JSON number as Python reads it (an integer of any size, or a float), written back as Python writes it (its repr). */
export class PyNumber {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** Python's repr of a float: the shortest digits that read back the same, fixed from 1e-4 up to 1e16, in exponent notation beyond. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, e] = Math.abs(x).toExponential().split('e');
  const exp = Number(e);
  const digits = mantissa.replace('.', '');
  const sign = x < 0 ? '-' : '';
  if (exp >= -4 && exp < 16) {
    if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
    const whole = digits.padEnd(exp + 1, '0').slice(0, exp + 1);
    return `${sign}${whole}.${digits.slice(exp + 1) || '0'}`;
  }
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

/**
 * Parses a JSON document keeping its numbers as Python reads them (PyNumber:
 * integers exactly, whatever their size; a number with a fraction or an
 * exponent as a float), for writing it back with pyDumps as Python would.
 */
export function parsePythonNumbers(text: string): unknown {
  try {
    return JSON.parse(text, (_key, value, context?: { source?: string }) => {
      if (typeof value !== 'number' || context?.source === undefined) return value;
      const src = context.source;
      if (/[.eE]/.test(src)) return new PyNumber(pyFloatRepr(value));
      return new PyNumber(/^-0+$/.test(src) ? '0' : src);
    });
  } catch {
    throw new MalformedJson();
  }
}

/** Python's str() of a JSON value (True/False/None, repr of floats, of lists and of dicts). */
export function pyStr(v: unknown): string {
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : pyFloatRepr(v);
  if (typeof v === 'string') return v;
  return pyValueRepr(v);
}

function pyString(s: string): string {
  // ensure_ascii: every non-ASCII character as \uXXXX (surrogate pairs for astral ones).
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i];
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (c < 0x20 || c > 0x7e) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out + '"';
}

/** Python's json.dumps(value, indent=indent): ", " / ": " separators without indent, ASCII-only output. */
export function pyDumps(v: unknown, indent: number | null, level = 0): string {
  if (v === null || v === undefined) return 'null';
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'NaN';
  if (v instanceof PyNumber) return v.text;
  if (typeof v === 'string') return pyString(v);
  const nl = indent === null ? '' : '\n' + ' '.repeat(indent * (level + 1));
  const end = indent === null ? '' : '\n' + ' '.repeat(indent * level);
  const sep = indent === null ? ', ' : ',';
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return '[' + v.map((x) => nl + pyDumps(x, indent, level + 1)).join(sep) + end + ']';
  }
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length === 0) return '{}';
  return '{' + entries.map(([k, x]) => nl + pyString(k) + ': ' + pyDumps(x, indent, level + 1)).join(sep) + end + '}';
}
