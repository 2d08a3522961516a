/**
 * Request validation refuses numbers that are not finite.
 *
 * ajv coerces a string to a number when `value == +value`, so the query strings `Infinity`,
 * `-Infinity` and `1e400` become non-finite numbers; and it checks `minimum` / `maximum` only on
 * finite numbers, so `limit=Infinity` passed `maximum: 100` and reached the stores (a 500 from
 * PostgreSQL, ClickHouse or LanceDB). This ajv plugin wraps every validator the compiler builds:
 * once ajv has accepted (and coerced) a request part, a non-finite number anywhere in it fails
 * validation like a type error, so no route ever sees one. Integers need nothing more: ajv refuses
 * a fraction for `type: integer`, and every numeric parameter has bounds (checked by a test on the
 * OpenAPI document).
 */

interface AjvError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message: string;
}

interface ValidateFunction {
  (data: unknown, context?: unknown): boolean | Promise<unknown>;
  errors?: unknown[] | null;
  schemaEnv?: unknown;
  schema?: unknown;
}

interface AjvLike {
  compile(schema: unknown, meta?: boolean): ValidateFunction;
}

/** The JSON pointer of the first non-finite number in `value`, if any. */
export function nonFiniteAt(value: unknown, pointer = ''): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : pointer;
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const at = nonFiniteAt(value[i], `${pointer}/${i}`);
      if (at !== undefined) return at;
    }
    return undefined;
  }
  for (const [k, v] of Object.entries(value)) {
    const at = nonFiniteAt(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    if (at !== undefined) return at;
  }
  return undefined;
}

/** An ajv plugin (fastify `ajv.plugins`): every compiled validator refuses non-finite numbers. */
export function finiteNumbers<A extends object>(instance: A): A {
  const ajv = instance as unknown as AjvLike;
  const compile = ajv.compile.bind(ajv);
  ajv.compile = (schema: unknown, meta?: boolean) => {
    const validate = compile(schema, meta);
    const checked: ValidateFunction = (data, context) => {
      const ok = validate(data, context);
      checked.errors = validate.errors;
      if (typeof ok !== 'boolean') return ok;
      const at = nonFiniteAt(data);
      if (at === undefined) return ok;
      const error: AjvError = {
        instancePath: at,
        schemaPath: '#',
        keyword: 'type',
        params: { type: 'number' },
        message: 'must be a finite number',
      };
      // Reported with whatever else is wrong (ajv collects every error here).
      checked.errors = [...(validate.errors ?? []), error];
      return false;
    };
    // fastify passes the parent of a root value to ajv validators (marked by `schemaEnv`).
    checked.schemaEnv = validate.schemaEnv;
    checked.schema = validate.schema;
    return checked;
  };
  return instance;
}
