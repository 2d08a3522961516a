import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import type { FeedEpisodeRow } from '../../projections/analytics/episode-queries.ts';
import type { EpisodeRow, PodcastRow } from '../../projections/catalog/catalog-reader.ts';
import { Position, pageQuery, pageQueryAll, StrictCursorParam } from '../pagination.ts';
import { IncludeParam, parseIncludes } from '../premium.ts';
import { nullable, withProblems } from '../schemas.ts';
import { type AnalyticsRouteOptions, compactEntities, notFound } from '../views/analytics.ts';
import { EpisodeReference, episodeReference, podcastSummary } from '../views/catalog.ts';
import {
  Clip,
  EpisodeEntity,
  EpisodeFields,
  Segment,
  Speaker,
  speakerViews,
  TranscriptLine,
  transcriptLineView,
} from '../views/episodes.ts';
import { iso } from '../windows.ts';

/**
 * Episodes: the episode feed, one episode with optional sections, and its transcript reads
 * (lines, mentions by entity, word timings).
 */

const EPISODE_INCLUDES = ['speakers', 'segments', 'clips', 'entities', 'ad_reads'] as const;
const EPISODE_PREMIUM = ['entities', 'ad_reads'] as const;

const AdRead = Type.Object({
  id: Type.String(),
  sponsor_name: Type.String(),
  company_id: nullable(Type.String()),
  read_type: Type.String(),
  is_network_promo: Type.Boolean(),
  segment_id: nullable(Type.String()),
  start_seconds: Type.Number(),
  end_seconds: Type.Number(),
  first_line: nullable(Type.Integer()),
  last_line: nullable(Type.Integer()),
});

const Episode = Type.Object({
  ...EpisodeFields,
  speakers: Type.Optional(Type.Array(Speaker, { description: 'include=speakers' })),
  segments: Type.Optional(Type.Array(Segment, { description: 'include=segments' })),
  clips: Type.Optional(Type.Array(Clip, { description: 'include=clips, best first' })),
  entities: Type.Optional(Type.Array(EpisodeEntity, { description: 'include=entities (premium)' })),
  ad_reads: Type.Optional(Type.Array(AdRead, { description: 'include=ad_reads (premium)' })),
});

const FeedQuery = Type.Object({
  podcast_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'podcast slug, ID or numeric directory ID' }),
  ),
  ...pageQuery(),
  cursor: StrictCursorParam,
});

const FeedResponse = Type.Object({
  data: Type.Array(Episode),
  has_more: Type.Boolean(),
  cursor: Type.String({
    description: 'always present: after has_more is false it is the resume position for newer episodes',
  }),
});

const TranscriptResponse = Type.Object({
  episode: EpisodeReference,
  language: Type.String(),
  lines: Type.Array(TranscriptLine),
  has_more: Type.Boolean({ description: 'false when `lines` holds the rest of the transcript' }),
  cursor: Type.Optional(Type.String()),
});

const MentionLine = Type.Object({
  number: Type.Integer(),
  speaker: Type.String(),
  role: nullable(Type.String()),
  start_seconds: Type.Number(),
  end_seconds: Type.Number(),
  text: Type.String(),
  in_ad: Type.Boolean(),
});

const TranscriptMentionsResponse = Type.Object({
  episode: EpisodeReference,
  entities: Type.Array(Type.Object({ ...EpisodeEntity.properties, lines: Type.Array(MentionLine) })),
  has_more: Type.Boolean(),
  cursor: Type.Optional(Type.String()),
});

const WordsResponse = Type.Object({
  episode: EpisodeReference,
  words: Type.Array(
    Type.Object({
      line_number: Type.Integer(),
      index: Type.Integer({ description: 'position of the word in its line, from 0' }),
      word: Type.String(),
      start_seconds: Type.Number(),
      end_seconds: Type.Number(),
      confidence: nullable(Type.Number()),
    }),
  ),
  has_more: Type.Boolean(),
  cursor: Type.Optional(Type.String()),
});

// The feed's first resume position is `{t: 0, id: ''}` (nothing read yet).
const FEED_POSITION = Type.Object({ t: Position.epochMs(), id: Position.id({ minLength: 0 }) });
const WORD_POSITION = Type.Object({ l: Position.uint32(), w: Position.uint32() });
const IdParams = Type.Object({ id: Type.String({ maxLength: 200, description: 'episode slug or ID' }) });

