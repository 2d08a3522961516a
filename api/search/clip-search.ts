import type { ClipHit, ClipType, PassageHit, SearchFilter } from '../../projections/search/search-index.ts';
import { type Cursors, Position } from '../pagination.ts';
import { invalidParameter, ProblemError } from '../problem.ts';
import { MAX_DEPTH } from './dialogue-search.ts';
import {
  entityKeys,
  placeFilter,
  publishedRange,
  type QueryEmbedder,
  resolveEntity,
  resolveEpisodeId,
  resolvePodcastId,
  type SearchParams,
  type SearchServices,
} from './search-services.ts';
import { clipPersonIds, clipSearchItemView, clipView, episodeRef, loadCatalogContext } from './views.ts';

export interface ClipSearchParams extends SearchParams<ClipType> {
  q?: string;
}

const Offset = Position.offset(100_000);
/** Passages ranked for `q` whose clips are candidates beside the clips' own vectors. */
const PASSAGE_DEPTH = 100;

/**
 * Clip search: by meaning of `q` and/or by the entities featuring in the clip (its speaker, with
 * role, or mentioned within it). By meaning, a clip scores the better of its own vector (title,
 * description, lead-in and the first 256 tokens of its words) and the best passage spoken within
 * its span (passages.ts), so what is said late in a long clip counts as much as its title.
 */
export async function clipSearch(
  services: SearchServices,
  cursors: Cursors,
  embedder: QueryEmbedder,
  p: ClipSearchParams,
) {
  const q = p.q?.trim();
  if (!q && p.entity_id === undefined && p.company_id === undefined) {
    throw new ProblemError('validation_error', 'Give at least one of q, entity_id or company_id.', {
      errors: [
        {
          location: 'query.q',
          message: 'at least one of q, entity_id or company_id is required',
          value: p.q,
        },
      ],
    });
  }
  if (p.role !== undefined && p.entity_id === undefined && p.company_id === undefined) {
    throw invalidParameter('query.role', 'applies to entity_id or company_id; give one of them', p.role);
  }
  const limit = p.limit ?? 10;
  const sort = p.sort ?? (q ? 'relevance' : 'recency');
  const { catalog, index } = services;
  const filter: SearchFilter = { ...publishedRange(p.since, p.until) };
  const { keys } = await entityKeys(catalog, p);
  if (keys.length > 0) filter.clipKeys = keys;
  Object.assign(filter, await placeFilter(catalog, p));
  if (p.type !== undefined) filter.clipTypes = [p.type];

  const endpoint = 'clip-search';
  const offset = cursors.decode(endpoint, p.cursor, Offset) ?? 0;
  let hits: ClipHit[];
  let hasMore: boolean;
  let relevance: (h: ClipHit) => number;
  if (q) {
    const vector = await embedder.embed(q, 'query.q');
    const depth = sort === 'recency' ? MAX_DEPTH : Math.min(MAX_DEPTH, offset + limit + 1);
    const [own, passages] = await Promise.all([
      index.vectorClips(vector, filter, depth),
      index.vectorPassages(vector, passageFilter(filter), PASSAGE_DEPTH),
    ]);
    const ranked = bestOf(own, await clipsOfPassages(services, passages, filter));
    if (sort === 'recency') ranked.sort((a, b) => b.published_at - a.published_at || b.score - a.score);
    hits = ranked.slice(offset, offset + limit);
    hasMore = ranked.length > offset + limit;
    relevance = (h) => h.score;
  } else {
    const listed = await index.listClips(
      filter,
      sort === 'recency' ? 'recency' : 'engagement',
      limit + 1,
      offset,
    );
    hits = listed.slice(0, limit);
    hasMore = listed.length > limit;
    relevance = (h) => h.engagement_score / 100;
  }
  const clips = new Map((await index.getClips(hits.map((h) => h.id))).map((c) => [c.id, c]));
  const ctx = await loadCatalogContext(
    catalog,
    [...new Set([...clips.values()].map((c) => c.episode_id))],
    clipPersonIds([...clips.values()]),
  );
  const data = [];
  for (const h of hits) {
    const c = clips.get(h.id);
    const episode = c && episodeRef(ctx, c.episode_id);
    if (c && episode) data.push(clipSearchItemView(c, episode, ctx, relevance(h)));
  }
  const out: ReturnType<typeof page<(typeof data)[number]>> & {
    semantic_coverage?: { embedded: number; total: number };
  } = page(cursors, data, hasMore, endpoint, offset + limit);
  const coverage = q ? services.semanticCoverage?.() : undefined;
  if (coverage) out.semantic_coverage = coverage;
  return out;
}

/** The part of a clip filter that passages carry (where and when; not who or what kind of clip). */
function passageFilter(filter: SearchFilter): SearchFilter {
  const out: SearchFilter = {};
  for (const k of ['episodeIds', 'podcastIds', 'segmentIds', 'publishedFrom', 'publishedBefore'] as const) {
    if (filter[k] !== undefined) Object.assign(out, { [k]: filter[k] });
  }
  return out;
}

