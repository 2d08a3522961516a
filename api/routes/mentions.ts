import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import { NO_MATCH } from '../../projections/analytics/analytics-store.ts';
import {
  type Change,
  type Counts,
  type PodcastSort,
  SORT_KEYS,
} from '../../projections/analytics/mention-queries.ts';
import { Position, pageQuery } from '../pagination.ts';
import { exactlyOneOf } from '../plugins/openapi-document.ts';
import { StringEnum, Timestamp, withProblems } from '../schemas.ts';
import {
  type AnalyticsRouteOptions,
  BucketSchema,
  CountsSchema,
  compactEntities,
  episodeReferences,
  MentionFilterQuery,
  type MentionFilterValues,
  resolveScope,
  resolveSubject,
} from '../views/analytics.ts';
import { EntityCompact, EpisodeReference } from '../views/catalog.ts';
import { type Bucket, bucketsOf, iso, resolveWindow } from '../windows.ts';

/**
 * Mentions: the lines themselves, their timeseries, and the podcasts that mention an entity
 * (current window against the previous one). All three take the same filters and count the
 * same way, so their figures agree. Only the podcasts read caps its window (90 days); the
 * timeseries takes any window of at most 1,000 buckets and the lines any window, so an archive
 * can be read whole.
 */
const WINDOW = { defaultDays: 7 };
const BY_PODCAST_WINDOW = { defaultDays: 7, maxDays: 90 };

const counts = (c: Counts | undefined) => ({
  mention_count: c?.mentions ?? 0,
  episode_count: c?.episodes ?? 0,
  podcast_count: c?.podcasts ?? 0,
});

function bucketList(buckets: Bucket[], values: Map<number, Counts> | undefined) {
  return buckets.map((b) => ({ start: iso(b.start), end: iso(b.end), ...counts(values?.get(b.key)) }));
}

const TimeseriesQuery = Type.Object({
  ...MentionFilterQuery,
  interval: StringEnum(['hour', 'day', 'week', 'month'] as const, {
    default: 'day',
    description: 'bucket size; at most 1,000 buckets per response',
  }),
});

const TimeseriesResponse = Type.Object({
  entity: EntityCompact,
  start: Timestamp,
  end: Timestamp,
  interval: Type.String(),
  totals: CountsSchema,
  buckets: Type.Array(BucketSchema, { description: 'every bucket of the window, oldest first, zero-filled' }),
});

const PodcastBucket = Type.Object({
  start: Timestamp,
  end: Timestamp,
  mention_count: Type.Integer(),
  episode_count: Type.Integer(),
});

const ByPodcastRow = Type.Object({
  podcast_id: Type.String(),
  podcast: Type.Object({
    id: Type.String(),
    title: Type.String(),
    slug: Type.String(),
    image_url: Type.Union([Type.String(), Type.Null()]),
    popularity: Type.Union([Type.Number(), Type.Null()], {
      description: 'global popularity percentile; null when not charting',
    }),
  }),
  change: StringEnum(['new', 'continuing', 'dropped'] as const),
  mention_count: Type.Integer({ description: 'mention lines in the current window' }),
  episode_count: Type.Integer({ description: 'episodes with mention lines in the current window' }),
  previous_mention_count: Type.Integer(),
  previous_episode_count: Type.Integer(),
  mention_count_delta: Type.Integer({ description: 'mention_count - previous_mention_count' }),
  buckets: Type.Optional(
    Type.Array(PodcastBucket, { description: 'current window per interval, when asked' }),
  ),
});

const ByPodcastQuery = Type.Object({
  ...MentionFilterQuery,
  change: Type.Optional(
    StringEnum(['new', 'continuing', 'dropped'] as const, {
      description: 'new: current window only; continuing: both windows; dropped: previous window only',
    }),
  ),
  sort: StringEnum(['mentions', 'rising', 'falling', 'popularity'] as const, { default: 'mentions' }),
  interval: Type.Optional(
    StringEnum(['day', 'week', 'month'] as const, { description: 'adds per-podcast buckets' }),
  ),
  ...pageQuery(),
});

const ByPodcastResponse = Type.Object({
  entity: EntityCompact,
  start: Timestamp,
  end: Timestamp,
  previous_start: Timestamp,
  previous_end: Timestamp,
  sort: Type.String(),
  interval: Type.Optional(Type.String()),
  totals: Type.Object(
    {
      podcast_count: Type.Integer(),
      mention_count: Type.Integer(),
      episode_count: Type.Integer(),
      previous_mention_count: Type.Integer(),
      previous_episode_count: Type.Integer(),
      mention_count_delta: Type.Integer(),
      new_count: Type.Integer(),
      continuing_count: Type.Integer(),
      dropped_count: Type.Integer(),
    },
    { description: 'over every podcast, whatever the page or change filter' },
  ),
  data: Type.Array(ByPodcastRow),
  has_more: Type.Boolean(),
  cursor: Type.Optional(Type.String()),
});

