import { createHash } from 'node:crypto';
import { type Static, Type } from '@sinclair/typebox';
import type { AnalyticsReads } from '../../projections/analytics/analytics-reads.ts';
import { NO_MATCH } from '../../projections/analytics/analytics-store.ts';
import type { PlacementFilter, SponsorDirectoryRow } from '../../projections/analytics/placement-queries.ts';
import type { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import { slug } from '../../schemas/text-folding.ts';
import { type Cursors, ListEnvelope, Position, pageQuery, StrictCursorParam } from '../pagination.ts';
import { DateParam, StringEnum, Timestamp } from '../schemas.ts';
import { episodeReferences, notFound } from '../views/analytics.ts';
import { EpisodeReference, PodcastSummary, podcastSummary } from '../views/catalog.ts';
import { SponsorSchema, sponsorCompany, sponsorId } from '../views/sponsors.ts';
import { iso, parseInstant } from '../windows.ts';
import { defineRead, type ReadOperation } from './read-operation.ts';

/**
 * Ad placements (individual ad reads) and the sponsor directory: `GET
 * /v1/podcasts/advertising/placements`, `GET /v1/sponsors`, `GET /v1/sponsors/{id}`. Premium,
 * like the other sponsor and ad reads.
 */
export interface ReadServices {
  reads: AnalyticsReads;
  catalog: CatalogReader;
  cursors: Cursors;
}

const ref = (description: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength: 200, description }));

const READ_TYPES = ['host_read', 'pre_recorded'] as const;

const PlacementsInput = Type.Object({
  company_id: ref('sponsor company: slug, domain or ID; one that resolves to nothing matches nothing'),
  podcast_id: ref('podcast slug, ID or numeric directory ID'),
  publisher_id: ref('publisher slug or ID: its podcasts'),
  read_type: Type.Optional(StringEnum(READ_TYPES)),
  since: DateParam(
    'ads of episodes published from here (included; a bare date from 00:00 UTC); default: all time',
  ),
  until: DateParam(
    'ads of episodes published before here (a bare date includes that day); default: all time',
  ),
  limit: pageQuery().limit,
  cursor: StrictCursorParam,
});

const Placement = Type.Object({
  id: Type.String(),
  sponsor: Type.Object({
    id: Type.String({ description: 'as in GET /v1/sponsors/{id}' }),
    name: Type.String(),
    company: Type.Union([
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        slug: Type.String(),
        domain: Type.Union([Type.String(), Type.Null()]),
      }),
      Type.Null(),
    ]),
  }),
  podcast: PodcastSummary,
  publisher_id: Type.Union([Type.String(), Type.Null()]),
  episode: EpisodeReference,
  segment_id: Type.Union([Type.String(), Type.Null()]),
  start_seconds: Type.Number(),
  end_seconds: Type.Number(),
  duration_seconds: Type.Number(),
  read_type: Type.String({ description: 'host_read or pre_recorded' }),
  is_network_promo: Type.Boolean({
    description: 'a network advertising its own shows; never counted as an ad elsewhere',
  }),
  published_at: Timestamp,
});

const PLACEMENT_POSITION = Type.Object({
  published_ms: Position.epochMs(),
  episode_id: Position.id(),
  id: Position.id(),
});

const SponsorsInput = Type.Object({
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'part of the sponsor’s name (case-insensitive)',
    }),
  ),
  sort: Type.Optional(
    StringEnum(['ad_count', 'reach'] as const, {
      default: 'ad_count',
      description: '`ad_count`: most ads first; `reach`: most podcasts first',
    }),
  ),
  since: DateParam('count ads from here (included; a bare date from 00:00 UTC); default: all time'),
  until: DateParam('count ads before here (a bare date includes that day); default: all time'),
  ...pageQuery(),
});

const SponsorDetail = Type.Object({
  ...SponsorSchema.properties,
  read_types: Type.Object({ host_read: Type.Integer(), pre_recorded: Type.Integer() }),
  podcasts: Type.Array(
    Type.Object({
      podcast: PodcastSummary,
      ad_count: Type.Integer(),
      episode_count: Type.Integer(),
      last_ad_at: Timestamp,
    }),
    { description: 'every podcast the sponsor advertised on, most ads first' },
  ),
});

