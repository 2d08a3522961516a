import type { CatalogReader, EntityRow } from '../../projections/catalog/catalog-reader.ts';
import type { EmbeddingsPort } from '../../projections/embeddings/embeddings-port.ts';
import {
  entityKey,
  type FilterRole,
  type SearchFilter,
  type SearchIndex,
} from '../../projections/search/search-index.ts';
import type { Queryable } from '../../projections/state/state-store.ts';
import { invalidParameter, problem } from '../problem.ts';
import { parseInstant } from '../windows.ts';

/** What the search endpoints read from. */
export interface SearchServices {
  index: SearchIndex;
  catalog: CatalogReader;
  /** The catalog tables, for the few reads CatalogReader has no method for. */
  state: Queryable;
  /** The query-side embeddings port; undefined while no model is available. */
  embeddings(): EmbeddingsPort | undefined;
  /** Why semantic search is unavailable (no model, or its vectors still catching up), when it is. */
  semanticUnavailableReason(): string | undefined;
  /**
   * How much of the index has vectors while some of it has none (`embedded` of `total` passages and
   * clips); undefined when all of it has (or this process does not count). Semantic and hybrid
   * answers carry it as `semantic_coverage`.
   */
  semanticCoverage?(): { embedded: number; total: number } | undefined;
  /** Query vectors kept for repeated queries (default 2000; 0 embeds every query). */
  queryCacheSize?: number;
}

const QUERY_CACHE = 2000;

/** Embeds query strings, keeping recent ones (the same query is often asked page after page). */
export class QueryEmbedder {
  private readonly cache = new Map<string, Float32Array>();

  constructor(private readonly services: SearchServices) {}

  async embed(text: string, location: string): Promise<Float32Array> {
    const port = this.services.embeddings();
    const unavailable = this.services.semanticUnavailableReason();
    if (!port || unavailable) {
      const reason = unavailable ?? 'no embeddings model is available';
      throw problem('semantic_search_unavailable', `Semantic search is unavailable: ${reason}.`, {
        errors: [{ location, message: 'needs semantic search, which is unavailable', value: text }],
        resolve: {
          message:
            'Search with keyword_search meanwhile; semantic search answers once the model is loaded and the indexed lines are embedded (GET /readyz: info.search).',
          action: 'use_keyword_search',
        },
        headers: { 'retry-after': '60' },
      });
    }
    const key = text.trim();
    const capacity = this.services.queryCacheSize ?? QUERY_CACHE;
    const hit = this.cache.get(key);
    if (hit) {
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const [vector] = await port.embed([key]);
    if (capacity > 0) {
      this.cache.set(key, vector!);
      if (this.cache.size > capacity) this.cache.delete(this.cache.keys().next().value!);
    }
    return vector!;
  }
}

/** Resolves an entity reference (slug or id) or answers 404 naming the parameter. */
export async function resolveEntity(
  catalog: CatalogReader,
  ref: string,
  location: string,
): Promise<EntityRow> {
  const row = await catalog.entity(ref);
  if (!row) throw notFound(location, 'no entity has this slug or ID', ref);
  return row;
}

export async function resolveCompany(
  catalog: CatalogReader,
  ref: string,
  location: string,
): Promise<EntityRow> {
  const row = await catalog.company(ref);
  if (!row) throw notFound(location, 'no company has this slug, domain or ID', ref);
  return row;
}

export async function resolvePodcastId(
  catalog: CatalogReader,
  ref: string,
  location: string,
): Promise<string> {
  const row = await catalog.podcast(ref);
  if (!row) throw notFound(location, 'no podcast has this slug, ID or directory ID', ref);
  return row.id;
}

export async function resolveEpisodeId(
  catalog: CatalogReader,
  ref: string,
  location: string,
): Promise<string> {
  const row = await catalog.episode(ref);
  if (!row) throw notFound(location, 'no episode has this slug or ID', ref);
  return row.id;
}

/** The parameters dialogue and clip search share; `type` is a segment type or a clip type. */
export interface SearchParams<Type extends string> {
  entity_id?: string;
  company_id?: string;
  episode_id?: string;
  podcast_id?: string;
  type?: Type;
  role?: FilterRole;
  since?: string;
  until?: string;
  sort?: 'relevance' | 'recency';
  limit?: number;
  cursor?: string;
}

/**
 * The entity and company a search names (`entity_id`, `company_id`), each as the index key of its
 * mentions, or of its speaking in `role` when a role is given.
 */
export async function entityKeys(
  catalog: CatalogReader,
  p: { entity_id?: string; company_id?: string; role?: string },
): Promise<{ keys: string[][]; entity?: EntityRow; company?: EntityRow }> {
  const out: { keys: string[][]; entity?: EntityRow; company?: EntityRow } = { keys: [] };
  if (p.entity_id !== undefined) {
    out.entity = await resolveEntity(catalog, p.entity_id, 'query.entity_id');
    out.keys.push([entityKey(out.entity.id, p.role)]);
  }
  if (p.company_id !== undefined) {
    out.company = await resolveCompany(catalog, p.company_id, 'query.company_id');
    out.keys.push([entityKey(out.company.id, p.role)]);
  }
  return out;
}

/** The episode and podcast a search is narrowed to (`episode_id`, `podcast_id`). */
export async function placeFilter(
  catalog: CatalogReader,
  p: { episode_id?: string; podcast_id?: string },
): Promise<Pick<SearchFilter, 'episodeIds' | 'podcastIds'>> {
  const out: Pick<SearchFilter, 'episodeIds' | 'podcastIds'> = {};
  if (p.episode_id !== undefined)
    out.episodeIds = [await resolveEpisodeId(catalog, p.episode_id, 'query.episode_id')];
  if (p.podcast_id !== undefined)
    out.podcastIds = [await resolvePodcastId(catalog, p.podcast_id, 'query.podcast_id')];
  return out;
}

function notFound(location: string, message: string, value: string) {
  return problem('not_found', `${location}: ${message} (${value}).`, {
    errors: [{ location, message, value }],
  });
}

/**
 * `since` / `until` of the search endpoints: `since` is included (a bare date from 00:00 UTC);
 * `until` is excluded, and a bare date includes that whole UTC day — as on the mentions reads.
 */
export function publishedRange(
  since: string | undefined,
  until: string | undefined,
): { publishedFrom?: number; publishedBefore?: number } {
  const out: { publishedFrom?: number; publishedBefore?: number } = {};
  if (since !== undefined) out.publishedFrom = parseInstant(since, 'query.since', false);
  if (until !== undefined) out.publishedBefore = parseInstant(until, 'query.until', true);
  if (
    out.publishedFrom !== undefined &&
    out.publishedBefore !== undefined &&
    out.publishedFrom >= out.publishedBefore
  ) {
    throw invalidParameter('query.since', 'must be before until', since);
  }
  return out;
}
