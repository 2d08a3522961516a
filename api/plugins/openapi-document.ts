/**
 * Post-processing of the generated OpenAPI document, so that it states what the server does.
 */

/**
 * 3.2: the first version that can describe a query string as a whole (`in: querystring`), which
 * the operations with rules relating their parameters need.
 */
export const OPENAPI_VERSION = '3.2.0';

const PROBLEM_REF = '#/components/schemas/Problem';

interface MediaType {
  schema?: { $ref?: string };
}
interface Response {
  description?: string;
  content?: Record<string, MediaType>;
}
interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  description?: string;
  schema?: Record<string, unknown> & { default?: unknown };
  content?: Record<string, MediaType | { schema: Record<string, unknown> }>;
}
export interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Record<string, unknown> }> };
  responses?: Record<string, Response>;
  [key: string]: unknown;
}

/** A JSON Schema rule over the whole query string, with the sentence the document shows. */
export interface QueryConstraint {
  description: string;
  [keyword: string]: unknown;
}

const required = (name: string) => ({ required: [name] });

/** Exactly one of `names` (e.g. `entity_id` or `company_id`, not both). */
export function exactlyOneOf(...names: string[]): QueryConstraint {
  return { description: `exactly one of ${names.join(', ')} is required`, oneOf: names.map(required) };
}

/** At least one of `names`. */
export function atLeastOneOf(...names: string[]): QueryConstraint {
  return { description: `at least one of ${names.join(', ')} is required`, anyOf: names.map(required) };
}

/** `name` only together with one of `others`. */
export function onlyWithOneOf(name: string, ...others: string[]): QueryConstraint {
  return {
    description: `${name} needs one of ${others.join(', ')}`,
    if: required(name),
    // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword
    then: { anyOf: others.map(required) },
  };
}

/** `name` never together with any of `others`. */
export function notWith(name: string, ...others: string[]): QueryConstraint {
  return {
    description: `${name} cannot be combined with ${others.join(', ')}`,
    if: required(name),
    // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword
    then: { not: { anyOf: others.map(required) } },
  };
}

/** A rule on a JSON body: when it matches `when`, it must match `then`. */
export function bodyRule(description: string, when: object, then: object): QueryConstraint {
  return { description, if: when, then };
}

/** Adds rules relating fields of the JSON request body to its schema in the document. */
export function constrainBody(operation: Operation, constraints: QueryConstraint[]): void {
  const json = operation.requestBody?.content?.['application/json'];
  if (!json?.schema) return;
  json.schema = { ...json.schema, allOf: [...((json.schema.allOf as unknown[]) ?? []), ...constraints] };
}

const problemResponse = (description: string): Response => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: PROBLEM_REF } } },
});

/**
 * Every error is a problem document served as `application/problem+json`, and any operation can
 * answer 4XX (404, 405, 414, 422, 431 …) and 5XX; a query parameter with a default is optional
 * (validation fills the default in).
 */
export function describeServerBehaviour(operation: Operation): void {
  operation.responses ??= {};
  const responses = operation.responses;
  for (const [status, response] of Object.entries(responses)) {
    if (!/^[45]/.test(status)) continue;
    const json = response.content?.['application/json'];
    if (json?.schema?.$ref === PROBLEM_REF) response.content = { 'application/problem+json': json };
  }
  responses['4XX'] ??= problemResponse('RFC 9457 problem document');
  responses['5XX'] ??= problemResponse('RFC 9457 problem document');
  for (const p of operation.parameters ?? []) {
    if (p.in === 'query' && p.schema?.default !== undefined) p.required = false;
  }
}

/**
 * Describes the operation's query string as one object schema (OpenAPI 3.2 `in: querystring`,
 * form-encoded) holding every query parameter and the rules relating them, instead of one
 * parameter per name, which cannot say "one of these two is required".
 */
export function queryAsQuerystring(operation: Operation, constraints: QueryConstraint[]): void {
  const query = (operation.parameters ?? []).filter((p) => p.in === 'query');
  if (query.length === 0) return;
  const properties: Record<string, unknown> = {};
  for (const p of query) {
    properties[p.name] = { ...p.schema, ...(p.description ? { description: p.description } : {}) };
  }
  const schema = {
    type: 'object',
    properties,
    required: query.filter((p) => p.required).map((p) => p.name),
    allOf: constraints,
  };
  operation.parameters = [
    ...(operation.parameters ?? []).filter((p) => p.in !== 'query'),
    {
      in: 'querystring',
      name: 'query',
      // An empty query string is valid unless a parameter is required, alone or as one of several.
      required: schema.required.length > 0 || constraints.some((c) => 'oneOf' in c || 'anyOf' in c),
      description: constraints.map((c) => c.description).join('; '),
      content: { 'application/x-www-form-urlencoded': { schema } },
    },
  ];
}

/**
 * A response the route writes as a sequence of items (Server-Sent Events, NDJSON): OpenAPI 3.2
 * `itemSchema` describes each item.
 */
export interface StreamResponse {
  mediaType: 'text/event-stream' | 'application/x-ndjson';
  description: string;
  itemSchema: object;
  headers?: Record<string, { description: string; schema: object }>;
  /** Other success responses (206, 304 of the download). */
  more?: Record<
    string,
    { description: string; headers?: Record<string, unknown>; content?: Record<string, unknown> }
  >;
}

export function describeStream(operation: Operation, stream: StreamResponse): void {
  operation.responses ??= {};
  operation.responses['200'] = {
    description: stream.description,
    ...(stream.headers ? { headers: stream.headers } : {}),
    content: { [stream.mediaType]: { itemSchema: stream.itemSchema } as MediaType },
  };
  for (const [status, response] of Object.entries(stream.more ?? {}))
    operation.responses[status] = response as Response;
}