/**
 * The clips (within `filter`) whose time span overlaps a ranked passage's lines, each scored by the
 * best such passage.
 */
async function clipsOfPassages(
  services: SearchServices,
  passages: PassageHit[],
  filter: SearchFilter,
): Promise<ClipHit[]> {
  if (passages.length === 0) return [];
  const { index } = services;
  const episodeIds = [...new Set(passages.map((p) => p.episode_id))];
  const listed = await index.listClips({ ...filter, episodeIds }, 'engagement', MAX_DEPTH, 0);
  if (listed.length === 0) return [];
  const [clips, segments] = await Promise.all([
    index.getClips(listed.map((c) => c.id)),
    index.getSegments([...new Set(passages.map((p) => p.segment_id))]),
  ]);
  const times = new Map<string, { start: number; end: number }>();
  for (const s of segments)
    for (const l of s.lines)
      times.set(`${s.episode_id}:${l.number}`, { start: l.start_seconds, end: l.end_seconds });
  const byEpisode = new Map<string, typeof clips>();
  for (const c of clips) byEpisode.set(c.episode_id, [...(byEpisode.get(c.episode_id) ?? []), c]);
  const best = new Map<string, ClipHit>();
  for (const p of passages) {
    const first = times.get(`${p.episode_id}:${p.number}`);
    const last = times.get(`${p.episode_id}:${p.last_number}`);
    if (!first || !last) continue;
    for (const c of byEpisode.get(p.episode_id) ?? []) {
      if (c.start_seconds >= last.end || c.end_seconds <= first.start) continue;
      if ((best.get(c.id)?.score ?? -Infinity) >= p.score) continue;
      best.set(c.id, {
        id: c.id,
        published_at: c.published_at,
        engagement_score: c.engagement_score,
        score: p.score,
      });
    }
  }
  return [...best.values()];
}

/** Each clip once, with the better of its scores, best first. */
function bestOf(...lists: ClipHit[][]): ClipHit[] {
  const best = new Map<string, ClipHit>();
  for (const h of lists.flat()) if ((best.get(h.id)?.score ?? -Infinity) < h.score) best.set(h.id, h);
  return [...best.values()].sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
}

export interface ClipListParams {
  speaker?: string;
  podcast_id?: string;
  type?: ClipType;
  min_engagement?: number;
  limit?: number;
  cursor?: string;
}

/** The catalog-wide clip list, best (highest engagement) first. */
export async function listClips(services: SearchServices, cursors: Cursors, p: ClipListParams) {
  const { catalog } = services;
  const filter: SearchFilter = {};
  if (p.speaker !== undefined) {
    const person = await resolveEntity(catalog, p.speaker, 'query.speaker');
    if (person.kind !== 'PERSON') throw invalidParameter('query.speaker', 'is not a person', p.speaker);
    filter.speakerPersonIds = [person.id];
  }
  if (p.podcast_id !== undefined)
    filter.podcastIds = [await resolvePodcastId(catalog, p.podcast_id, 'query.podcast_id')];
  if (p.type !== undefined) filter.clipTypes = [p.type];
  if (p.min_engagement !== undefined) filter.minEngagement = p.min_engagement;
  return clipPage(services, cursors, 'clips', filter, p.limit ?? 25, p.cursor);
}

/** Clips of one episode, best first; every clip when `limit` is omitted. */
export async function episodeClips(
  services: SearchServices,
  cursors: Cursors,
  episodeRefOrId: string,
  p: { limit?: number; cursor?: string },
) {
  const episodeId = await resolveEpisodeId(services.catalog, episodeRefOrId, 'path.id');
  return clipPage(
    services,
    cursors,
    `episode-clips:${episodeId}`,
    { episodeIds: [episodeId] },
    p.limit ?? 1000,
    p.cursor,
  );
}

async function clipPage(
  services: SearchServices,
  cursors: Cursors,
  endpoint: string,
  filter: SearchFilter,
  limit: number,
  cursor?: string,
) {
  const offset = cursors.decode(endpoint, cursor, Offset) ?? 0;
  const listed = await services.index.listClips(filter, 'engagement', limit + 1, offset);
  const hits = listed.slice(0, limit);
  const clips = await services.index.getClips(hits.map((h) => h.id));
  const ctx = await loadCatalogContext(
    services.catalog,
    [...new Set(clips.map((c) => c.episode_id))],
    clipPersonIds(clips),
  );
  const data = [];
  for (const c of clips) {
    const episode = episodeRef(ctx, c.episode_id);
    if (episode) data.push(clipView(c, episode, ctx));
  }
  return page(cursors, data, listed.length > limit, endpoint, offset + limit);
}

function page<T>(cursors: Cursors, data: T[], hasMore: boolean, endpoint: string, next: number) {
  const out: { data: T[]; has_more: boolean; cursor?: string } = { data, has_more: hasMore };
  if (hasMore) out.cursor = cursors.encode(endpoint, next);
  return out;
}
