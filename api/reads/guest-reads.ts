import { createHash } from 'node:crypto';
import { type Static, Type } from '@sinclair/typebox';
import { NO_MATCH } from '../../projections/analytics/analytics-store.ts';
import type { EpisodeTimeseriesFilter, GuestFilter } from '../../projections/analytics/guest-queries.ts';
import type { GuestCriteria } from '../../projections/analytics/mention-scope.ts';
import { languageKey } from '../../projections/analytics/rows.ts';
import { ListEnvelope, Position, pageQuery } from '../pagination.ts';
import { DateParam, StringEnum, Timestamp } from '../schemas.ts';
import {
  compactEntities,
  episodeReferences,
  MentionFilterQuery,
  notFound,
  WindowQuery,
} from '../views/analytics.ts';
import { EntityCompact, EpisodeReference } from '../views/catalog.ts';
import { bucketsOf, iso, parseInstant, resolveWindow } from '../windows.ts';
import type { ReadServices } from './advertising-reads.ts';
import { defineRead, type ReadOperation } from './read-operation.ts';

/**
 * Guests (people identified as a speaker in any role but host) across the catalog and per
 * podcast, and the episode timeseries (episodes published per bucket).
 */
const SENIORITY_LEVEL = { professional: 1, senior: 2, distinguished: 3 } as const;

const GuestFilterFields = {
  guest_occupation: MentionFilterQuery.guest_occupation,
  guest_field: MentionFilterQuery.guest_field,
  guest_standing: MentionFilterQuery.guest_standing,
  guest_seniority: MentionFilterQuery.guest_seniority,
  guest_capacity: MentionFilterQuery.guest_capacity,
  guest_practicing: MentionFilterQuery.guest_practicing,
  guest_in_field: MentionFilterQuery.guest_in_field,
  since: DateParam('appearances in episodes published from here (included); default: all time'),
  until: DateParam(
    'appearances in episodes published before here (a bare date includes that day); default: all time',
  ),
  sort: Type.Optional(
    StringEnum(['appearances', 'recent'] as const, {
      default: 'appearances',
      description: '`appearances`: most episodes first; `recent`: latest appearance first',
    }),
  ),
  ...pageQuery(),
};

const GuestsInput = Type.Object({
  podcast_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'podcast slug, ID or numeric directory ID' }),
  ),
  publisher_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'publisher slug or ID: its podcasts' }),
  ),
  ...GuestFilterFields,
});

const PodcastGuestsInput = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200, description: 'podcast slug, ID or numeric directory ID' }),
  ...GuestFilterFields,
});

const Guest = Type.Object({
  person: EntityCompact,
  appearances: Type.Integer({ description: 'episodes the person speaks in (in a role other than host)' }),
  podcast_count: Type.Integer(),
  line_count: Type.Integer({ description: 'transcript lines the person speaks in those episodes' }),
  first_appearance_at: Timestamp,
  last_appearance_at: Timestamp,
  last_episode: EpisodeReference,
  roles: Type.Array(Type.String(), { description: 'speaker roles of the appearances: GUEST, PANELIST, …' }),
  capacities: Type.Array(Type.String(), {
    description: 'capacities the person spoke in (researcher, practitioner, …)',
  }),
  occupation: Type.Union([
    Type.Object({ code: Type.String(), system: Type.String(), slug: Type.String(), title: Type.String() }),
    Type.Null(),
  ]),
  field: Type.Union([
    Type.Object({ code: Type.String(), slug: Type.String(), title: Type.String() }),
    Type.Null(),
  ]),
  standing: Type.Union([Type.String(), Type.Null()]),
  seniority: Type.Union([Type.String(), Type.Null()]),
});

const TimeseriesInput = Type.Object({
  podcast_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'podcast slug, ID or numeric directory ID' }),
  ),
  publisher_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'publisher slug or ID: its podcasts' }),
  ),
  language: MentionFilterQuery.language,
  entity_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'entity slug or ID: only episodes mentioning it outside ad reads',
    }),
  ),
  ...WindowQuery,
  interval: Type.Optional(StringEnum(['day', 'week', 'month'] as const, { default: 'day' })),
});

const Counts = { episode_count: Type.Integer(), podcast_count: Type.Integer() };
const TimeseriesOutput = Type.Object({
  start: Timestamp,
  end: Timestamp,
  interval: Type.String(),
  totals: Type.Object(Counts),
  buckets: Type.Array(Type.Object({ start: Timestamp, end: Timestamp, ...Counts })),
});

type GuestInput = Static<typeof GuestsInput>;

function criteriaOf(q: GuestInput): GuestCriteria {
  const g: GuestCriteria = {};
  if (q.guest_occupation !== undefined) g.occupation = q.guest_occupation;
  if (q.guest_field !== undefined) g.field = q.guest_field;
  if (q.guest_standing !== undefined) g.standing = q.guest_standing;
  if (q.guest_seniority !== undefined) g.seniority = SENIORITY_LEVEL[q.guest_seniority];
  if (q.guest_capacity !== undefined) g.capacity = q.guest_capacity;
  if (q.guest_practicing !== undefined) g.practicing = q.guest_practicing;
  if (q.guest_in_field !== undefined) g.inField = q.guest_in_field;
  return g;
}

