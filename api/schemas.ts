import { type TSchema, Type } from '@sinclair/typebox';

/** A string enum as JSON Schema `enum` (clear validation messages, compact OpenAPI). */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export const Timestamp = Type.String({ format: 'date-time', description: 'RFC 3339, UTC' });

export const FieldErrorSchema = Type.Object({
  location: Type.String({
    description: 'query.limit, body.entities[0].entity_id, path.id, header.x-api-key …',
  }),
  message: Type.String(),
  value: Type.Optional(Type.Unknown()),
});

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ format: 'uri' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.String(),
    error_code: Type.String({ description: 'stable machine-readable code' }),
    errors: Type.Array(FieldErrorSchema),
    resolve: Type.Optional(
      Type.Object({
        message: Type.String(),
        action: Type.String(),
        endpoint: Type.Optional(Type.String()),
        method: Type.Optional(Type.String()),
        url: Type.Optional(Type.String()),
      }),
    ),
  },
  { $id: 'Problem', description: 'RFC 9457 problem document (application/problem+json)' },
);

/** Problem responses every `/v1` operation can return, for the OpenAPI document. */
export function withProblems<R extends Record<number, TSchema>>(responses: R) {
  const ref = Type.Ref('Problem');
  return { ...responses, '4XX': ref, '5XX': ref };
}