export const episodeRoutes: FastifyPluginAsyncTypebox<AnalyticsRouteOptions> = async (app, opts) => {
  const { catalog, dashboardUrl } = opts;
  const { episodes, mentions, ads } = opts.reads;

  async function resolveEpisode(ref: string): Promise<{ episode: EpisodeRow; podcast: PodcastRow }> {
    const episode = await catalog.episode(ref);
    const podcast = episode ? await catalog.podcast(episode.podcast_id) : undefined;
    if (!episode || !podcast) throw notFound('path.id', 'no episode has this slug or ID', ref);
    return { episode, podcast };
  }

  function episodeView(e: EpisodeRow | FeedEpisodeRow, p: PodcastRow): Static<typeof Episode> {
    const published = 'published_ms' in e ? e.published_ms : new Date(e.published_at).getTime();
    const people =
      typeof e.people === 'string' ? (JSON.parse(e.people) as { name: string; role: string }[]) : e.people;
    return {
      id: e.id,
      slug: e.slug,
      title: e.title,
      description: e.description,
      published_at: iso(published),
      duration_seconds: e.duration_seconds,
      audio_url: e.audio_url,
      image_url: e.image_url,
      language: e.language ?? p.language,
      podcast: podcastSummary(p),
      people,
    };
  }

  app.get(
    '/v1/podcasts/episodes',
    {
      schema: {
        tags: ['episodes'],
        summary: 'The episode feed: episodes in the order they became available',
        description:
          'Page with cursor until has_more is false; keep the last cursor and call again later to get only what arrived since. An unreadable cursor is a 422.',
        querystring: FeedQuery,
        response: withProblems({ 200: FeedResponse }),
      },
    },
    async (request) => {
      const q = request.query as Static<typeof FeedQuery>;
      const endpoint = 'episode-feed';
      const limit = q.limit ?? 25;
      const after = app.cursors.decode(endpoint, q.cursor, FEED_POSITION, true);
      let podcastId: string | undefined;
      if (q.podcast_id !== undefined) {
        const podcast = await catalog.podcast(q.podcast_id);
        if (!podcast)
          throw notFound('query.podcast_id', 'no podcast has this slug, ID or directory ID', q.podcast_id);
        podcastId = podcast.id;
      }
      const rows = await episodes.feed({ podcastId, after, limit: limit + 1 });
      const page = rows.slice(0, limit);
      const podcasts = await catalog.podcastsByIds(page.map((r) => r.podcast_id));
      const last = page.at(-1);
      return {
        data: page
          .filter((r) => podcasts.has(r.podcast_id))
          .map((r) => episodeView(r, podcasts.get(r.podcast_id)!)),
        has_more: rows.length > limit,
        cursor: app.cursors.encode(
          endpoint,
          last ? { t: last.available_ms, id: last.id } : (after ?? { t: 0, id: '' }),
        ),
      };
    },
  );

  app.get(
    '/v1/podcasts/episodes/:id',
    {
      schema: {
        tags: ['episodes'],
        summary: 'One episode, with optional sections',
        params: IdParams,
        querystring: Type.Object({
          include: IncludeParam(EPISODE_INCLUDES, EPISODE_PREMIUM),
        }),
        response: withProblems({ 200: Episode }),
      },
    },
    async (request) => {
      const include = parseIncludes(
        request,
        request.query.include,
        EPISODE_INCLUDES,
        EPISODE_PREMIUM,
        dashboardUrl,
      );
      const { episode, podcast } = await resolveEpisode(request.params.id);
      const out = episodeView(episode, podcast);
      if (include.has('speakers')) {
        const rows = await episodes.speakers([episode.id]);
        const people = await catalog.entitiesByIds(
          rows.map((r) => r.person_id).filter((id) => id.length > 0),
        );
        out.speakers = speakerViews(rows, people);
      }
      if (include.has('segments')) {
        out.segments = (await episodes.segments(episode.id)).map((s) => ({
          ...s,
          duration_seconds: Math.round((s.end_seconds - s.start_seconds) * 1000) / 1000,
        }));
      }
      if (include.has('clips')) {
        out.clips = (await episodes.clips(episode.id)).map((c) => ({
          ...c,
          duration_seconds: Math.round((c.end_seconds - c.start_seconds) * 1000) / 1000,
        }));
      }
      if (include.has('entities')) {
        const rows = await mentions.episodeEntities(episode.id);
        const entities = await catalog.entitiesByIds(rows.map((r) => r.entity_id));
        const known = rows.filter((r) => entities.has(r.entity_id));
        const compact = await compactEntities(
          catalog,
          known.map((r) => entities.get(r.entity_id)!),
        );
        out.entities = known.map((r, i) => ({
          entity: compact[i]!,
          relevance: r.relevance,
          mention_count: r.mention_count,
          line_count: r.lines,
          ad_line_count: r.ad_lines,
          variants: r.variants,
        }));
      }
      if (include.has('ad_reads')) {
        out.ad_reads = (await ads.episodeAdReads(episode.id)).map((a) => ({
          ...a,
          company_id: a.company_id || null,
          is_network_promo: Number(a.is_network_promo) === 1,
          first_line: a.first_line === null ? null : Number(a.first_line),
          last_line: a.last_line === null ? null : Number(a.last_line),
        }));
      }
      return out;
    },
  );

  app.get(
    '/v1/podcasts/episodes/:id/transcript',
    {
      schema: {
        tags: ['transcripts'],
        summary: 'The diarized, speaker-identified transcript of one episode',
        description:
          'Every line when `limit` is omitted; with `limit`, a page of lines in order and a cursor to the next.',
        params: IdParams,
        querystring: Type.Object(pageQueryAll(1000)),
        response: withProblems({ 200: TranscriptResponse }),
      },
    },
    async (request) => {
      const { episode, podcast } = await resolveEpisode(request.params.id);
      const [all, speakers] = await Promise.all([
        episodes.transcript(episode.id),
        episodes.speakers([episode.id]),
      ]);
      if (all.length === 0)
        throw notFound('path.id', 'this episode has no transcript yet', request.params.id);
      const endpoint = `transcript:${episode.id}`;
      const offset = app.cursors.decode(endpoint, request.query.cursor, Position.offset()) ?? 0;
      const end = request.query.limit === undefined ? all.length : offset + request.query.limit;
      const lines = all.slice(offset, end);
      const byLabel = new Map(speakers.map((s) => [s.label, s]));
      return {
        episode: episodeReference(episode, podcast),
        language: all[0]!.language,
        has_more: end < all.length,
        ...(end < all.length ? { cursor: app.cursors.encode(endpoint, end) } : {}),
        lines: lines.map((l) => transcriptLineView({ ...l, number: l.line_number }, byLabel)),
      };
    },
  );

  app.get(
    '/v1/podcasts/episodes/:id/transcript/mentions',
    {
      schema: {
        tags: ['transcripts'],
        summary: 'The entities one episode mentions, each with its lines (most mention lines first)',
        params: IdParams,
        querystring: Type.Object(pageQueryAll()),
        response: withProblems({ 200: TranscriptMentionsResponse }),
      },
    },
    async (request) => {
      const { episode, podcast } = await resolveEpisode(request.params.id);
      const endpoint = `transcript-mentions:${episode.id}`;
      const offset = app.cursors.decode(endpoint, request.query.cursor, Position.offset()) ?? 0;
      const all = await mentions.episodeEntities(episode.id);
      const limit = request.query.limit;
      const end = limit === undefined ? all.length : offset + limit;
      const page = all.slice(offset, end);
      const [entities, lineRows, speakers] = await Promise.all([
        catalog.entitiesByIds(page.map((r) => r.entity_id)),
        mentions.episodeMentionLines(
          episode.id,
          page.map((r) => r.entity_id),
        ),
        episodes.speakers([episode.id]),
      ]);
      const texts = await episodes.linesByNumber(
        [episode.id],
        lineRows.map((l) => Number(l.line_number)),
      );
      const roleOf = new Map(speakers.map((s) => [s.label, s.role]));
      const compact = await compactEntities(
        catalog,
        page.map((r) => entities.get(r.entity_id)).filter((e) => e !== undefined),
      );
      const compactById = new Map(compact.map((c) => [c.id, c]));
      const out: Static<typeof TranscriptMentionsResponse> = {
        episode: episodeReference(episode, podcast),
        entities: page
          .filter((r) => compactById.has(r.entity_id))
          .map((r) => ({
            entity: compactById.get(r.entity_id)!,
            relevance: r.relevance,
            mention_count: r.mention_count,
            line_count: r.lines,
            ad_line_count: r.ad_lines,
            variants: r.variants,
            lines: lineRows
              .filter((l) => l.entity_id === r.entity_id)
              .map((l) => ({
                number: Number(l.line_number),
                speaker: l.speaker,
                role: roleOf.get(l.speaker) ?? null,
                start_seconds: texts.get(`${episode.id}/${l.line_number}`)?.start_seconds ?? 0,
                end_seconds: texts.get(`${episode.id}/${l.line_number}`)?.end_seconds ?? 0,
                text: texts.get(`${episode.id}/${l.line_number}`)?.text ?? '',
                in_ad: Number(l.in_ad) === 1,
              })),
          })),
        has_more: end < all.length,
      };
      if (out.has_more) out.cursor = app.cursors.encode(endpoint, end);
      return out;
    },
  );

  const WordsQuery = Type.Object(pageQuery({ max: 5000, fallback: 1000 }));

  app.get(
    '/v1/podcasts/episodes/:id/transcript/words',
    {
      schema: {
        tags: ['transcripts'],
        summary: 'Word timings of one episode, in order (limit up to 5000)',
        params: IdParams,
        querystring: WordsQuery,
        response: withProblems({ 200: WordsResponse }),
      },
    },
    async (request) => {
      const { episode, podcast } = await resolveEpisode(request.params.id);
      const endpoint = `transcript-words:${episode.id}`;
      const limit = request.query.limit ?? 1000;
      const after = app.cursors.decode(endpoint, request.query.cursor, WORD_POSITION);
      const rows = await episodes.words(episode.id, after, limit + 1);
      const page = rows.slice(0, limit);
      const out: Static<typeof WordsResponse> = {
        episode: episodeReference(episode, podcast),
        words: page.map((w) => ({
          line_number: w.line_number,
          index: w.word_index,
          word: w.word,
          start_seconds: w.start_seconds,
          end_seconds: w.end_seconds,
          confidence: w.confidence,
        })),
        has_more: rows.length > limit,
      };
      if (out.has_more) {
        const last = page.at(-1)!;
        out.cursor = app.cursors.encode(endpoint, { l: last.line_number, w: last.word_index });
      }
      return out;
    },
  );
};
