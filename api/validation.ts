import AjvCompiler from '@fastify/ajv-compiler';
import { finiteNumbers } from './finite-numbers.ts';

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

/**
 * Request validation (fastify `schemaController.compilersFactory.buildValidator`): the parts
 * that arrive as text — query string, path, headers — are validated by an ajv that coerces them
 * to the schema's types (`limit=5` is a number); JSON bodies by one that does not, so a body
 * sending `false` or `5` where a string belongs is refused instead of being stored as "false".
 * Both refuse non-finite numbers (finite-numbers.ts).
 */
function buildValidator(externalSchemas: Record<string, unknown>) {
  const pool = AjvCompiler();
  const compilerFor = (coerceTypes: 'array' | false) =>
    pool(externalSchemas as never, {
      customOptions: { ...AJV_OPTIONS, coerceTypes },
      plugins: [finiteNumbers],
    }) as unknown as (route: RouteSchema) => unknown;
  const text = compilerFor('array');
  const json = compilerFor(false);
  return (route: RouteSchema) => (route.httpPart === 'body' ? json : text)(route);
}

// The published types describe the compiler as taking a bare schema; fastify passes the route part.
export const buildRequestValidator = buildValidator as unknown as AjvCompiler.BuildCompilerFromPool;
