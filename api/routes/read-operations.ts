import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { ReadOperation } from '../reads/read-operation.ts';
import { withProblems } from '../schemas.ts';

export interface ReadRoutesOptions {
  operations: ReadOperation[];
  /** Refuses a premium read on a plan without premium endpoints (api/premium.ts). */
  requirePremium: (request: FastifyRequest) => void;
}

/** The REST side of read operations: each one a GET route with its path and query schemas. */
export const readOperationRoutes: FastifyPluginAsyncTypebox<ReadRoutesOptions> = async (app, opts) => {
  for (const op of opts.operations) {
    const pathKeys = op.pathParams as string[];
    const params = pathKeys.length > 0 ? Type.Pick(op.input, pathKeys) : undefined;
    const querystring = Type.Omit(op.input, pathKeys);
    app.get(
      op.path,
      {
        config: op.priceCents !== undefined ? { billable: { priceCents: op.priceCents } } : {},
        schema: {
          tags: op.tags,
          summary: op.summary,
          ...(op.description ? { description: op.description } : {}),
          ...(params ? { params } : {}),
          querystring,
          response: withProblems({ 200: op.output }),
        },
      },
      async (request) => {
        if (op.premium) opts.requirePremium(request);
        const input = { ...(request.query as object), ...(request.params as object) };
        return op.run(input as Static<typeof op.input>);
      },
    );
  }
};
