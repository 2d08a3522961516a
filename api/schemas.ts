import { type TSchema, Type } from '@sinclair/typebox';

/** Defined below the API (schemas/json-schema.ts) so that modules serving documents use them too. */
export { StringEnum, Timestamp } from '../schemas/json-schema.ts';

/** The schema, or null. */
export const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) =>
  Type.Union([t, Type.Null()]);

/**
 * Text with a word the search analyser keeps: a run of 1-40 letters or digits (see
 * projections/search/text-analysis.ts). Queries without one are refused by validation.
 */
export const WORDS_PATTERN = '(^|[^\\p{L}\\p{N}])[\\p{L}\\p{N}]{1,40}([^\\p{L}\\p{N}]|$)';

/** Text that is not all whitespace (JavaScript's whitespace, as `String#trim` removes it). */
export const NOT_BLANK_PATTERN =
  '[^ \\t\\n\\r\\v\\f\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]';

export const DATE_YEARS_PATTERN = '^(19[1-9]|2[01][0-9])[0-9]-';

/**
 * A `since` / `until` query parameter: a calendar date (YYYY-MM-DD) or an RFC 3339 date-time,
 * in the years 1910-2199 (inside what the analytics store's DateTime64 holds, whatever the offset). `parseInstant` (api/windows.ts)
 * reads every value this accepts.
 */
export const DateParam = (description: string) =>
  Type.Optional(
    Type.String({
      maxLength: 40,
      pattern: DATE_YEARS_PATTERN,
      anyOf: [
        { type: 'string', format: 'date' },
        { type: 'string', format: 'date-time' },
      ],
      description: `${description}: YYYY-MM-DD or an RFC 3339 date-time`,
    }),
  );

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
    reason: Type.Optional(Type.String({ description: 'why a payment was refused (payment problems only)' })),
  },
  { $id: 'Problem', description: 'RFC 9457 problem document (application/problem+json)' },
);

/** Problem responses every `/v1` operation can return, for the OpenAPI document. */
export function withProblems<R extends Record<number, TSchema>>(responses: R) {
  const ref = Type.Ref('Problem');
  return { ...responses, '4XX': ref, '5XX': ref };
}
