import { Type } from '@sinclair/typebox';
import type { EntityRow, EpisodeRow, PodcastRow } from '../../projections/catalog/catalog-reader.ts';
import { MATCH_QUALITIES } from '../../projections/search/name-match.ts';
import type { SegmentDoc, StoredClip } from '../../projections/search/search-index.ts';
import { CLIP_TYPES, SEGMENT_TYPES } from '../../schemas/event-enums.ts';
import { nullable as Nullable, StringEnum } from '../schemas.ts';
import { EntityCompact, EpisodeReference, entityCompact, episodeReference } from '../views/catalog.ts';

/** Response shapes of dialogue, clip, entity and podcast search (spec: Dialogue search result, Clip, …). */

export const SegmentTypeSchema = StringEnum(SEGMENT_TYPES);
export const ClipTypeSchema = StringEnum(CLIP_TYPES);
export const MatchQualitySchema = StringEnum(MATCH_QUALITIES, {
  description:
    'exact: the query is one of its names; prefix: a name starts with it; partial: every word is (the start of) a word of a name; fuzzy: within a typo or two',
});

export const SegmentSchema = Type.Object({
  id: Type.String(),
  number: Type.Integer(),
  title: Type.String(),
  type: SegmentTypeSchema,
  start_seconds: Type.Number(),
  end_seconds: Type.Number(),
  duration_seconds: Type.Number(),
  audio_url: Nullable(Type.String()),
  description: Nullable(Type.String()),
  summary: Nullable(Type.String()),
  read_type: Nullable(Type.String({ description: 'host_read or pre_recorded (ad segments)' })),
  episode: EpisodeReference,
});

export const WindowLineSchema = Type.Object({
  number: Type.Integer(),
  speaker: Type.String({ description: "the identified speaker's name, else the diarization label" }),
  role: Nullable(
    Type.String({ description: 'HOST, GUEST, PANELIST, CORRESPONDENT, AUDIENCE, SOUNDBITE_SPEAKER' }),
  ),
  start_seconds: Type.Number(),
  end_seconds: Type.Number(),
  text: Type.String(),
  is_match: Type.Boolean({ description: 'the line matched the query' }),
  is_mention: Type.Boolean({
    description: 'the line mentions the filtered entity (any detected entity when none is filtered)',
  }),
});

export const WindowSchema = Type.Object({
  start_seconds: Type.Number(),
  end_seconds: Type.Number(),
  is_preview: Type.Boolean({ description: "true for the window around the segment's best-matching line" }),
  lines: Type.Array(WindowLineSchema),
});

const PersonRef = Type.Object({
  id: Type.String(),
  name: Type.String(),
  image_url: Nullable(Type.String()),
  slug: Type.String(),
});

export const ClipSpeakerSchema = Type.Object({
  name: Type.String(),
  role: Nullable(Type.String()),
  entity: Nullable(EntityCompact),
  person: Nullable(PersonRef),
});

const ClipFields = {
  id: Type.String(),
  type: ClipTypeSchema,
  title: Type.String(),
  description: Nullable(Type.String()),
  intro_statement: Nullable(Type.String({ description: 'ready-made lead-in' })),
  engagement_score: Type.Number({ description: 'one scale across the catalog; above 70 is strong' }),
  start_seconds: Type.Number(),
  end_seconds: Type.Number(),
  duration_seconds: Type.Number(),
  audio_url: Nullable(Type.String({ description: 'direct audio file' })),
  episode: EpisodeReference,
  segment: Nullable(Type.Object({ id: Type.String(), title: Type.String(), type: SegmentTypeSchema })),
};

export const ClipSchema = Type.Object({ ...ClipFields, speaker: Nullable(ClipSpeakerSchema) });

export const ClipSearchItemSchema = Type.Object({
  ...ClipFields,
  relevance_score: Type.Number({
    description: 'cosine similarity to q; without q, the engagement score on a 0-1 scale',
  }),
  speaker: Nullable(
    Type.Object({
      name: Type.String(),
      company: Nullable(
        Type.Object({ id: Type.String(), domain: Nullable(Type.String()), ticker: Nullable(Type.String()) }),
      ),
      entity_id: Nullable(Type.String()),
      entity_slug: Nullable(Type.String()),
      person: Nullable(
        Type.Object({
          id: Type.String(),
          company: Nullable(Type.String()),
          image_url: Nullable(Type.String()),
          title: Nullable(Type.String()),
        }),
      ),
      role: Nullable(Type.String()),
    }),
  ),
});

