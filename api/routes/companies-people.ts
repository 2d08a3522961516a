import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import { ListEnvelope } from '../pagination.ts';
import { withProblems } from '../schemas.ts';
import { type AnalyticsRouteOptions, notFound } from '../views/analytics.ts';
import {
  Company,
  companyView,
  NamedListQuery,
  namePage,
  Person,
  personViews,
  RefParams,
} from '../views/catalog-records.ts';

/** Companies and people: each as a list by name, and one by reference. */
export const companyPeopleRoutes: FastifyPluginAsyncTypebox<AnalyticsRouteOptions> = async (app, opts) => {
  const { catalog, lists } = opts;

  const entityList = (kind: 'COMPANY' | 'PERSON', q: Static<typeof NamedListQuery>, endpoint: string) =>
    namePage(app.cursors, endpoint, q, (page) => lists.entities(kind, page));

  app.get(
    '/v1/companies',
    {
      schema: {
        tags: ['companies'],
        summary: 'Companies by name',
        querystring: NamedListQuery,
        response: withProblems({ 200: ListEnvelope(Company) }),
      },
    },
    async (request) => {
      const page = await entityList('COMPANY', request.query as Static<typeof NamedListQuery>, 'companies');
      return { ...page, data: page.data.map(companyView) };
    },
  );

  app.get(
    '/v1/companies/:id',
    {
      schema: {
        tags: ['companies'],
        summary: 'One company by slug, domain or ID',
        params: RefParams('company slug, domain or ID'),
        response: withProblems({ 200: Company }),
      },
    },
    async (request) => {
      const company = await catalog.company(request.params.id);
      if (!company) throw notFound('path.id', 'no company has this slug, domain or ID', request.params.id);
      return companyView(company);
    },
  );

  app.get(
    '/v1/people',
    {
      schema: {
        tags: ['people'],
        summary: 'People by name',
        querystring: NamedListQuery,
        response: withProblems({ 200: ListEnvelope(Person) }),
      },
    },
    async (request) => {
      const page = await entityList('PERSON', request.query as Static<typeof NamedListQuery>, 'people');
      return { ...page, data: await personViews(catalog, page.data) };
    },
  );

  app.get(
    '/v1/people/:id',
    {
      schema: {
        tags: ['people'],
        summary: 'One person by slug or ID',
        params: RefParams('person slug or ID'),
        response: withProblems({ 200: Person }),
      },
    },
    async (request) => {
      const person = await catalog.entity(request.params.id);
      if (person?.kind !== 'PERSON') {
        throw notFound('path.id', 'no person has this slug or ID', request.params.id);
      }
      return (await personViews(catalog, [person]))[0]!;
    },
  );
};
