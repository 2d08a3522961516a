import { Type } from '@sinclair/typebox';

/**
 * JSON Schema building blocks (TypeBox) shared by the HTTP API and the modules whose documents it
 * serves (the alerting module declares its request and response schemas beside its documents).
 * Kept here, below both, so that neither imports the other for them.
 */

/** A string enum as JSON Schema `enum` (clear validation messages, compact OpenAPI). */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export const Timestamp = Type.String({ format: 'date-time', description: 'RFC 3339, UTC' });