export const DialogueResultSchema = Type.Object({
  episode: EpisodeReference,
  match: Type.Object({
    source: StringEnum(['keyword', 'semantic', 'hybrid', 'filter'] as const, {
      description:
        'keyword (BM25), semantic (meaning), hybrid (both, fused by reciprocal rank), filter (no text query)',
    }),
    relevance_score: Type.Number({ description: 'orders results within one query only' }),
  }),
  segment: SegmentSchema,
  windows: Type.Array(WindowSchema),
  clips: Type.Array(ClipSchema),
});

export const CompanyEnvelope = Type.Object({
  id: Type.String(),
  name: Type.String(),
  image_url: Nullable(Type.String()),
});

const CategorySchema = Type.Object({ name: Type.String(), slug: Type.String() });

/** What every entity record of a search result starts with. */
const EntityRecordFields = {
  id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  description: Nullable(Type.String()),
  image_url: Nullable(Type.String()),
  wikipedia_url: Nullable(Type.String()),
};

export const PersonRecord = Type.Object({
  ...EntityRecordFields,
  title: Nullable(Type.String()),
  company: Nullable(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      slug: Type.String(),
      domain: Nullable(Type.String()),
      ticker: Nullable(Type.String()),
    }),
  ),
  type: CategorySchema,
  nicknames: Type.Array(Type.String()),
  handles: Type.Array(Type.String()),
});

export const CompanyRecord = Type.Object({
  ...EntityRecordFields,
  domain: Nullable(Type.String()),
  ticker: Nullable(Type.String()),
  type: CategorySchema,
  aliases: Type.Array(Type.String()),
  handles: Type.Array(Type.String()),
});

export const KnowledgeGraphRecord = Type.Object({
  ...EntityRecordFields,
  type: CategorySchema,
  aliases: Type.Array(Type.String()),
});

export const EntitySearchItemSchema = Type.Object({
  type: StringEnum(['person', 'company', 'knowledge_graph_entity'] as const),
  person: Type.Optional(PersonRecord),
  company: Type.Optional(CompanyRecord),
  knowledge_graph_entity: Type.Optional(KnowledgeGraphRecord),
  match_quality: MatchQualitySchema,
  matched: Type.Object(
    {
      field: StringEnum(['name', 'alias', 'nickname', 'ticker', 'handle', 'domain'] as const),
      value: Type.String(),
    },
    { description: 'the name the query matched' },
  ),
  mentions: Type.Object({
    podcast_episodes: Type.Integer({ description: 'episodes mentioning the entity' }),
    news_articles: Type.Integer({
      description:
        'news articles mentioning the entity. Always 0 for now: this service reads no news source yet; the field is kept so that clients written against it keep working, and will count articles once a news source exists.',
    }),
  }),
});

export const PodcastObjectSchema = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  title: Type.String(),
  description: Nullable(Type.String()),
  directory_id: Nullable(Type.Integer({ description: 'numeric id in the public podcast directory' })),
  language: Type.String(),
  image_url: Nullable(Type.String()),
  feed_url: Nullable(Type.String()),
  website_url: Nullable(Type.String()),
  content_advisory_rating: Nullable(Type.String()),
  categories: Type.Array(
    Type.Object({ slug: Type.String(), name: Type.String(), parent_slug: Nullable(Type.String()) }),
  ),
  popularity: Nullable(
    Type.Number({ description: 'global popularity percentile 0-100; null when not charting' }),
  ),
  publisher: Nullable(Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String() })),
  hosts: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String() })),
  episode_count: Type.Integer(),
  latest_episode_at: Nullable(Type.String({ format: 'date-time' })),
});

export const PodcastSearchItemSchema = Type.Object({
  ...PodcastObjectSchema.properties,
  match_quality: MatchQualitySchema,
});

// --- builders ---------------------------------------------------------------------------------

export interface CatalogContext {
  episodes: Map<string, EpisodeRow>;
  podcasts: Map<string, PodcastRow>;
  entities: Map<string, EntityRow>;
}