const MentionsQuery = Type.Object({
  ...MentionFilterQuery,
  episode_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'episode slug or ID' })),
  ...pageQuery(),
});

const MentionItem = Type.Object({
  id: Type.String({ description: 'episode, line and entity' }),
  entity_id: Type.String(),
  podcast_id: Type.String(),
  episode: EpisodeReference,
  in_ad: Type.Boolean(),
  variants: Type.Array(Type.String(), { description: 'how the episode names the entity' }),
  line: Type.Object({
    number: Type.Integer(),
    speaker: Type.String({ description: 'diarization label' }),
    speaker_name: Type.Union([Type.String(), Type.Null()]),
    role: Type.Union([Type.String(), Type.Null()], { description: 'HOST, GUEST, … when identified' }),
    start_seconds: Type.Number(),
    end_seconds: Type.Number(),
    text: Type.String(),
  }),
});

const MentionsResponse = Type.Object({
  entity: EntityCompact,
  start: Timestamp,
  end: Timestamp,
  data: Type.Array(MentionItem),
  has_more: Type.Boolean(),
  cursor: Type.Optional(Type.String()),
});

/** After a row of the by-podcast list: its sort key (one number per key of the sort) and podcast. */
const byPodcastPosition = (sort: PodcastSort) =>
  Type.Object({
    k: Type.Array(Position.number(), { minItems: SORT_KEYS[sort], maxItems: SORT_KEYS[sort] }),
    id: Position.id(),
  });
const LINE_POSITION = Type.Object({ p: Position.epochMs(), e: Position.id(), l: Position.uint32() });

