import {
  compareMatches,
  type MatchQuality,
  matchName,
  type NameField,
  type NameMatch,
  type NameVariant,
} from '../../projections/search/name-match.ts';
import { entityKey, type NameHit, type NameKind } from '../../projections/search/search-index.ts';
import { analyze } from '../../projections/search/text-analysis.ts';
import type { Entity, Podcast } from '../../schemas/generated/index.ts';
import { type Cursors, Position } from '../pagination.ts';
import { invalidParameter } from '../problem.ts';
import type { SearchServices } from './search-services.ts';

/** Candidates the engine is asked for; ranking and paging happen over these. */
const CANDIDATES = 200;
/** Candidates whose mention counts break ties between equally good matches. */
const COUNTED = 50;
const Offset = Position.offset(CANDIDATES);

export const ENTITY_SEARCH_TYPES = ['person', 'company', 'knowledge_graph_entity'] as const;
export type EntitySearchType = (typeof ENTITY_SEARCH_TYPES)[number];

function queryWords(q: string, location: string): string[] {
  const words = analyze(q);
  if (words.length === 0) throw invalidParameter(location, 'has no letters or digits to search for', q);
  return words;
}

export function entityVariants(e: Entity): NameVariant[] {
  const out: NameVariant[] = [{ field: 'name', value: e.name }];
  for (const a of e.aliases) out.push({ field: 'alias', value: a });
  for (const n of e.nicknames) out.push({ field: 'nickname', value: n });
  for (const h of e.handles) out.push({ field: 'handle', value: h });
  if (e.company?.ticker) out.push({ field: 'ticker', value: e.company.ticker });
  if (e.company?.domain) out.push({ field: 'domain', value: e.company.domain });
  return out;
}

interface Ranked<T> {
  hit: NameHit;
  record: T;
  match: NameMatch;
  order: number;
}

function rank<T>(hits: NameHit[], variants: (record: T) => NameVariant[], q: string): Ranked<T>[] {
  const out: Ranked<T>[] = [];
  hits.forEach((hit, order) => {
    const record = JSON.parse(hit.doc.record) as T;
    const match = matchName(q, variants(record));
    if (match) out.push({ hit, record, match, order });
  });
  return out;
}

const cmpStr = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Entity search: people, companies and knowledge-graph entities by name, partial name, nickname,
 * ticker, @handle or domain. Ranked by match quality (exact, prefix, partial, fuzzy), then by the
 * kind of name matched (own name, ticker, handle or domain before aliases and nicknames), then by
 * how many episodes mention the entity, then by BM25.
 */
export async function searchEntities(
  services: SearchServices,
  cursors: Cursors,
  p: { q: string; type?: EntitySearchType; limit?: number; cursor?: string },
) {
  const words = queryWords(p.q, 'query.q');
  const kinds: NameKind[] = p.type ? [p.type] : [...ENTITY_SEARCH_TYPES];
  const hits = await services.index.searchNames({ words, kinds }, CANDIDATES);
  const ranked = rank<Entity>(hits, entityVariants, p.q).sort(
    (a, b) => compareMatches(a.match, b.match) || a.order - b.order,
  );
  const counts = await services.index.countEpisodes(
    ranked.slice(0, COUNTED).map((r) => entityKey(r.record.id, 'mention')),
  );
  const mentions = (r: Ranked<Entity>) => counts.get(entityKey(r.record.id, 'mention')) ?? 0;
  ranked.sort(
    (a, b) =>
      compareMatches(a.match, b.match) ||
      mentions(b) - mentions(a) ||
      a.order - b.order ||
      cmpStr(a.record.id, b.record.id),
  );

  const endpoint = 'entity-search';
  const limit = p.limit ?? 25;
  const offset = cursors.decode(endpoint, p.cursor, Offset) ?? 0;
  const page = ranked.slice(offset, offset + limit);
  const missing = page.filter((r) => !counts.has(entityKey(r.record.id, 'mention')));
  if (missing.length > 0) {
    for (const [k, v] of await services.index.countEpisodes(
      missing.map((r) => entityKey(r.record.id, 'mention')),
    )) {
      counts.set(k, v);
    }
  }
  const employerIds = page.map((r) => r.record.person?.company_id).filter((id): id is string => !!id);
  const employers = await services.catalog.entitiesByIds(employerIds);

  const data = page.map((r) => {
    const e = r.record;
    const common = {
      id: e.id,
      name: e.name,
      slug: e.slug,
      description: e.description,
      image_url: e.image_url,
      wikipedia_url: e.wikipedia_url,
      type: { name: e.category.name, slug: e.category.slug },
    };
    const kind = r.hit.doc.kind as EntitySearchType;
    const item: Record<string, unknown> = {
      type: kind,
      match_quality: r.match.quality,
      matched: { field: r.match.field as Exclude<NameField, 'title'>, value: r.match.value },
      mentions: { podcast_episodes: mentions(r), news_articles: 0 },
    };
    if (kind === 'person') {
      const employer = e.person?.company_id ? employers.get(e.person.company_id) : undefined;
      item.person = {
        ...common,
        title: e.person?.title ?? null,
        company: employer
          ? {
              id: employer.id,
              name: employer.name,
              slug: employer.slug,
              domain: employer.company_domain,
              ticker: employer.company_ticker,
            }
          : null,
        nicknames: e.nicknames,
        handles: e.handles,
      };
    } else if (kind === 'company') {
      item.company = {
        ...common,
        domain: e.company?.domain ?? null,
        ticker: e.company?.ticker ?? null,
        aliases: e.aliases,
        handles: e.handles,
      };
    } else {
      item.knowledge_graph_entity = { ...common, aliases: e.aliases };
    }
    return item;
  });
  const hasMore = ranked.length > offset + limit;
  const out: { data: typeof data; has_more: boolean; cursor?: string } = { data, has_more: hasMore };
  if (hasMore) out.cursor = cursors.encode(endpoint, offset + limit);
  return out;
}

