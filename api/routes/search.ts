import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { FILTER_ROLES } from '../../projections/search/search-index.ts';
import { CLIP_TYPES, SEGMENT_TYPES } from '../../schemas/event-enums.ts';
import { ListEnvelope, pageQuery, pageQueryAll } from '../pagination.ts';
import { atLeastOneOf, notWith, onlyWithOneOf } from '../plugins/openapi-document.ts';
import { DateParam, NOT_BLANK_PATTERN, StringEnum, WORDS_PATTERN, withProblems } from '../schemas.ts';
import {
  type ClipListParams,
  type ClipSearchParams,
  clipSearch,
  episodeClips,
  listClips,
} from '../search/clip-search.ts';
import { type DialogueSearchParams, dialogueSearch } from '../search/dialogue-search.ts';
import { ENTITY_SEARCH_TYPES, searchEntities, searchPodcasts } from '../search/name-search.ts';
import { QueryEmbedder, type SearchServices } from '../search/search-services.ts';
import {
  ClipSchema,
  ClipSearchItemSchema,
  CompanyEnvelope,
  DialogueResultSchema,
  EntitySearchItemSchema,
  PodcastSearchItemSchema,
} from '../search/views.ts';
import { EntityCompact } from '../views/catalog.ts';

const MAX_QUERY = 500;
const ref = (what: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: what }));
/** Free text: `words` when it is analysed into words (keyword and name search), else not blank. */
const searchText = (description: string, words = false) =>
  Type.Optional(
    Type.String({
      maxLength: MAX_QUERY,
      pattern: words ? WORDS_PATTERN : NOT_BLANK_PATTERN,
      description: `${description} (at most ${MAX_QUERY} characters${words ? ', with a word of letters or digits' : ', not blank'})`,
    }),
  );
const role = Type.Optional(
  StringEnum(FILTER_ROLES, {
    description: 'how the entity features: as guest, host, panelist, correspondent, or mentioned',
  }),
);
const since = DateParam('episodes published on or after');
const until = DateParam('episodes published before (a bare date includes that whole day)');

const DialogueQuery = Type.Object({
  semantic_search: searchText('search by meaning'),
  keyword_search: searchText(
    'BM25 keyword search; each "double-quoted sequence" must occur as an exact ordered phrase, several phrases AND together',
    true,
  ),
  entity_id: ref('entity slug or ID: episodes featuring this entity'),
  entity_type: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'entity category slug (GET /v1/entities/types); not with role; ignored when entity_id is given',
    }),
  ),
  company_id: ref('company slug, domain or ID'),
  episode_id: ref('episode slug or ID'),
  podcast_id: ref('podcast slug, ID or numeric directory ID'),
  type: Type.Optional(StringEnum(SEGMENT_TYPES, { description: 'segment type' })),
  role,
  since,
  until,
  sort: Type.Optional(StringEnum(['relevance', 'recency'] as const, { default: 'relevance' })),
  ...pageQuery(),
});

const ClipSearchQuery = Type.Object({
  q: searchText('search clips by meaning; at least one of q, entity_id, company_id is required'),
  entity_id: ref('entity slug or ID: clips the entity speaks in or is mentioned in'),
  company_id: ref('company slug, domain or ID'),
  episode_id: ref('episode slug or ID'),
  podcast_id: ref('podcast slug, ID or numeric directory ID'),
  type: Type.Optional(StringEnum(CLIP_TYPES, { description: 'clip type' })),
  role,
  since,
  until,
  sort: Type.Optional(
    StringEnum(['relevance', 'recency'] as const, {
      description: 'default: relevance with q, recency otherwise',
    }),
  ),
  ...pageQuery({ max: 25, fallback: 10 }),
});

const ClipListQuery = Type.Object({
  speaker: ref('person slug (as entity search returns it) or ID of the speaker'),
  podcast_id: ref('podcast slug, ID or numeric directory ID'),
  type: Type.Optional(StringEnum(CLIP_TYPES, { description: 'clip type' })),
  min_engagement: Type.Optional(
    Type.Number({ minimum: 0, maximum: 100, description: 'lowest engagement score' }),
  ),
  ...pageQuery(),
});

const NameQuery = {
  q: Type.String({
    maxLength: MAX_QUERY,
    pattern: WORDS_PATTERN,
    description: 'free text, with a word of letters or digits',
  }),
};

export const PodcastSearchQuery = Type.Object({ ...NameQuery, ...pageQuery() });

/**
 * On semantic and hybrid answers while some of the index has no vector yet (the vector filler is
 * behind): how much of it the answer was ranked over. Absent once every passage and clip has its
 * vector.
 */
