import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import {
  type AlertApiServices,
  type AlertFilters,
  DeliveryLandingSchema,
  DeliverySchema,
  MatchListItem,
  MatchSchema,
} from '../../processors/alerts/index.ts';
import { ListEnvelope, Position, pageQuery } from '../pagination.ts';
import { principalOf } from '../plugins/authentication.ts';
import { problem } from '../problem.ts';
import { withProblems } from '../schemas.ts';

/**
 * What alerts found and sent: an alert's matches and deliveries (newest first), one match with
 * its episode block, one delivery (the landing page a notification links to). History stays
 * readable after an alert is deleted. The reads are the alerting module's (`AlertReads`).
 */
const AlertParams = Type.Object({ id: Type.String({ maxLength: 200 }) });
const TIME_POSITION = Type.Object({ d: Position.instant(), i: Position.id() });
const INDEX_POSITION = Position.offset();

export const alertHistoryRoutes: FastifyPluginAsyncTypebox<{ alerting: AlertApiServices }> = async (
  app,
  { alerting },
) => {
  const { alerts, reads } = alerting;
  const tags = ['alerts'];

  /** The caller's alert, deleted or not (history stays readable), or 404. */
  async function alertHistoryFor(
    request: FastifyRequest,
    id: string,
  ): Promise<{ id: string; filters: AlertFilters }> {
    const principal = principalOf(request);
    const row = await alerts.history(id);
    if (!row || row.project_id !== principal.project.id) {
      throw problem('not_found', `No alert ${id} in this project.`, {
        errors: [{ location: 'path.id', message: 'is not an alert of this project', value: id }],
      });
    }
    return row;
  }

  app.get(
    '/v1/alerts/:id/matches',
    {
      schema: {
        tags,
        summary: "An alert's matches, newest first (no episode block)",
        description: "The alert's `relevance` and `source_popularity` filters apply, as for deliveries.",
        params: AlertParams,
        querystring: Type.Object(pageQuery()),
        response: withProblems({ 200: ListEnvelope(MatchListItem) }),
      },
    },
    async (request) => {
      const alert = await alertHistoryFor(request, request.params.id);
      const endpoint = `alert-matches:${alert.id}`;
      const limit = request.query.limit ?? 25;
      const after = app.cursors.decode(endpoint, request.query.cursor, TIME_POSITION);
      const page = await reads.matchesPage(alert, after, limit);
      return {
        data: page.data,
        has_more: page.next !== undefined,
        ...(page.next ? { cursor: app.cursors.encode(endpoint, page.next) } : {}),
      };
    },
  );

  app.get(
    '/v1/alerts/:id/deliveries',
    {
      schema: {
        tags,
        summary: "An alert's deliveries, newest first",
        params: AlertParams,
        querystring: Type.Object(pageQuery()),
        response: withProblems({ 200: ListEnvelope(DeliverySchema) }),
      },
    },
    async (request) => {
      const alert = await alertHistoryFor(request, request.params.id);
      const endpoint = `alert-deliveries:${alert.id}`;
      const limit = request.query.limit ?? 25;
      const after = app.cursors.decode(endpoint, request.query.cursor, TIME_POSITION);
      const page = await reads.deliveriesPage(alert.id, after, limit);
      return {
        data: page.data,
        has_more: page.next !== undefined,
        ...(page.next ? { cursor: app.cursors.encode(endpoint, page.next) } : {}),
      };
    },
  );

  app.get(
    '/v1/alerts/matches/:id',
    {
      schema: {
        tags,
        summary: 'One match, with its episode block',
        params: AlertParams,
        response: withProblems({ 200: MatchSchema }),
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const doc = await reads.match(request.params.id);
      const owner = doc ? await reads.matchProject(doc.id) : undefined;
      if (!doc || owner !== principal.project.id) {
        throw problem('not_found', `No match ${request.params.id} in this project.`, {
          errors: [{ location: 'path.id', message: 'is not a match of this project' }],
        });
      }
      return doc;
    },
  );

  app.get(
    '/v1/alerts/deliveries/:id',
    {
      schema: {
        tags,
        summary: 'One delivery (the landing page of a notification) with its matches',
        description: 'Matches page with `limit` and `cursor`; the next page is at `matches_cursor`.',
        params: AlertParams,
        querystring: Type.Object(pageQuery()),
        response: withProblems({ 200: DeliveryLandingSchema }),
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const found = await reads.delivery(request.params.id);
      if (!found || found.projectId !== principal.project.id) {
        throw problem('not_found', `No delivery ${request.params.id} in this project.`, {
          errors: [{ location: 'path.id', message: 'is not a delivery of this project' }],
        });
      }
      const endpoint = `delivery-matches:${request.params.id}`;
      const limit = request.query.limit ?? 25;
      const from = app.cursors.decode(endpoint, request.query.cursor, INDEX_POSITION) ?? 0;
      const ids = found.matchIds.slice(from, from + limit);
      const more = from + limit < found.matchIds.length;
      return {
        ...found.delivery,
        matches: await reads.matches(ids),
        matches_has_more: more,
        ...(more ? { matches_cursor: app.cursors.encode(endpoint, from + limit) } : {}),
      };
    },
  );
};
