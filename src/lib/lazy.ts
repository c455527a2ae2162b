/**
 * Large modules that most processes never use, or not at start (image
 * resizing, SMTP, Redis, the PostgreSQL driver, TeX, password hashing, code
 * highlighting, the render thread pool, resumable uploads, metrics, archives)
 * are loaded on first use, so they cost neither start time nor memory until
 * then.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** A function returning the module `id`, loaded on its first call. */
export function lazyModule<T>(id: string): () => T {
  let mod: T | undefined;
  return () => (mod ??= require(id) as T);
}