export function episodeRef(ctx: CatalogContext, episodeId: string) {
  const e = ctx.episodes.get(episodeId);
  const p = e ? ctx.podcasts.get(e.podcast_id) : undefined;
  if (!e || !p) return undefined;
  return episodeReference(e, p);
}

const round = (n: number) => Math.round(n * 1000) / 1000;

export function segmentView(s: SegmentDoc, episode: ReturnType<typeof episodeReference>) {
  return {
    id: s.id,
    number: s.number,
    title: s.title,
    type: s.type,
    start_seconds: s.start_seconds,
    end_seconds: s.end_seconds,
    duration_seconds: round(s.end_seconds - s.start_seconds),
    audio_url: s.audio_url,
    description: s.description,
    summary: s.summary,
    read_type: s.read_type,
    episode,
  };
}

function employerOf(ctx: CatalogContext, person: EntityRow | undefined): EntityRow | undefined {
  const id = person?.person?.company_id;
  return id ? ctx.entities.get(id) : undefined;
}

export function clipView(c: StoredClip, episode: ReturnType<typeof episodeReference>, ctx: CatalogContext) {
  const person = c.speaker?.person_id ? ctx.entities.get(c.speaker.person_id) : undefined;
  return {
    id: c.id,
    type: c.type,
    title: c.title,
    description: c.description,
    intro_statement: c.intro_statement,
    engagement_score: c.engagement_score,
    start_seconds: c.start_seconds,
    end_seconds: c.end_seconds,
    duration_seconds: round(c.end_seconds - c.start_seconds),
    audio_url: c.audio_url,
    episode,
    segment: c.segment,
    speaker: c.speaker
      ? {
          name: person?.name ?? c.speaker.name,
          role: c.speaker.role,
          entity: person ? entityCompact(person, employerOf(ctx, person)) : null,
          person: person
            ? { id: person.id, name: person.name, image_url: person.image_url, slug: person.slug }
            : null,
        }
      : null,
  };
}

export function clipSearchItemView(
  c: StoredClip,
  episode: ReturnType<typeof episodeReference>,
  ctx: CatalogContext,
  relevance: number,
) {
  const base = clipView(c, episode, ctx);
  const person = c.speaker?.person_id ? ctx.entities.get(c.speaker.person_id) : undefined;
  const employer = employerOf(ctx, person);
  return {
    ...base,
    relevance_score: round(relevance),
    speaker: c.speaker
      ? {
          name: person?.name ?? c.speaker.name,
          company: employer
            ? { id: employer.id, domain: employer.company_domain, ticker: employer.company_ticker }
            : null,
          entity_id: person?.id ?? null,
          entity_slug: person?.slug ?? null,
          person: person
            ? {
                id: person.id,
                company: employer?.name ?? null,
                image_url: person.image_url,
                title: person.person?.title ?? null,
              }
            : null,
          role: c.speaker.role,
        }
      : null,
  };
}

/** Person ids a set of clips refers to, and their employers', for one bulk catalog read. */
export function clipPersonIds(clips: StoredClip[]): string[] {
  return [...new Set(clips.map((c) => c.speaker?.person_id).filter((id): id is string => !!id))];
}

/** Loads episodes, their podcasts, the people clips name and those people's employers. */
export async function loadCatalogContext(
  catalog: {
    episodesByIds(ids: string[]): Promise<Map<string, EpisodeRow>>;
    podcastsByIds(ids: string[]): Promise<Map<string, PodcastRow>>;
    entitiesByIds(ids: string[]): Promise<Map<string, EntityRow>>;
  },
  episodeIds: string[],
  personIds: string[],
): Promise<CatalogContext> {
  const [episodes, people] = await Promise.all([
    catalog.episodesByIds(episodeIds),
    catalog.entitiesByIds(personIds),
  ]);
  const employerIds = [...people.values()]
    .map((p) => p.person?.company_id)
    .filter((id): id is string => !!id && !people.has(id));
  const [podcasts, employers] = await Promise.all([
    catalog.podcastsByIds([...new Set([...episodes.values()].map((e) => e.podcast_id))]),
    catalog.entitiesByIds(employerIds),
  ]);
  return { episodes, podcasts, entities: new Map([...people, ...employers]) };
}
