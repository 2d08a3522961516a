import { type Static, Type } from '@sinclair/typebox';
import { NO_MATCH } from '../../projections/analytics/analytics-store.ts';
import { languageKey } from '../../projections/analytics/rows.ts';
import type { TopicCounts, TopicFilter } from '../../projections/analytics/topic-queries.ts';
import { ListEnvelope, offsetPage, pageQuery } from '../pagination.ts';
import { Timestamp } from '../schemas.ts';
import { compactEntities, MentionFilterQuery, notFound, WindowQuery } from '../views/analytics.ts';
import { EntityCompact, PodcastSummary, podcastSummary } from '../views/catalog.ts';
import { iso, resolveWindow } from '../windows.ts';
import type { ReadServices } from './advertising-reads.ts';
import { defineRead, type ReadOperation } from './read-operation.ts';

/**
 * Topics: `GET /v1/topics` and `GET /v1/topics/{id}`, from the topics of segments and the
 * categories of the entities mentioned inside them. Default window: the 30 days before until.
 */
const TOP = 10;

const FilterFields = {
  podcast_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'podcast slug, ID or numeric directory ID; one that resolves to nothing matches nothing',
    }),
  ),
  language: MentionFilterQuery.language,
  since: WindowQuery.since,
  until: WindowQuery.until,
};

const TOPIC_ID = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '^[a-z0-9][a-z0-9-]*$',
  description: 'topic slug (economics, technology, …) as listed',
});

const Counts = {
  episode_count: Type.Integer({ description: 'episodes in the window with a segment on the topic' }),
  podcast_count: Type.Integer(),
  segment_count: Type.Integer(),
  mention_count: Type.Integer({
    description: 'mention lines outside ad reads inside the topic’s segments (a line counts once per entity)',
  }),
};

const Topic = Type.Object({ id: Type.String(), slug: Type.String(), name: Type.String(), ...Counts });

const TopicDetail = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  start: Timestamp,
  end: Timestamp,
  ...Counts,
  categories: Type.Array(
    Type.Object({ slug: Type.String(), name: Type.String(), mention_count: Type.Integer() }),
    { description: 'categories of the entities mentioned in the topic’s segments, most mentions first' },
  ),
  top_entities: Type.Array(Type.Object({ entity: EntityCompact, mention_count: Type.Integer() }), {
    description: `the ${TOP} entities most mentioned in the topic’s segments`,
  }),
  top_podcasts: Type.Array(Type.Object({ podcast: PodcastSummary, episode_count: Type.Integer() }), {
    description: `the ${TOP} podcasts with most episodes on the topic`,
  }),
});

/** `economics` → `Economics`, `climate-policy` → `Climate policy`. */
const topicName = (slug: string) => {
  const words = slug.replace(/-/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

function topicView(c: TopicCounts): Static<typeof Topic> {
  return {
    id: c.topic,
    slug: c.topic,
    name: topicName(c.topic),
    episode_count: c.episode_count,
    podcast_count: c.podcast_count,
    segment_count: c.segment_count,
    mention_count: c.mention_count,
  };
}

export function topicReads(s: ReadServices): ReadOperation[] {
  const { catalog, cursors } = s;
  const { topics } = s.reads;

  async function filterOf(q: { podcast_id?: string; language?: string; since?: string; until?: string }) {
    const f: TopicFilter = { window: resolveWindow(q, { defaultDays: 30 }) };
    if (q.podcast_id !== undefined) f.podcastId = (await catalog.podcast(q.podcast_id))?.id ?? NO_MATCH;
    if (q.language !== undefined) f.lang = languageKey(q.language);
    return f;
  }

  return [
    defineRead({
      name: 'list_topics',
      path: '/v1/topics',
      pathParams: [],
      tags: ['catalog'],
      summary: 'Topics discussed in a window, with episode and mention counts',
      description:
        'Derived from the topics of segments: most episodes first. Default window: the 30 days before until.',
      input: Type.Object({ ...FilterFields, ...pageQuery() }),
      output: ListEnvelope(Topic),
      priceCents: 1,
      async run(q) {
        const f = await filterOf(q);
        const rows = (await topics.topics(f)).sort(
          (a, b) =>
            b.episode_count - a.episode_count ||
            b.mention_count - a.mention_count ||
            (a.topic < b.topic ? -1 : 1),
        );
        const endpoint = `topics:${q.podcast_id ?? ''}:${q.language ?? ''}:${f.window.start}:${f.window.end}`;
        return offsetPage(cursors, endpoint, rows.map(topicView), q.limit ?? 25, q.cursor);
      },
    }),
    defineRead({
      name: 'get_topic',
      path: '/v1/topics/:id',
      pathParams: ['id'],
      tags: ['catalog'],
      summary: 'One topic: counts, entity categories, top entities and podcasts over a window',
      input: Type.Object({ id: TOPIC_ID, ...FilterFields }),
      output: TopicDetail,
      priceCents: 1,
      async run(q) {
        const f = await filterOf(q);
        const [counts, breakdown] = await Promise.all([
          topics.topics(f, q.id),
          topics.breakdown(f, q.id, TOP),
        ]);
        // A topic with episodes in the window exists; only an empty answer needs the look-up
        // (which reads the topic's whole range of segments).
        if (counts.length === 0 && !(await topics.exists(q.id)))
          throw notFound('path.id', 'no segment discusses this topic', q.id);
        const [entityRows, podcasts] = await Promise.all([
          catalog.entitiesByIds(breakdown.entities.map((e) => e.entity_id)),
          catalog.podcastsByIds(breakdown.podcasts.map((p) => p.podcast_id)),
        ]);
        const compact = new Map(
          (await compactEntities(catalog, [...entityRows.values()])).map((c) => [c.id, c] as const),
        );
        const c = counts[0] ?? {
          topic: q.id,
          episode_count: 0,
          podcast_count: 0,
          segment_count: 0,
          mention_count: 0,
        };
        return {
          ...topicView(c),
          start: iso(f.window.start),
          end: iso(f.window.end),
          categories: breakdown.categories,
          top_entities: breakdown.entities.flatMap((e) => {
            const entity = compact.get(e.entity_id);
            return entity ? [{ entity, mention_count: e.mention_count }] : [];
          }),
          top_podcasts: breakdown.podcasts.flatMap((p) => {
            const podcast = podcasts.get(p.podcast_id);
            return podcast ? [{ podcast: podcastSummary(podcast), episode_count: p.episode_count }] : [];
          }),
        };
      },
    }),
  ];
}
