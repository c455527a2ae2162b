/**
 * Fastify's schema compilers (Ajv for validation, fast-json-stringify for
 * serialization), loaded when a route first needs one instead of when the
 * app is created. Parley's routes declare no validation or response schemas
 * (parameters are parsed by params.ts), so a server never loads them: about
 * 100 modules, 45 ms of every start and 1.4 MiB.
 *
 * These are Fastify's own default compilers, only deferred. (Fastify then
 * treats them as custom compilers, which only changes how a `headers` schema
 * is matched; no route has one.)
 */
import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

const require = createRequire(import.meta.url);

type Compiler = (routeSchema: unknown) => unknown;
type Builder = (externalSchemas: unknown, options: unknown) => Compiler;

/** A compiler builder that loads the package's builder (a function making one) on the first compile. */
function deferred(id: string): Builder {
  let builder: Builder | undefined;
  return (externalSchemas, options) => {
    let compiler: Compiler | undefined;
    return (routeSchema) => {
      builder ??= (require(id) as () => Builder)();
      compiler ??= builder(externalSchemas, options);
      return compiler(routeSchema);
    };
  };
}

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

/** Fastify's `schemaController.compilersFactory` option. */
export const deferredSchemaCompilers: CompilersFactory = {
  buildValidator: deferred('@fastify/ajv-compiler') as CompilersFactory['buildValidator'],
  buildSerializer: deferred('@fastify/fast-json-stringify-compiler') as CompilersFactory['buildSerializer'],
};