const SPONSOR_HASH = /^sp_([0-9a-f]{12})$/;

/** The optional `[since, until)` of a read without a default window (absent bounds: all time). */
function openWindow(q: { since?: string; until?: string }): { lo?: number; hi?: number } {
  const out: { lo?: number; hi?: number } = {};
  if (q.since !== undefined) out.lo = parseInstant(q.since, 'query.since', false);
  if (q.until !== undefined) out.hi = parseInstant(q.until, 'query.until', true);
  return out;
}

/** A cursor belongs to its endpoint and its filters. */
function endpointKey(name: string, filters: Record<string, unknown>): string {
  return `${name}:${createHash('sha256').update(JSON.stringify(filters)).digest('base64url').slice(0, 16)}`;
}

export function advertisingReads(s: ReadServices): ReadOperation[] {
  const { catalog, cursors } = s;
  const { placements } = s.reads;

  async function scopeOf(q: { podcast_id?: string; publisher_id?: string; company_id?: string }) {
    const f: PlacementFilter = {};
    if (q.podcast_id !== undefined) f.podcastId = (await catalog.podcast(q.podcast_id))?.id ?? NO_MATCH;
    if (q.publisher_id !== undefined)
      f.publisherId = (await catalog.publisher(q.publisher_id))?.id ?? NO_MATCH;
    if (q.company_id !== undefined) f.companyId = (await catalog.company(q.company_id))?.id ?? NO_MATCH;
    return f;
  }

  async function sponsorViews(rows: SponsorDirectoryRow[]): Promise<Static<typeof SponsorSchema>[]> {
    const companies = await catalog.entitiesByIds(
      rows.map((r) => r.company_id).filter((id) => id.length > 0),
    );
    return rows.map((r) => {
      const company = r.company_id ? companies.get(r.company_id) : undefined;
      return {
        id: sponsorId(r.sponsor_key, r.company_id),
        name: company?.name ?? r.sponsor_name,
        ad_count: r.ad_count,
        episode_reach: r.episode_reach,
        podcast_reach: r.podcast_reach,
        first_seen_at: iso(r.first_seen_ms),
        last_seen_at: iso(r.last_seen_ms),
        company: company ? sponsorCompany(company) : null,
      };
    });
  }

  /** The sponsor key of a reference: `sp_…`, a company (slug, domain or ID), or a name-only sponsor's slug. */
  async function sponsorKeyOf(reference: string): Promise<string | undefined> {
    const hash = SPONSOR_HASH.exec(reference)?.[1];
    if (hash) return placements.sponsorKey({ hash });
    const company = await catalog.company(reference);
    if (company) return placements.sponsorKey({ companyId: company.id });
    const wanted = slug(reference);
    const named = (await placements.nameOnlySponsors())
      .filter((n) => slug(n.sponsor_name) === wanted)
      .sort((a, b) => a.sponsor_key.localeCompare(b.sponsor_key));
    return named[0]?.sponsor_key;
  }

  return [
    defineRead({
      name: 'list_ad_placements',
      path: '/v1/podcasts/advertising/placements',
      pathParams: [],
      tags: ['advertising'],
      summary: 'Individual ad reads: sponsor, podcast, episode, offsets, read type (premium)',
      description:
        'Newest first (episode publication time). Network promos are listed with `is_network_promo` true. References that resolve to nothing match nothing. An unreadable cursor is a 422 `validation_error`.',
      input: PlacementsInput,
      output: ListEnvelope(Placement),
      premium: true,
      priceCents: 5,
      async run(q) {
        const limit = q.limit ?? 25;
        const filter: PlacementFilter = { ...(await scopeOf(q)), ...openWindow(q) };
        if (q.read_type !== undefined) filter.readType = q.read_type;
        const { cursor: _c, limit: _l, ...filters } = q;
        const endpoint = endpointKey('ad-placements', filters);
        const after = cursors.decode(endpoint, q.cursor, PLACEMENT_POSITION, true);
        const rows = await placements.placements(filter, limit + 1, after);
        const refs = await episodeReferences(
          catalog,
          rows.map((r) => r.episode_id),
          (id) => {
            const r = rows.find((x) => x.episode_id === id)!;
            return { podcast_id: r.podcast_id, published_ms: r.published_ms };
          },
        );
        const [companies, podcasts] = await Promise.all([
          catalog.entitiesByIds(rows.map((r) => r.company_id).filter((id) => id.length > 0)),
          catalog.podcastsByIds(rows.map((r) => r.podcast_id)),
        ]);
        return cursors.page(
          endpoint,
          rows,
          limit,
          (r) => {
            const company = r.company_id ? companies.get(r.company_id) : undefined;
            const episode = refs.get(r.episode_id)!;
            return {
              id: r.id,
              sponsor: {
                id: sponsorId(r.sponsor_key, r.company_id),
                name: company?.name ?? r.sponsor_name,
                company: company
                  ? { id: company.id, name: company.name, slug: company.slug, domain: company.company_domain }
                  : null,
              },
              podcast: episode.podcast,
              publisher_id: podcasts.get(r.podcast_id)?.publisher_id ?? null,
              episode,
              segment_id: r.segment_id,
              start_seconds: r.start_seconds,
              end_seconds: r.end_seconds,
              duration_seconds: Math.max(0, r.end_seconds - r.start_seconds),
              read_type: r.read_type,
              is_network_promo: r.is_network_promo === 1,
              published_at: iso(r.published_ms),
            };
          },
          (r) => ({ published_ms: r.published_ms, episode_id: r.episode_id, id: r.id }),
        );
      },
    }),
    defineRead({
      name: 'list_sponsors',
      path: '/v1/sponsors',
      pathParams: [],
      tags: ['advertising'],
      summary: 'Sponsors, searchable by name, by ads or by reach (premium)',
      description:
        'Every advertiser with its ads, episode and podcast reach over the window (all time without since/until). Network promos are not ads.',
      input: SponsorsInput,
      output: ListEnvelope(SponsorSchema),
      premium: true,
      priceCents: 5,
      async run(q) {
        const limit = q.limit ?? 25;
        const sort = q.sort ?? 'ad_count';
        const w = openWindow(q);
        const { cursor: _c, limit: _l, ...filters } = q;
        const endpoint = endpointKey('sponsors', { ...filters, sort });
        const offset = cursors.decode(endpoint, q.cursor, Position.offset()) ?? 0;
        const rows = await placements.sponsors(
          { sort, ...w, ...(q.q !== undefined ? { q: q.q } : {}) },
          { offset, limit: limit + 1 },
        );
        const views = await sponsorViews(rows.slice(0, limit));
        const out: { data: typeof views; has_more: boolean; cursor?: string } = {
          data: views,
          has_more: rows.length > limit,
        };
        if (out.has_more) out.cursor = cursors.encode(endpoint, offset + limit);
        return out;
      },
    }),
    defineRead({
      name: 'get_sponsor',
      path: '/v1/sponsors/:id',
      pathParams: ['id'],
      tags: ['advertising'],
      summary: 'One sponsor: all-time figures, read types and the podcasts it advertised on (premium)',
      input: Type.Object({
        id: Type.String({
          minLength: 1,
          maxLength: 200,
          description:
            'sponsor ID as listed (`sp_…` or a company ID), a company slug or domain, or a name-only sponsor’s slug',
        }),
      }),
      output: SponsorDetail,
      premium: true,
      priceCents: 5,
      async run(q) {
        const key = await sponsorKeyOf(q.id);
        const found = key === undefined ? undefined : await placements.sponsor(key);
        if (!found) throw notFound('path.id', 'no sponsor has this ID or slug', q.id);
        const [view] = await sponsorViews([found.row]);
        const podcasts = await catalog.podcastsByIds(found.podcasts.map((p) => p.podcast_id));
        return {
          ...view!,
          read_types: found.readTypes,
          podcasts: found.podcasts.map((p) => {
            const row = podcasts.get(p.podcast_id);
            return {
              podcast: row ? podcastSummary(row) : { id: p.podcast_id, title: '', image_url: null, slug: '' },
              ad_count: p.ad_count,
              episode_count: p.episode_count,
              last_ad_at: iso(p.last_ad_ms),
            };
          }),
        };
      },
    }),
  ];
}