export const mentionRoutes: FastifyPluginAsyncTypebox<AnalyticsRouteOptions> = async (app, opts) => {
  const { mentions, episodes } = opts.reads;
  const { catalog } = opts;

  app.get(
    '/v1/podcasts/mentions/timeseries',
    {
      config: { queryConstraints: [exactlyOneOf('entity_id', 'company_id')] },
      schema: {
        tags: ['mentions'],
        summary: 'Mention lines, episodes and podcasts per bucket over a window (at most 1,000 buckets)',
        querystring: TimeseriesQuery,
        response: withProblems({ 200: TimeseriesResponse }),
      },
    },
    async (request) => {
      const q = request.query as Static<typeof TimeseriesQuery> & MentionFilterValues;
      const window = resolveWindow(q, WINDOW);
      const interval = q.interval ?? 'day';
      const buckets = bucketsOf(window, interval);
      const entity = await resolveSubject(catalog, q);
      const scope = await resolveScope(catalog, entity, q);
      const result = await mentions.timeseries(scope, window, interval);
      return {
        entity: (await compactEntities(catalog, [entity]))[0]!,
        start: iso(window.start),
        end: iso(window.end),
        interval,
        totals: counts(result.totals),
        buckets: bucketList(buckets, result.buckets),
      };
    },
  );

  app.get(
    '/v1/podcasts/mentions/by-podcast',
    {
      config: { queryConstraints: [exactlyOneOf('entity_id', 'company_id')] },
      schema: {
        tags: ['mentions'],
        summary: 'Podcasts that mentioned an entity: current window against the previous one',
        description:
          'The previous window has the same length and ends where the current one starts. When paging, pass the same sort with the cursor and the echoed start and end as since and until.',
        querystring: ByPodcastQuery,
        response: withProblems({ 200: ByPodcastResponse }),
      },
    },
    async (request) => {
      const q = request.query as Static<typeof ByPodcastQuery> & MentionFilterValues;
      const window = resolveWindow(q, BY_PODCAST_WINDOW);
      const interval = q.interval;
      const buckets = interval ? bucketsOf(window, interval) : undefined;
      const entity = await resolveSubject(catalog, q);
      const scope = await resolveScope(catalog, entity, q);
      const sort = (q.sort ?? 'mentions') as PodcastSort;
      const endpoint = `mentions-by-podcast:${sort}`;
      const limit = q.limit ?? 25;
      const after = app.cursors.decode(endpoint, q.cursor, byPodcastPosition(sort));
      const { rows, totals } = await mentions.byPodcast(scope, window, {
        sort,
        change: q.change as Change | undefined,
        after: after?.k,
        afterId: after?.id,
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      const podcasts = await catalog.podcastsByIds(page.map((r) => r.podcast_id));
      const perPodcast =
        interval && buckets
          ? await mentions.podcastBuckets(
              scope,
              window,
              interval,
              page.map((r) => r.podcast_id),
            )
          : undefined;
      const length = window.end - window.start;
      const out: Static<typeof ByPodcastResponse> = {
        entity: (await compactEntities(catalog, [entity]))[0]!,
        start: iso(window.start),
        end: iso(window.end),
        previous_start: iso(window.start - length),
        previous_end: iso(window.start),
        sort,
        totals: {
          podcast_count: totals.podcasts,
          mention_count: totals.mentions,
          episode_count: totals.episodes,
          previous_mention_count: totals.previous_mentions,
          previous_episode_count: totals.previous_episodes,
          mention_count_delta: totals.mentions - totals.previous_mentions,
          new_count: totals.new,
          continuing_count: totals.continuing,
          dropped_count: totals.dropped,
        },
        data: page.map((r) => {
          const p = podcasts.get(r.podcast_id);
          const row: Static<typeof ByPodcastRow> = {
            podcast_id: r.podcast_id,
            podcast: {
              id: r.podcast_id,
              title: p?.title ?? '',
              slug: p?.slug ?? '',
              image_url: p?.image_url ?? null,
              popularity: p?.popularity ?? r.popularity,
            },
            change: r.change,
            mention_count: r.mentions,
            episode_count: r.episodes,
            previous_mention_count: r.previous_mentions,
            previous_episode_count: r.previous_episodes,
            mention_count_delta: r.mentions - r.previous_mentions,
          };
          if (buckets) {
            const values = perPodcast?.get(r.podcast_id);
            row.buckets = buckets.map((b) => {
              const c = values?.get(b.key);
              return {
                start: iso(b.start),
                end: iso(b.end),
                mention_count: c?.mentions ?? 0,
                episode_count: c?.episodes ?? 0,
              };
            });
          }
          return row;
        }),
        has_more: rows.length > limit,
      };
      if (interval) out.interval = interval;
      if (rows.length > limit) {
        const last = page.at(-1)!;
        out.cursor = app.cursors.encode(endpoint, { k: last.key, id: last.podcast_id });
      }
      return out;
    },
  );

  app.get(
    '/v1/podcasts/mentions',
    {
      config: { queryConstraints: [exactlyOneOf('entity_id', 'company_id')] },
      schema: {
        tags: ['mentions'],
        summary: 'The lines that mention an entity, newest episode first',
        querystring: MentionsQuery,
        response: withProblems({ 200: MentionsResponse }),
      },
    },
    async (request) => {
      const q = request.query as Static<typeof MentionsQuery> & MentionFilterValues;
      const window = resolveWindow(q, WINDOW);
      const entity = await resolveSubject(catalog, q);
      const scope = await resolveScope(catalog, entity, q);
      if (q.episode_id !== undefined) scope.episodeId = (await catalog.episode(q.episode_id))?.id ?? NO_MATCH;
      const endpoint = 'mentions';
      const limit = q.limit ?? 25;
      const after = app.cursors.decode(endpoint, q.cursor, LINE_POSITION);
      const rows = await mentions.lines(scope, window, { after, limit: limit + 1 });
      const page = rows.slice(0, limit);
      const [refs, texts, speakers] = await Promise.all([
        episodeReferences(
          catalog,
          page.map((r) => r.episode_id),
          (id) => {
            const r = page.find((x) => x.episode_id === id)!;
            return { podcast_id: r.podcast_id, published_ms: Number(r.published_ms) };
          },
        ),
        episodes.linesByNumber(
          page.map((r) => r.episode_id),
          page.map((r) => Number(r.line_number)),
        ),
        episodes.speakers(page.map((r) => r.episode_id)),
      ]);
      const speakerOf = new Map(speakers.map((s) => [`${s.episode_id}/${s.label}`, s]));
      const out: Static<typeof MentionsResponse> = {
        entity: (await compactEntities(catalog, [entity]))[0]!,
        start: iso(window.start),
        end: iso(window.end),
        data: page.map((r) => {
          const line = texts.get(`${r.episode_id}/${r.line_number}`);
          const speaker = speakerOf.get(`${r.episode_id}/${r.speaker}`);
          return {
            id: `${r.episode_id}:${r.line_number}:${r.entity_id}`,
            entity_id: r.entity_id,
            podcast_id: r.podcast_id,
            episode: refs.get(r.episode_id)!,
            in_ad: Number(r.in_ad) === 1,
            variants: r.variants,
            line: {
              number: Number(r.line_number),
              speaker: r.speaker,
              speaker_name: speaker?.name ?? null,
              role: speaker?.role ?? line?.role ?? null,
              start_seconds: line?.start_seconds ?? 0,
              end_seconds: line?.end_seconds ?? 0,
              text: line?.text ?? '',
            },
          };
        }),
        has_more: rows.length > limit,
      };
      if (rows.length > limit) {
        const last = page.at(-1)!;
        out.cursor = app.cursors.encode(endpoint, {
          p: Number(last.published_ms),
          e: last.episode_id,
          l: Number(last.line_number),
        });
      }
      return out;
    },
  );
};