const SemanticCoverage = Type.Object(
  {
    embedded: Type.Integer({ minimum: 0, description: 'passages and clips with their vector' }),
    total: Type.Integer({ minimum: 0, description: 'passages and clips in the index' }),
  },
  {
    description:
      'present on semantic and hybrid answers while the index is still embedding: the answer covers `embedded` of `total` passages and clips',
  },
);

const DialogueResponse = Type.Object({
  ...ListEnvelope(DialogueResultSchema).properties,
  company: Type.Optional(CompanyEnvelope),
  entity: Type.Optional(EntityCompact),
  semantic_coverage: Type.Optional(SemanticCoverage),
});

const ClipSearchResponse = Type.Object({
  ...ListEnvelope(ClipSearchItemSchema).properties,
  semantic_coverage: Type.Optional(SemanticCoverage),
});

/**
 * Search endpoints: dialogue search, clip search and lists, entity search and podcast search.
 * `GET /v1/podcasts?q=` answers like `/v1/podcasts/search`: its route calls `searchPodcasts`.
 */
export const searchRoutes: FastifyPluginAsyncTypebox<{ services: SearchServices }> = async (
  app,
  { services },
) => {
  const embedder = new QueryEmbedder(services);

  app.get(
    '/v1/podcasts/episodes/search',
    {
      config: {
        queryConstraints: [notWith('entity_type', 'role'), onlyWithOneOf('role', 'entity_id', 'company_id')],
      },
      schema: {
        tags: ['search'],
        summary: 'Search dialogue by keyword, meaning or both',
        description:
          'Each result is one segment of one episode with windows of lines around its matches. Keyword search ranks lines by BM25; semantic search by meaning; both together fuse the two rankings by reciprocal rank (hybrid). Without a text query, segments matching the filters come newest first.',
        querystring: DialogueQuery,
        response: withProblems({ 200: DialogueResponse }),
      },
    },
    async (request) => dialogueSearch(services, app.cursors, embedder, request.query as DialogueSearchParams),
  );

  app.get(
    '/v1/podcasts/clips/search',
    {
      config: {
        queryConstraints: [
          atLeastOneOf('q', 'entity_id', 'company_id'),
          onlyWithOneOf('role', 'entity_id', 'company_id'),
        ],
      },
      schema: {
        tags: ['clips'],
        summary: 'Search highlight clips by meaning and by who features in them',
        querystring: ClipSearchQuery,
        response: withProblems({ 200: ClipSearchResponse }),
      },
    },
    async (request) => clipSearch(services, app.cursors, embedder, request.query as ClipSearchParams),
  );

  app.get(
    '/v1/podcasts/clips',
    {
      schema: {
        tags: ['clips'],
        summary: 'Clips across the catalog, best first',
        querystring: ClipListQuery,
        response: withProblems({ 200: ListEnvelope(ClipSchema) }),
      },
    },
    async (request) => listClips(services, app.cursors, request.query as ClipListParams),
  );

  app.get(
    '/v1/podcasts/episodes/:id/clips',
    {
      schema: {
        tags: ['clips'],
        summary: 'Clips of one episode, best first',
        params: Type.Object({
          id: Type.String({ minLength: 1, maxLength: 200, description: 'episode slug or ID' }),
        }),
        querystring: Type.Object(pageQueryAll()),
        response: withProblems({ 200: ListEnvelope(ClipSchema) }),
      },
    },
    async (request) => episodeClips(services, app.cursors, request.params.id, request.query),
  );

  app.get(
    '/v1/entities/search',
    {
      schema: {
        tags: ['entities'],
        summary: 'Find people, companies and knowledge-graph entities by name',
        description:
          'Matches names, partial names, nicknames, tickers, @handles and domains; each result says how well it matched.',
        querystring: Type.Object({
          ...NameQuery,
          type: Type.Optional(StringEnum(ENTITY_SEARCH_TYPES, { description: 'only this kind of entity' })),
          ...pageQuery(),
        }),
        response: withProblems({ 200: ListEnvelope(EntitySearchItemSchema) }),
      },
    },
    async (request) =>
      searchEntities(services, app.cursors, request.query as Parameters<typeof searchEntities>[2]),
  );

  app.get(
    '/v1/podcasts/search',
    {
      schema: {
        tags: ['podcasts'],
        summary: 'Find podcasts by name',
        querystring: PodcastSearchQuery,
        response: withProblems({ 200: ListEnvelope(PodcastSearchItemSchema) }),
      },
    },
    async (request) => searchPodcasts(services, app.cursors, request.query),
  );
};

export { searchPodcasts };
