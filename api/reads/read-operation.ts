import type { Static, TObject, TSchema } from '@sinclair/typebox';

/**
 * A read operation: one query-service method with its input and output schemas, served as a REST
 * route and declarable as an agent tool from the same declaration. `input` holds every
 * parameter — path and query alike, path parameters named in `pathParams` — so a tool's
 * arguments are exactly the route's parameters; `run` is what both call.
 */
export interface ReadOperation<I extends TObject = TObject, O extends TSchema = TSchema> {
  /** Stable snake_case name (a tool's name, without the service prefix). */
  name: string;
  /** The REST path, fastify style (`/v1/sponsors/:id`). */
  path: string;
  pathParams: readonly (keyof Static<I> & string)[];
  tags: string[];
  summary: string;
  description?: string;
  input: I;
  output: O;
  /** Premium data: a plan with premium endpoints is needed (checked by the transport). */
  premium?: boolean;
  /** Price of one call for pay-per-request clients. */
  priceCents?: number;
  run(input: Static<I>): Promise<Static<O>>;
}

/** Declares an operation, keeping its input and output types tied to `run`. */
export function defineRead<I extends TObject, O extends TSchema>(op: ReadOperation<I, O>): ReadOperation {
  return op as unknown as ReadOperation;
}
