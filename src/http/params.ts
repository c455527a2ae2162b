/**
 * Declarative request parameters.
 *
 * An endpoint declares each parameter once: its name, how the raw text is
 * decoded (plain string or JSON, as Zulip's encoding rules say), the value
 * validator, whether it is required and its default. The declaration drives
 * parsing, Zulip's error messages, `ignored_parameters_unsupported` and the
 * generated endpoint list in the docs.
 *
 * Zulip's rules: list and object parameters are JSON text; integers and
 * booleans are JSON text too ("5", "true"); strings are taken as sent.
 */
import { confusingArguments, missingArgument } from '../lib/errors.ts';
import { LIMITS, nulError, rejectNulDeep } from '../lib/limits.ts';

import { checkLength, invalid, v, type Validator } from '../lib/validators.ts';

export { LIMITS, v, type Validator };

// ---------------------------------------------------------------------------
// Parameters (how raw request text becomes a value)

export interface Param<T> {
  /** 'json' params are JSON-decoded before validation; 'raw' take the text as sent. */
  readonly encoding: 'json' | 'raw';
  readonly type: string;
  readonly required: boolean;
  readonly defaultValue: T | undefined;
  readonly aliases: readonly string[];
  readonly doc: string;
  readonly decode: (raw: string, name: string) => T;
  /** U+0000 is let through: the action checks it with its own Zulip message (message content, topics). */
  allowNul(): Param<T>;
  optional(): Param<T | undefined>;
  default(value: T): Param<T>;
  alias(...names: string[]): Param<T>;
  describe(doc: string): Param<T>;
}

/**
 * How raw text becomes a value. `checkNul` is true unless the declaration
 * allows U+0000; JSON decoders then check the decoded strings, and raw text
 * is checked before the decoder runs.
 */
type Decoder<T> = (raw: string, name: string, checkNul: boolean) => T;

function makeParam<T>(
  encoding: 'json' | 'raw',
  type: string,
  decoder: Decoder<T>,
  opts: { required?: boolean; defaultValue?: T; aliases?: readonly string[]; doc?: string; allowNul?: boolean } = {},
): Param<T> {
  const checkNul = !opts.allowNul;
  const self: Param<T> = {
    encoding,
    type,
    required: opts.required ?? true,
    defaultValue: opts.defaultValue,
    aliases: opts.aliases ?? [],
    doc: opts.doc ?? '',
    decode: (raw, name) => {
      if (checkNul && encoding === 'raw' && raw.includes('\0')) throw nulError(name);
      return decoder(raw, name, checkNul);
    },
    allowNul: () => makeParam<T>(encoding, type, decoder, { ...opts, allowNul: true }),
    optional: () => makeParam<T | undefined>(encoding, type, decoder, { ...opts, required: false, defaultValue: undefined }),
    default: (value: T) => makeParam<T>(encoding, type, decoder, { ...opts, required: false, defaultValue: value }),
    alias: (...names: string[]) => makeParam<T>(encoding, type, decoder, { ...opts, aliases: [...(opts.aliases ?? []), ...names] }),
    describe: (doc: string) => makeParam<T>(encoding, type, decoder, { ...opts, doc }),
  };
  return self;
}

function decodeJson(raw: string, name: string, checkNul: boolean): unknown {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw invalid(`${name} is not valid JSON`);
  }
  if (checkNul) rejectNulDeep(value, name);
  return value;
}

