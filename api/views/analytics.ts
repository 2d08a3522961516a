import { Type } from '@sinclair/typebox';
import type { AnalyticsReads } from '../../projections/analytics/analytics-reads.ts';
import { NO_MATCH } from '../../projections/analytics/analytics-store.ts';
import type { GuestCriteria, MentionRole, MentionScope } from '../../projections/analytics/mention-scope.ts';
import { languageKey } from '../../projections/analytics/rows.ts';
import type { CatalogLists } from '../../projections/catalog/catalog-lists.ts';
import type {
  CatalogReader,
  EntityRow,
  EpisodeRow,
  PodcastRow,
} from '../../projections/catalog/catalog-reader.ts';
import { invalidParameter, problem } from '../problem.ts';
import { DateParam, StringEnum, Timestamp } from '../schemas.ts';
import { EntityCompact, employersOf, entityCompact, episodeReference } from './catalog.ts';

/** What the analytics, catalog and transcript routes read from (built once, in api/app.ts). */
export interface AnalyticsRouteOptions {
  /** The analytics store's query services: mentions, episodes, charts, ads. */
  reads: AnalyticsReads;
  /** References resolved, rows by id. */
  catalog: CatalogReader;
  /** The catalog as pages. */
  lists: CatalogLists;
  dashboardUrl: string;
  /** Podcast search by name (api/search/name-search.ts): what `GET /v1/podcasts?q=` answers with. */
  searchPodcasts?: (p: { q: string; limit?: number; cursor?: string }) => Promise<unknown>;
}

export const ROLE_VALUES = ['guest', 'host', 'panelist', 'correspondent', 'mention'] as const;
export const STANDING_VALUES = ['established', 'self_described', 'unverified'] as const;
export const SENIORITY_VALUES = ['professional', 'senior', 'distinguished'] as const;
export const CAPACITY_VALUES = [
  'researcher',
  'licensed_professional',
  'practitioner',
  'executive_founder',
  'public_official',
  'journalist_analyst',
  'creator_entertainer',
  'athlete_coach',
  'clergy',
  'firsthand',
  'layperson',
] as const;

const ref = (description: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength: 200, description }));

/** `entity_id` / `company_id`: the subject of a mentions read (one of the two). */
export const SubjectQuery = {
  entity_id: ref('entity slug or ID; required when company_id is absent'),
  company_id: ref(
    'company slug, domain or ID (resolves to the company entity); required when entity_id is absent',
  ),
};

export const WindowQuery = {
  since: DateParam('start of the window, included (a bare date from 00:00 UTC); default 7 days before until'),
  until: DateParam(
    'end of the window: a bare date includes that whole UTC day, a date-time is excluded; default now',
  ),
};

/** Filters shared by the three mention reads (same filters, same counts). */
export const MentionFilterQuery = {
  ...SubjectQuery,
  podcast_id: ref('podcast slug, ID or numeric directory ID; one that resolves to nothing matches nothing'),
  publisher_id: ref(
    "publisher slug or ID: the publisher's podcasts; one that resolves to nothing matches nothing",
  ),
  role: Type.Optional(
    StringEnum(ROLE_VALUES, {
      description:
        'role of the speaker of the mentioning line; `mention` (any speaker) is the same as omitting it',
    }),
  ),
  include_ads: Type.Boolean({ default: false, description: 'count mentions inside ad reads too' }),
  language: Type.Optional(
    Type.String({
      maxLength: 35,
      pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$',
      description: 'ISO 639-1 code; matches the primary language subtag (`fr` covers `fr-FR`)',
    }),
  ),
  guest_occupation: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'code (ISCO-08 or SOC 2018), slug, title, group or everyday name of an occupation; a word that is no occupation filters by research field or capacity instead',
    }),
  ),
  guest_field: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'code, slug or title of a research field' }),
  ),
  guest_standing: Type.Optional(StringEnum(STANDING_VALUES)),
  guest_seniority: Type.Optional(StringEnum(SENIORITY_VALUES, { description: 'this level or above' })),
  guest_capacity: Type.Optional(StringEnum(CAPACITY_VALUES)),
  guest_practicing: Type.Optional(Type.Boolean({ description: 'the guest still works in guest_occupation' })),
  guest_in_field: Type.Optional(Type.Boolean({ description: 'the guest speaks within their field' })),
  ...WindowQuery,
};

export interface MentionFilterValues {
  entity_id?: string;
  company_id?: string;
  podcast_id?: string;
  publisher_id?: string;
  role?: (typeof ROLE_VALUES)[number];
  include_ads?: boolean;
  language?: string;
  guest_occupation?: string;
  guest_field?: string;
  guest_standing?: (typeof STANDING_VALUES)[number];
  guest_seniority?: (typeof SENIORITY_VALUES)[number];
  guest_capacity?: (typeof CAPACITY_VALUES)[number];
  guest_practicing?: boolean;
  guest_in_field?: boolean;
  since?: string;
  until?: string;
}

