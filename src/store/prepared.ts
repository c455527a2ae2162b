/**
 * Queries compiled once per database and executed with new parameter
 * values, for the hottest paths (authentication on every request). The
 * builder is called with placeholder values; callers pass the real values in
 * the order the placeholders appear in the compiled SQL.
 */
import type { Compilable, CompiledQuery } from 'kysely';
import type { Db } from './db.ts';

export function prepared<R>(build: (db: Db) => Compilable<R>): (db: Db, ...params: unknown[]) => Promise<R[]> {
  const cache = new WeakMap<Db, CompiledQuery<R>>();
  return async (db, ...params) => {
    let compiled = cache.get(db);
    if (!compiled) {
      compiled = build(db).compile();
      if (compiled.parameters.length !== params.length) throw new Error('prepared query: parameter count mismatch');
      cache.set(db, compiled);
    }
    const result = await db.executeQuery<R>({ ...compiled, parameters: params });
    return result.rows;
  };
}