export const p = {
  /** A JSON-encoded value checked by a validator. */
  json<T>(validator: Validator<T>, type = 'json'): Param<T> {
    return makeParam('json', type, (raw, name, checkNul) => validator(decodeJson(raw, name, checkNul), name));
  },
  int(opts: { min?: number; max?: number } = {}): Param<number> {
    return p.json(v.int(opts), 'integer');
  },
  bool(): Param<boolean> {
    return p.json(v.bool(), 'boolean');
  },
  intList(): Param<number[]> {
    return p.json(v.list(v.int()), 'integer[]');
  },
  /** A string, taken as sent. */
  str(opts: { maxLength?: number; minLength?: number } = {}): Param<string> {
    return makeParam('raw', 'string', (raw, name) => checkLength(raw, name, opts));
  },
  /** A string from a fixed set. */
  enumStr<const L extends string>(values: readonly L[]): Param<L> {
    return makeParam('raw', `string(${values.join('|')})`, (raw, name) => {
      if (!values.includes(raw as L)) throw invalid(`Invalid ${name}`);
      return raw as L;
    });
  },
  /** Zulip's include_subscribers: true, false or "partial" (sent as is, or as a JSON string). */
  includeSubscribers(): Param<boolean | 'partial'> {
    return makeParam('raw', 'boolean|"partial"', (raw, name) => {
      if (raw === 'partial' || raw === '"partial"') return 'partial';
      if (raw === 'true') return true;
      if (raw === 'false') return false;
      throw invalid(`Invalid ${name}`);
    });
  },
  /** A path segment that must be an integer (an ID: the column range of LIMITS). */
  pathInt(): Param<number> {
    const range = v.int();
    return makeParam('raw', 'integer', (raw, name) => {
      if (!/^-?\d+$/.test(raw)) throw invalid(`${name} is not an integer`);
      return range(Number(raw), name);
    });
  },
  pathStr(): Param<string> {
    return makeParam('raw', 'string', (raw) => raw);
  },
  /** Any custom decoding of the raw text. */
  custom<T>(type: string, decode: (raw: string, name: string) => T, encoding: 'json' | 'raw' = 'raw'): Param<T> {
    return makeParam(encoding, type, (raw, name, checkNul) => {
      // A custom JSON decoder parses the text itself: check it for U+0000 first.
      if (checkNul && encoding === 'json' && raw.includes('\\u0000')) {
        let value: unknown;
        try {
          value = JSON.parse(raw);
        } catch {
          value = undefined; // the decoder reports malformed JSON its own way
        }
        rejectNulDeep(value, name);
      }
      return decode(raw, name);
    });
  },
};

export type ParamSpec = Record<string, Param<unknown>>;
export type ParsedParams<S extends ParamSpec> = { [K in keyof S]: S[K] extends Param<infer T> ? T : never };

/**
 * Parses `source` (merged query and body fields) against the declaration.
 * Returns the values and the names of fields the declaration does not know.
 */
export function parseParams<S extends ParamSpec>(
  spec: S,
  source: Map<string, string>,
  pathValues: Record<string, string> = {},
  pathSpec?: ParamSpec,
): { values: ParsedParams<S>; unknown: string[] } {
  const values: Record<string, unknown> = {};
  if (pathSpec) for (const { name, param } of declared(pathSpec)) values[name] = param.decode(pathValues[name] ?? '', name);
  const used: string[] = [];
  for (const { name, param, names } of declared(spec)) {
    let key: string | undefined;
    for (const candidate of names) {
      if (!source.has(candidate)) continue;
      // A parameter sent under two of its names (topic and subject): Zulip refuses to pick one.
      if (key !== undefined) throw confusingArguments(key, candidate);
      key = candidate;
    }
    if (key === undefined) {
      if (param.required) throw missingArgument(name);
      values[name] = param.defaultValue;
      continue;
    }
    used.push(key);
    values[name] = param.decode(source.get(key) as string, key);
  }
  // Every field was read by a parameter (the usual case; no two parameters share a name): none unknown.
  if (used.length === source.size) return { values: values as ParsedParams<S>, unknown: [] };
  const unknown: string[] = [];
  for (const key of source.keys()) {
    if (!used.includes(key) && !(key in spec)) unknown.push(key);
  }
  unknown.sort();
  return { values: values as ParsedParams<S>, unknown };
}

interface Declared {
  name: string;
  param: Param<unknown>;
  /** The name and then its aliases, in the order they are looked for. */
  names: readonly string[];
}

/** Each declaration's parameters as a list, made once (every request walks it). */
const declaredLists = new WeakMap<ParamSpec, Declared[]>();

function declared(spec: ParamSpec): Declared[] {
  let list = declaredLists.get(spec);
  if (!list) {
    list = Object.entries(spec).map(([name, param]) => ({ name, param, names: [name, ...param.aliases] }));
    const all = list.flatMap((d) => d.names);
    if (new Set(all).size !== all.length) throw new Error(`parameter declared twice among ${all.join(', ')}`);
    declaredLists.set(spec, list);
  }
  return list;
}