export function guestReads(s: ReadServices): ReadOperation[] {
  const { catalog, cursors } = s;
  const { guests } = s.reads;

  async function guestPage(endpointName: string, q: GuestInput, filter: GuestFilter) {
    const limit = q.limit ?? 25;
    const sort = q.sort ?? 'appearances';
    if (q.since !== undefined) filter.lo = parseInstant(q.since, 'query.since', false);
    if (q.until !== undefined) filter.hi = parseInstant(q.until, 'query.until', true);
    const guest = criteriaOf(q);
    if (Object.keys(guest).length > 0) filter.guest = guest;
    const { cursor: _c, limit: _l, ...filters } = q;
    const key = createHash('sha256')
      .update(JSON.stringify({ ...filters, sort }))
      .digest('base64url')
      .slice(0, 16);
    const endpoint = `${endpointName}:${key}`;
    const offset = cursors.decode(endpoint, q.cursor, Position.offset()) ?? 0;
    const rows = await guests.guests(filter, sort, { offset, limit: limit + 1 });
    const page = rows.slice(0, limit);
    const people = await catalog.entitiesByIds(page.map((r) => r.person_id));
    const compact = new Map(
      (await compactEntities(catalog, [...people.values()])).map((c) => [c.id, c] as const),
    );
    const refs = await episodeReferences(
      catalog,
      page.map((r) => r.last_episode_id),
      () => ({ podcast_id: '', published_ms: 0 }),
    );
    const data = page.map((r) => {
      const person = people.get(r.person_id);
      const facts = person?.person;
      return {
        person: compact.get(r.person_id) ?? {
          id: r.person_id,
          name: '',
          slug: '',
          description: null,
          wikipedia_url: null,
          type: { name: '', slug: '' },
          company: null,
          person: null,
        },
        appearances: r.appearances,
        podcast_count: r.podcast_count,
        line_count: r.line_count,
        first_appearance_at: iso(r.first_appearance_ms),
        last_appearance_at: iso(r.last_appearance_ms),
        last_episode: refs.get(r.last_episode_id)!,
        roles: r.roles,
        capacities: r.capacities,
        occupation: facts?.occupation
          ? {
              code: facts.occupation.code,
              system: facts.occupation.system,
              slug: facts.occupation.slug,
              title: facts.occupation.title,
            }
          : null,
        field: facts?.field ?? null,
        standing: facts?.standing ?? null,
        seniority: facts?.seniority ?? null,
      };
    });
    const out: { data: typeof data; has_more: boolean; cursor?: string } = {
      data,
      has_more: rows.length > limit,
    };
    if (out.has_more) out.cursor = cursors.encode(endpoint, offset + limit);
    return out;
  }

  return [
    defineRead({
      name: 'list_guests',
      path: '/v1/guests',
      pathParams: [],
      tags: ['catalog'],
      summary: 'People identified as non-host speakers, with appearances, occupations and capacities',
      description:
        'One row per person: the episodes they spoke in (any role but host), the latest, their occupation and the capacities they spoke in. The `guest_*` filters are those of the mention reads and narrow the appearances counted. References that resolve to nothing match nothing.',
      input: GuestsInput,
      output: ListEnvelope(Guest),
      priceCents: 1,
      async run(q) {
        const filter: GuestFilter = {};
        if (q.podcast_id !== undefined)
          filter.podcastId = (await catalog.podcast(q.podcast_id))?.id ?? NO_MATCH;
        if (q.publisher_id !== undefined)
          filter.publisherId = (await catalog.publisher(q.publisher_id))?.id ?? NO_MATCH;
        return guestPage('guests', q, filter);
      },
    }),
    defineRead({
      name: 'list_podcast_guests',
      path: '/v1/podcasts/:id/guests',
      pathParams: ['id'],
      tags: ['catalog'],
      summary: 'Guests of one podcast, with appearances, occupations and capacities',
      input: PodcastGuestsInput,
      output: ListEnvelope(Guest),
      priceCents: 1,
      async run(q) {
        const podcast = await catalog.podcast(q.id);
        if (!podcast) throw notFound('path.id', 'no podcast has this slug, ID or directory ID', q.id);
        const { id: _id, ...rest } = q;
        return guestPage(`podcast-guests:${podcast.id}`, rest, { podcastId: podcast.id });
      },
    }),
    defineRead({
      name: 'episode_timeseries',
      path: '/v1/podcasts/episodes/timeseries',
      pathParams: [],
      tags: ['episodes'],
      summary: 'Episodes published per day, week or month',
      description:
        'Default window: the 30 days before until; at most 1,000 buckets, all in one response. References that resolve to nothing yield zero-filled buckets.',
      input: TimeseriesInput,
      output: TimeseriesOutput,
      priceCents: 1,
      async run(q) {
        const window = resolveWindow(q, { defaultDays: 30 });
        const interval = q.interval ?? 'day';
        const buckets = bucketsOf(window, interval);
        const filter: EpisodeTimeseriesFilter = {};
        if (q.podcast_id !== undefined)
          filter.podcastId = (await catalog.podcast(q.podcast_id))?.id ?? NO_MATCH;
        if (q.publisher_id !== undefined)
          filter.publisherId = (await catalog.publisher(q.publisher_id))?.id ?? NO_MATCH;
        if (q.entity_id !== undefined) filter.entityId = (await catalog.entity(q.entity_id))?.id ?? NO_MATCH;
        if (q.language !== undefined) filter.lang = languageKey(q.language);
        const result = await guests.episodeTimeseries(filter, window, interval);
        return {
          start: iso(window.start),
          end: iso(window.end),
          interval,
          totals: { episode_count: result.episodes, podcast_count: result.podcasts },
          buckets: buckets.map((b) => {
            const c = result.buckets.get(b.key);
            return {
              start: iso(b.start),
              end: iso(b.end),
              episode_count: c?.episodes ?? 0,
              podcast_count: c?.podcasts ?? 0,
            };
          }),
        };
      },
    }),
  ];
}
