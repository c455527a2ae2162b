/**
 * Queries compiled once per SQL dialect and executed with new parameter
 * values, for the hottest paths (authentication on every request). The
 * builder is called with placeholder values; callers pass the real values in
 * the order the placeholders appear in the compiled SQL.
 */
import type { Compilable, CompiledQuery } from 'kysely';
import type { Db, Tx } from './db.ts';

/**
 * What compiled SQL depends on: the dialect, as its adapter class. The same
 * for a database and all of its transactions, so one compilation serves them.
 */
export function dialectKey(db: Db | Tx): object {
  return db.getExecutor().adapter.constructor;
}

export function prepared<R>(build: (db: Db) => Compilable<R>): (db: Db | Tx, ...params: unknown[]) => Promise<R[]> {
  const cache = new WeakMap<object, CompiledQuery<R>>();
  return async (db, ...params) => {
    const key = dialectKey(db);
    let compiled = cache.get(key);
    if (!compiled) {
      compiled = build(db as Db).compile();
      if (compiled.parameters.length !== params.length) throw new Error('prepared query: parameter count mismatch');
      cache.set(key, compiled);
    }
    const result = await db.executeQuery<R>({ ...compiled, parameters: params });
    return result.rows;
  };
}

/**
 * A query whose last placeholders are one `IN (...)` list: compiled once per
 * dialect and list length (lists of up to `maxLength`, in chunks of that
 * size). `build` gets a list of zeros of the right length; `fixed` values
 * fill the placeholders before the list, in order.
 */
export function preparedIn<R>(
  build: (db: Db, list: number[]) => Compilable<R>,
  maxLength = 1000,
): (db: Db | Tx, fixed: unknown[], list: readonly number[]) => Promise<R[]> {
  const cache = new WeakMap<object, Map<number, CompiledQuery<R>>>();
  const compiledFor = (db: Db | Tx, n: number, fixedCount: number): CompiledQuery<R> => {
    const key = dialectKey(db);
    let byLength = cache.get(key);
    if (!byLength) cache.set(key, (byLength = new Map()));
    let compiled = byLength.get(n);
    if (!compiled) {
      compiled = build(db as Db, new Array<number>(n).fill(0)).compile();
      if (compiled.parameters.length !== fixedCount + n) throw new Error('prepared query: parameter count mismatch');
      // Lengths seen are kept; a bound on them bounds this cache.
      if (byLength.size >= 300) byLength.clear();
      byLength.set(n, compiled);
    }
    return compiled;
  };
  return async (db, fixed, list) => {
    const out: R[] = [];
    for (let i = 0; i < list.length; i += maxLength) {
      const chunk = list.slice(i, i + maxLength);
      const compiled = compiledFor(db, chunk.length, fixed.length);
      const result = await db.executeQuery<R>({ ...compiled, parameters: [...fixed, ...chunk] });
      for (const r of result.rows) out.push(r);
    }
    return out;
  };
}
