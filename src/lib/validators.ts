/**
 * Value validators for decoded JSON values (request parameters, stored
 * settings): each checks one value and throws Zulip's error message naming
 * the variable. `src/http/params.ts` builds request parameters from them.
 */
import { ApiError } from './errors.ts';
import { LIMITS, checkIntRange } from './limits.ts';

export type Validator<T> = (value: unknown, varName: string) => T;

export function invalid(msg: string): ApiError {
  return new ApiError(msg);
}

export const v = {
  /** An integer in [min, max]; both default to the 32-bit column range (LIMITS). */
  int(opts: { min?: number; max?: number } = {}): Validator<number> {
    const min = opts.min ?? LIMITS.intMin;
    const max = opts.max ?? LIMITS.intMax;
    return (x, name) => {
      if (typeof x !== 'number' || !Number.isInteger(x)) throw invalid(`${name} is not an integer`);
      return checkIntRange(x, name, min, max);
    };
  },
  number(): Validator<number> {
    return (x, name) => {
      if (typeof x !== 'number' || !Number.isFinite(x)) throw invalid(`${name} is not a float`);
      return x;
    };
  },
  bool(): Validator<boolean> {
    return (x, name) => {
      if (typeof x !== 'boolean') throw invalid(`${name} is not a boolean`);
      return x;
    };
  },
  str(opts: { maxLength?: number; minLength?: number } = {}): Validator<string> {
    return (x, name) => {
      if (typeof x !== 'string') throw invalid(`${name} is not a string`);
      return checkLength(x, name, opts);
    };
  },
  literal<const L extends string | number>(values: readonly L[]): Validator<L> {
    return (x, name) => {
      if (!values.includes(x as L)) throw invalid(`Invalid ${name}`);
      return x as L;
    };
  },
  nullable<T>(inner: Validator<T>): Validator<T | null> {
    return (x, name) => (x === null ? null : inner(x, name));
  },
  /** A list; its length defaults to at most LIMITS.listMaxLength. */
  list<T>(item: Validator<T>, opts: { maxLength?: number } = {}): Validator<T[]> {
    const maxLength = opts.maxLength ?? LIMITS.listMaxLength;
    return (x, name) => {
      if (!Array.isArray(x)) throw invalid(`${name} is not a list`);
      if (x.length > maxLength) throw invalid(`${name} is too long`);
      return x.map((el, i) => item(el, `${name}[${i}]`));
    };
  },
  /** An object with the listed fields; unknown fields are an error, as in Zulip. */
  object<S extends Record<string, Validator<unknown>>>(
    fields: S,
    opts: { optional?: ReadonlyArray<keyof S & string> } = {},
  ): Validator<{ [K in keyof S]: ReturnType<S[K]> }> {
    return (x, name) => {
      if (typeof x !== 'object' || x === null || Array.isArray(x)) throw invalid(`${name} is not a dict`);
      const rec = x as Record<string, unknown>;
      for (const key of Object.keys(rec)) {
        if (!(key in fields)) throw invalid(`Argument "${key}" at ${name}[${JSON.stringify(key)}] is unexpected`);
      }
      const out: Record<string, unknown> = {};
      for (const [key, val] of Object.entries(fields)) {
        const sub = `${name}[${JSON.stringify(key)}]`;
        if (!(key in rec)) {
          if (opts.optional?.includes(key)) continue;
          throw invalid(`${sub} field is missing`);
        }
        out[key] = val(rec[key], sub);
      }
      return out as { [K in keyof S]: ReturnType<S[K]> };
    };
  },
  /** A dict with arbitrary string keys and validated values. */
  dict<T>(value: Validator<T>): Validator<Record<string, T>> {
    return (x, name) => {
      if (typeof x !== 'object' || x === null || Array.isArray(x)) throw invalid(`${name} is not a dict`);
      const out: Record<string, T> = {};
      for (const [k, val] of Object.entries(x)) out[k] = value(val, `${name}[${JSON.stringify(k)}]`);
      return out;
    };
  },
  /** First validator that accepts wins; otherwise the last one's error. */
  union<T>(...alts: Validator<T>[]): Validator<T> {
    return (x, name) => {
      let err: unknown;
      for (const alt of alts) {
        try {
          return alt(x, name);
        } catch (e) {
          err = e;
        }
      }
      throw err;
    };
  },
  any(): Validator<unknown> {
    return (x) => x;
  },
};

export function checkLength(s: string, name: string, opts: { maxLength?: number; minLength?: number }): string {
  const len = [...s].length;
  if (opts.maxLength !== undefined && len > opts.maxLength) {
    throw invalid(`${name} is too long (limit: ${opts.maxLength} characters)`);
  }
  if (opts.minLength !== undefined && len < opts.minLength) {
    throw invalid(opts.minLength === 1 ? `${name} cannot be blank` : `${name} is too short.`);
  }
  return s;
}
