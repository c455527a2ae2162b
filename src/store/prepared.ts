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