/**
 * Podcast search by name: ranked by match quality, then popularity, then BM25. The handler of
 * `GET /v1/podcasts/search`, and what `GET /v1/podcasts?q=` answers with.
 */
export async function searchPodcasts(
  services: SearchServices,
  cursors: Cursors,
  p: { q: string; limit?: number; cursor?: string },
) {
  const words = queryWords(p.q, 'query.q');
  const hits = await services.index.searchNames({ words, kinds: ['podcast'] }, CANDIDATES);
  const ranked = rank<Podcast>(hits, (pod) => [{ field: 'title', value: pod.title }], p.q).sort(
    (a, b) =>
      compareMatches(a.match, b.match) ||
      (b.record.popularity ?? -1) - (a.record.popularity ?? -1) ||
      a.order - b.order,
  );
  const endpoint = 'podcast-search';
  const limit = p.limit ?? 25;
  const offset = cursors.decode(endpoint, p.cursor, Offset) ?? 0;
  const page = ranked.slice(offset, offset + limit);
  const podcastIds = page.map((r) => r.record.id);
  const [publishers, hosts, episodes] = await Promise.all([
    services.catalog.publishersByIds(
      page.map((r) => r.record.publisher_id).filter((id): id is string => !!id),
    ),
    services.catalog.entitiesByIds(page.flatMap((r) => r.record.hosts)),
    services.state.query<{ podcast_id: string; n: number; latest: Date | null }>(
      `SELECT podcast_id, count(*)::int8 AS n, max(published_at) AS latest FROM catalog_episodes
       WHERE podcast_id = ANY($1::text[]) GROUP BY podcast_id`,
      [podcastIds],
    ),
  ]);
  const episodeStats = new Map(episodes.map((e) => [e.podcast_id, e]));
  const data = page.map((r) => {
    const pod = r.record;
    const publisher = pod.publisher_id ? publishers.get(pod.publisher_id) : undefined;
    return {
      id: pod.id,
      slug: pod.slug,
      title: pod.title,
      description: pod.description,
      directory_id: pod.directory_id === null ? null : Number(pod.directory_id),
      language: pod.language,
      image_url: pod.image_url,
      feed_url: pod.feed_url,
      website_url: pod.website_url,
      content_advisory_rating: pod.content_advisory_rating,
      categories: pod.categories,
      popularity: pod.popularity,
      publisher: publisher ? { id: publisher.id, name: publisher.name, slug: publisher.slug } : null,
      hosts: pod.hosts
        .map((id) => hosts.get(id))
        .filter((h) => h !== undefined)
        .map((h) => ({ id: h.id, name: h.name, slug: h.slug })),
      episode_count: Number(episodeStats.get(pod.id)?.n ?? 0),
      latest_episode_at: episodeStats.get(pod.id)?.latest
        ? new Date(episodeStats.get(pod.id)!.latest!).toISOString()
        : null,
      match_quality: r.match.quality as MatchQuality,
    };
  });
  const hasMore = ranked.length > offset + limit;
  const out: { data: typeof data; has_more: boolean; cursor?: string } = { data, has_more: hasMore };
  if (hasMore) out.cursor = cursors.encode(endpoint, offset + limit);
  return out;
}
