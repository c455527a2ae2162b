/**
 * Queries compiled once per SQL dialect and executed with new parameter
 * values, for the hottest paths (authentication on every request). The
 * builder is called with placeholder values; callers pass the real values in
 * the order the placeholders appear in the compiled SQL.
 */
import type { Compilable, CompiledQuery } from 'kysely';
import type { Db, Tx } from './db.ts';

export function prepared<R>(build: (db: Db) => Compilable<R>): (db: Db | Tx, ...params: unknown[]) => Promise<R[]> {
  // The SQL depends only on the dialect: keyed by its adapter class, one
  // compilation serves a database and all of its transactions.
  const cache = new WeakMap<object, CompiledQuery<R>>();
  return async (db, ...params) => {
    const key = db.getExecutor().adapter.constructor;
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