export const CountsSchema = Type.Object({
  mention_count: Type.Integer({ description: 'mention lines (a line naming the entity counts once)' }),
  episode_count: Type.Integer(),
  podcast_count: Type.Integer(),
});

export const BucketSchema = Type.Object({
  start: Timestamp,
  end: Timestamp,
  mention_count: Type.Integer(),
  episode_count: Type.Integer(),
  podcast_count: Type.Integer(),
});

/** The Entity compact fields, to extend with read-specific fields. */
export const EntityCompactFields = EntityCompact.properties;

/** The subject entity of a mentions read: exactly one of entity_id, company_id. */
export async function resolveSubject(catalog: CatalogReader, q: { entity_id?: string; company_id?: string }) {
  if (q.entity_id !== undefined && q.company_id !== undefined) {
    throw invalidParameter('query.company_id', 'pass either entity_id or company_id, not both', q.company_id);
  }
  if (q.entity_id !== undefined) {
    const entity = await catalog.entity(q.entity_id);
    if (!entity) throw notFound('query.entity_id', 'no entity has this slug or ID', q.entity_id);
    return entity;
  }
  if (q.company_id !== undefined) {
    const company = await catalog.company(q.company_id);
    if (!company) throw notFound('query.company_id', 'no company has this slug, domain or ID', q.company_id);
    return company;
  }
  throw invalidParameter('query.entity_id', 'entity_id or company_id is required');
}

export function notFound(location: string, message: string, value: unknown) {
  return problem('not_found', `${location}: ${message}`, { errors: [{ location, message, value }] });
}

const ROLE_MAP: Record<string, MentionRole | undefined> = {
  guest: 'GUEST',
  host: 'HOST',
  panelist: 'PANELIST',
  correspondent: 'CORRESPONDENT',
  mention: undefined,
};
const SENIORITY_LEVEL = { professional: 1, senior: 2, distinguished: 3 } as const;

/** The scope of a mentions read; references that resolve to nothing match nothing. */
export async function resolveScope(
  catalog: CatalogReader,
  entity: EntityRow,
  q: MentionFilterValues,
): Promise<MentionScope> {
  const guest: GuestCriteria = {};
  if (q.guest_occupation !== undefined) guest.occupation = q.guest_occupation;
  if (q.guest_field !== undefined) guest.field = q.guest_field;
  if (q.guest_standing !== undefined) guest.standing = q.guest_standing;
  if (q.guest_seniority !== undefined) guest.seniority = SENIORITY_LEVEL[q.guest_seniority];
  if (q.guest_capacity !== undefined) guest.capacity = q.guest_capacity;
  if (q.guest_practicing !== undefined) guest.practicing = q.guest_practicing;
  if (q.guest_in_field !== undefined) guest.inField = q.guest_in_field;
  const scope: MentionScope = { entityId: entity.id, includeAds: q.include_ads ?? false };
  if (q.podcast_id !== undefined) scope.podcastId = (await catalog.podcast(q.podcast_id))?.id ?? NO_MATCH;
  if (q.publisher_id !== undefined)
    scope.publisherId = (await catalog.publisher(q.publisher_id))?.id ?? NO_MATCH;
  const role = q.role ? ROLE_MAP[q.role] : undefined;
  if (role) scope.role = role;
  if (q.language !== undefined) scope.lang = languageKey(q.language);
  if (Object.keys(guest).length > 0) scope.guest = guest;
  return scope;
}

/** Entity compact views, with each person's employer looked up. */
export async function compactEntities(catalog: CatalogReader, rows: EntityRow[]) {
  const employers = await employersOf(catalog, rows);
  return rows.map((r) =>
    entityCompact(r, r.person?.company_id ? employers.get(r.person.company_id) : undefined),
  );
}

/** Episode references for episode ids; an episode missing from the catalog gets a bare reference. */
export async function episodeReferences(
  catalog: CatalogReader,
  episodeIds: string[],
  fallback: (id: string) => { podcast_id: string; published_ms: number },
) {
  const episodes = await catalog.episodesByIds(episodeIds);
  const podcasts = await catalog.podcastsByIds([...episodes.values()].map((e) => e.podcast_id));
  const out = new Map<string, ReturnType<typeof episodeReference>>();
  for (const id of new Set(episodeIds)) {
    const e = episodes.get(id);
    const p = e ? podcasts.get(e.podcast_id) : undefined;
    if (e && p) out.set(id, episodeReference(e, p));
    else {
      const f = fallback(id);
      out.set(id, {
        id,
        title: e?.title ?? '',
        slug: e?.slug ?? '',
        published_at: new Date(f.published_ms).toISOString(),
        podcast: {
          id: f.podcast_id,
          title: p?.title ?? '',
          image_url: p?.image_url ?? null,
          slug: p?.slug ?? '',
        },
      });
    }
  }
  return out;
}

export type { EntityRow, EpisodeRow, PodcastRow };
