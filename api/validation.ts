import AjvCompiler from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { finiteNumbers } from './finite-numbers.ts';

/*
 * The compilers fastify turns route schemas into functions with (its `schemaController`):
 * validators (ajv) and response serializers (fast-json-stringify). Compiling is most of what
 * building an application costs after loading modules, and it gives the same function for the
 * same schema every time: each compiled function is kept for the life of the process, by its
 * compiler's options and shared schemas and its own schema (as JSON), so a second application of
 * the process (HTTP ingest beside the API, a test's next application) reuses them. Validators
 * and serializers hold no state between calls (ajv's `errors` is set by each call and read at
 * once, synchronously).
 */

// `verbose`: errors carry the schema they failed, so a problem can quote its description.
const AJV_OPTIONS = {
  verbose: true,
  allErrors: true,
  coerceTypes: 'array',
  removeAdditional: true,
  useDefaults: true,
} as const;

interface RouteSchema {
  schema: unknown;
  httpPart?: string;
}

type Compile<F> = (route: RouteSchema) => F;

const compiled = new Map<string, Map<string, unknown>>();

/** `compile`, answering from the process's compiled functions of `scope` when it can. */
function kept<F>(scope: string, compile: Compile<F>): Compile<F> {
  let functions = compiled.get(scope);
  if (!functions) {
    functions = new Map();
    compiled.set(scope, functions);
  }
  const known = functions;
  return (route) => {
    const key = JSON.stringify(route.schema);
    let fn = known.get(key) as F | undefined;
    if (fn === undefined) {
      fn = compile(route);
      known.set(key, fn);
    }
    return fn;
  };
}

// One pool per process: ajv instances with the same shared schemas and options are reused.
const pool = AjvCompiler();

/**
 * Request validation (fastify `schemaController.compilersFactory.buildValidator`): the parts
 * that arrive as text — query string, path, headers — are validated by an ajv that coerces them
 * to the schema's types (`limit=5` is a number); JSON bodies by one that does not, so a body
 * sending `false` or `5` where a string belongs is refused instead of being stored as "false".
 * Both refuse non-finite numbers (finite-numbers.ts).
 */
function buildValidator(externalSchemas: Record<string, unknown>) {
  const shared = JSON.stringify(externalSchemas);
  const compilerFor = (coerceTypes: 'array' | false) =>
    kept(
      `validator ${coerceTypes} ${shared}`,
      pool(externalSchemas as never, {
        customOptions: { ...AJV_OPTIONS, coerceTypes },
        plugins: [finiteNumbers],
      }) as unknown as Compile<unknown>,
    );
  const text = compilerFor('array');
  const json = compilerFor(false);
  return (route: RouteSchema) => (route.httpPart === 'body' ? json : text)(route);
}

// The published types describe the compiler as taking a bare schema; fastify passes the route part.
export const buildRequestValidator = buildValidator as unknown as AjvCompiler.BuildCompilerFromPool;

const serializers = SerializerSelector();

/** Response serialization (fastify `schemaController.compilersFactory.buildSerializer`). */
export function buildResponseSerializer(externalSchemas: unknown, options: unknown) {
  return kept(
    `serializer ${JSON.stringify(options ?? {})} ${JSON.stringify(externalSchemas)}`,
    serializers(externalSchemas as never, options as never) as unknown as Compile<unknown>,
  );
}
