import { modelScripts } from '../../projections/embeddings/local-models.ts';
import { reciprocalRankFusion } from '../../projections/search/rrf.ts';
import type {
  KeywordQuery,
  LineHit,
  PassageHit,
  SearchFilter,
  SegmentDoc,
  SegmentLine,
  SegmentType,
} from '../../projections/search/search-index.ts';
import { isEmptyKeywordQuery, parseKeywordQuery } from '../../projections/search/text-analysis.ts';
import { feedbackQuery, PRF_DOCS, PRF_POOL } from '../../projections/search/vectors.ts';
import { type Cursors, Position } from '../pagination.ts';
import { invalidParameter, ProblemError } from '../problem.ts';
import { entityCompact } from '../views/catalog.ts';
import { fuseHybrid, modelReadsQuery, type RankedLine } from './hybrid-fusion.ts';
import {
  entityKeys,
  placeFilter,
  publishedRange,
  type QueryEmbedder,
  type SearchParams,
  type SearchServices,
} from './search-services.ts';
import { clipPersonIds, clipView, episodeRef, loadCatalogContext, segmentView } from './views.ts';

export interface DialogueSearchParams extends SearchParams<SegmentType> {
  semantic_search?: string;
  keyword_search?: string;
  entity_type?: string;
}

const ENDPOINT = 'dialogue-search';
/** Lines each ranked list contributes at most; results go this deep. */
export const MAX_DEPTH = 1000;
/** Lines of context on each side of a matching line. */
const CONTEXT_LINES = 2;
const MAX_WINDOWS = 5;
const PREVIEW_LINES = 5;

interface SegmentGroup {
  segmentId: string;
  episodeId: string;
  publishedAt: number;
  score: number;
  rank: number;
  /** Matching line number → its score in the fused (or single) list. */
  lines: Map<number, number>;
}

/**
 * Dialogue search: ranks transcript lines by BM25 (`keyword_search`), by meaning
 * (`semantic_search`) or both fused by reciprocal rank (hybrid), within the filters, then
 * groups the lines into their segments; each result is one segment with windows of lines around
 * its matches.
 */
export async function dialogueSearch(
  services: SearchServices,
  cursors: Cursors,
  embedder: QueryEmbedder,
  p: DialogueSearchParams,
) {
  const limit = p.limit ?? 25;
  const sort = p.sort ?? 'relevance';

  if (p.entity_type !== undefined && p.role !== undefined) {
    throw new ProblemError('validation_error', 'query.entity_type cannot be combined with query.role.', {
      errors: [
        { location: 'query.entity_type', message: 'cannot be combined with role', value: p.entity_type },
        { location: 'query.role', message: 'cannot be combined with entity_type', value: p.role },
      ],
    });
  }
  if (p.role !== undefined && p.entity_id === undefined && p.company_id === undefined) {
    throw invalidParameter('query.role', 'applies to entity_id or company_id; give one of them', p.role);
  }
  const keyword = p.keyword_search !== undefined ? parseKeywordQuery(p.keyword_search) : undefined;
  if (keyword && isEmptyKeywordQuery(keyword)) {
    throw invalidParameter('query.keyword_search', 'has no words to search for', p.keyword_search);
  }
  const semanticText = p.semantic_search?.trim();
  if (p.semantic_search !== undefined && !semanticText) {
    throw invalidParameter('query.semantic_search', 'is empty', p.semantic_search);
  }

  // References, then the filter.
  const { catalog, index } = services;
  const filter: SearchFilter = { ...publishedRange(p.since, p.until) };
  const { keys, entity, company } = await entityKeys(catalog, p);
  if (p.entity_type !== undefined && !entity) {
    const ids = await entityIdsOfType(services, p.entity_type);
    keys.push(ids);
  }
  if (keys.length > 0) filter.keys = keys;
  Object.assign(filter, await placeFilter(catalog, p));
  if (p.type !== undefined) filter.segmentTypes = [p.type];
  const focus = entity ?? company;

  const vector = semanticText ? await embedder.embed(semanticText, 'query.semantic_search') : undefined;
  const offset = cursors.decode(ENDPOINT, p.cursor, Position.offset(MAX_DEPTH)) ?? 0;

  let source: 'keyword' | 'semantic' | 'hybrid' | 'filter';
  let page: SegmentGroup[];
  let hasMore: boolean;
  if (!keyword && !vector) {
    source = 'filter';
    const segFilter: SearchFilter = { ...filter };
    // Without a text query, an entity filter means segments where the entity is mentioned or speaks.
    if (segFilter.keys) {
      segFilter.segmentKeys = segFilter.keys;
      delete segFilter.keys;
    }
    const hits = await index.filterSegments(segFilter, limit + 1, offset);
    hasMore = hits.length > limit;
    page = hits.slice(0, limit).map((h, i) => ({
      segmentId: h.id,
      episodeId: h.episode_id,
      publishedAt: h.published_at,
      score: 1,
      rank: offset + i,
      lines: new Map(),
    }));
  } else {
    const depth =
      sort === 'recency' ? MAX_DEPTH : Math.min(MAX_DEPTH, Math.max(200, (offset + limit + 1) * 8));
    const lines = await rankLines(services, { keyword, vector, filter, depth });
    source = lines.source;
    const ranked = lines.ranked;
    const groups = groupBySegment(ranked);
    if (sort === 'recency') groups.sort((a, b) => b.publishedAt - a.publishedAt || a.rank - b.rank);
    page = groups.slice(offset, offset + limit);
    hasMore = groups.length > offset + limit;
  }

  const segments = new Map((await index.getSegments(page.map((g) => g.segmentId))).map((s) => [s.id, s]));
  const clips = [...segments.values()].flatMap((s) => s.clips);
  const ctx = await loadCatalogContext(
    catalog,
    [...new Set(page.map((g) => g.episodeId))],
    clipPersonIds(clips),
  );

  const data = [];
  for (const g of page) {
    const seg = segments.get(g.segmentId);
    const episode = seg && episodeRef(ctx, seg.episode_id);
    if (!seg || !episode) continue; // indexed before the catalog caught up; skipped rather than half-shown
    const hits = source === 'filter' && focus ? focusLines(seg, focus.id) : g.lines;
    data.push({
      episode,
      match: { source, relevance_score: Math.round(g.score * 1e6) / 1e6 },
      segment: segmentView(seg, episode),
      windows: windowsOf(seg, hits, focus?.id),
      clips: seg.clips.map((c) => clipView(c, episode, ctx)),
    });
  }

  const out: {
    data: typeof data;
    has_more: boolean;
    cursor?: string;
    company?: { id: string; name: string; image_url: string | null };
    entity?: ReturnType<typeof entityCompact>;
    semantic_coverage?: { embedded: number; total: number };
  } = { data, has_more: hasMore };
  if (hasMore) out.cursor = cursors.encode(ENDPOINT, offset + limit);
  const coverage = vector ? services.semanticCoverage?.() : undefined;
  if (coverage) out.semantic_coverage = coverage;
  if (company) out.company = { id: company.id, name: company.name, image_url: company.image_url };
  if (focus) {
    const employerId = focus.person?.company_id;
    const employer = employerId ? (await catalog.entitiesByIds([employerId])).get(employerId) : undefined;
    out.entity = entityCompact(focus, employer);
  }
  return out;
}

/**
 * The line ranking dialogue search groups into segments: BM25 lines, the lines of vector-ranked
 * passages, or both fused (hybrid: fuseHybrid, hybrid-fusion.ts — reciprocal rank, a keyword line
 * weighed by its coverage of the query and only when the two searches meet on semantic search's
 * first page, lines holding every quoted phrase first). Exported for the relevance evaluations,
 * which score it line by line.
 */
export async function rankLines(
  services: SearchServices,
  q: { keyword?: KeywordQuery; vector?: Float32Array; filter: SearchFilter; depth: number },
): Promise<{ source: 'keyword' | 'semantic' | 'hybrid'; ranked: { hit: LineHit; score: number }[] }> {
  const [kw, sem] = await Promise.all([
    q.keyword
      ? services.index.keywordLines(q.keyword, q.filter, q.depth, { withTerms: q.vector !== undefined })
      : Promise.resolve(undefined),
    q.vector ? semanticPassages(services, q.vector, q.filter, q.depth) : Promise.resolve(undefined),
  ]);
  const keywordLines = kw?.map((h, i): RankedLine => ({ ...h, rank: i + 1 }));
  const semanticLines = sem && passageLines(repeatsLast(sem));
  if (keywordLines && semanticLines) {
    const port = services.embeddings();
    const semanticReadsQuery = modelReadsQuery(port && modelScripts(port.model), q.keyword!);
    return {
      source: 'hybrid',
      ranked: fuseHybrid(q.keyword!, keywordLines, semanticLines, { semanticReadsQuery }),
    };
  }
  return {
    source: keywordLines ? 'keyword' : 'semantic',
    ranked: (keywordLines ?? semanticLines ?? []).map((hit) => ({ hit, score: hit.score })),
  };
}

/**
 * The lines of ranked passages, each once. Two rankings of the same hits are fused by reciprocal
 * rank: the lines in context (passage order: a passage of one line shows that line; a passage of
 * several lines shows those of its lines whose own passage — passages.ts builds one for each line
 * that shares its passages — is among the hits too, best first, or all of them when none is, the
 * meaning then being in the lines together), and the lines by their own passage alone. A line
 * that carries the match by itself and in its context ranks first; a line that only sits in a
 * well-ranked passage no longer crowds out lines that say it themselves (on the generator's
 * paraphrase queries, English line recall@10 0.640 → 0.780 with segments 0.868 → 0.862).
 * `score` is the best cosine of a passage showing the line; `rank` its place in the fused list.
 */
export function passageLines(passages: PassageHit[]): RankedLine[] {
  const inContext = contextLines(passages);
  const own: RankedLine[] = [];
  const seen = new Set<string>();
  for (const p of passages) {
    if (p.number !== p.last_number) continue;
    const id = `${p.episode_id}:${p.number}`;
    if (seen.has(id)) continue;
    seen.add(id);
    own.push({
      id,
      segment_id: p.segment_id,
      episode_id: p.episode_id,
      number: p.number,
      published_at: p.published_at,
      score: p.score,
      rank: own.length + 1,
    });
  }
  const best = new Map(inContext.map((l) => [l.id, l.score]));
  return reciprocalRankFusion(
    [inContext, own],
    (l) => l.id,
    undefined,
    (l) => l.rank,
  ).map((f, i) => ({
    ...f.item,
    score: Math.max(best.get(f.item.id) ?? 0, f.item.score),
    rank: i + 1,
  }));
}

/**
 * Ranked passages with every text's first showing before the repeats: a passage whose text (its
 * vector key) a better-ranked passage already has goes after all the distinct ones, in its order.
 * The same words said in many episodes (a running joke, an intro, an ad read) would otherwise take
 * the first places with one thing said many times — on the generator's paraphrase queries, ten
 * copies of one line about a broken heating filled the top ten for "extreme temperatures this
 * summer" (English line recall@10 0.787 → 0.827, int8 model). The repeats still follow.
 */
export function repeatsLast(passages: PassageHit[]): PassageHit[] {
  const seen = new Set<string>();
  const first: PassageHit[] = [];
  const repeats: PassageHit[] = [];
  for (const p of passages) {
    const key = p.vector_key ?? `id:${p.id}`;
    (seen.has(key) ? repeats : first).push(p);
    seen.add(key);
  }
  return repeats.length === 0 ? passages : [...first, ...repeats];
}

/** The lines of ranked passages in passage order, as the passages show them (see passageLines). */
function contextLines(passages: PassageHit[]): RankedLine[] {
  const out: RankedLine[] = [];
  const seen = new Set<string>();
  // Each line's best score as a passage of its own.
  const alone = new Map<string, number>();
  for (const p of passages) {
    const id = `${p.episode_id}:${p.number}`;
    if (p.number === p.last_number && !alone.has(id)) alone.set(id, p.score);
  }
  passages.forEach((p, i) => {
    const ids: string[] = [];
    for (let n = p.number; n <= p.last_number; n++) ids.push(`${p.episode_id}:${n}`);
    const carrying = ids.filter((id) => alone.has(id)).sort((a, b) => alone.get(b)! - alone.get(a)!);
    for (const id of carrying.length > 0 ? carrying : ids) {
      if (seen.has(id)) continue;
      seen.add(id);
      out.push({
        id,
        segment_id: p.segment_id,
        episode_id: p.episode_id,
        number: Number(id.slice(p.episode_id.length + 1)),
        published_at: p.published_at,
        score: p.score,
        rank: i + 1,
      });
    }
  });
  return out;
}

/**
 * Vector search of passages with one round of pseudo-relevance feedback: the best distinct
 * passages of a first pass pull the query towards what the corpus says about it (vectors.ts).
 */
async function semanticPassages(
  services: SearchServices,
  vector: Float32Array,
  filter: SearchFilter,
  depth: number,
): Promise<PassageHit[]> {
  const first = await services.index.vectorPassages(vector, filter, PRF_POOL, { withVectors: true });
  const seen = new Set<string>();
  const feedback: Float32Array[] = [];
  for (const h of first) {
    if (!h.vector || seen.has(h.text ?? h.id)) continue;
    seen.add(h.text ?? h.id);
    feedback.push(h.vector);
    if (feedback.length === PRF_DOCS) break;
  }
  if (feedback.length === 0) return [];
  return services.index.vectorPassages(feedbackQuery(vector, feedback), filter, depth);
}

async function entityIdsOfType(services: SearchServices, slug: string): Promise<string[]> {
  const rows = await services.state.query<{ id: string }>(
    'SELECT id FROM catalog_entities WHERE category_slug = $1 ORDER BY id',
    [slug],
  );
  if (rows.length === 0) {
    throw invalidParameter('query.entity_type', 'is not an entity type (see GET /v1/entities/types)', slug);
  }
  return rows.map((r) => r.id);
}

function groupBySegment(ranked: { hit: LineHit; score: number }[]): SegmentGroup[] {
  const groups = new Map<string, SegmentGroup>();
  ranked.forEach(({ hit, score }, i) => {
    let g = groups.get(hit.segment_id);
    if (!g) {
      g = {
        segmentId: hit.segment_id,
        episodeId: hit.episode_id,
        publishedAt: hit.published_at,
        score,
        rank: i,
        lines: new Map(),
      };
      groups.set(hit.segment_id, g);
    }
    if (!g.lines.has(hit.number)) g.lines.set(hit.number, score);
  });
  return [...groups.values()];
}

/** Lines of `seg` in which `entityId` is mentioned or speaks (filter-only results). */
function focusLines(seg: SegmentDoc, entityId: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const l of seg.lines) {
    if (l.mentions.includes(entityId) || l.speaker.person_id === entityId) out.set(l.number, 1);
  }
  return out;
}

/**
 * Windows of lines around the matching lines: CONTEXT_LINES before and after each, overlapping
 * windows merged, at most MAX_WINDOWS (those holding the best matches), in time order. The window
 * holding the best match is the preview. Without matches, the segment's opening lines.
 */
export function windowsOf(seg: SegmentDoc, hits: Map<number, number>, focusId?: string) {
  const lines = seg.lines;
  const indexOf = new Map(lines.map((l, i) => [l.number, i]));
  const matched = [...hits.entries()]
    .filter(([n]) => indexOf.has(n))
    .sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const lineView = (l: SegmentLine) => ({
    number: l.number,
    speaker: l.speaker.name,
    role: l.speaker.role,
    start_seconds: l.start_seconds,
    end_seconds: l.end_seconds,
    text: l.text,
    is_match: hits.has(l.number),
    is_mention: focusId ? l.mentions.includes(focusId) : l.mentions.length > 0,
  });
  const window = (from: number, to: number, preview: boolean) => {
    const slice = lines.slice(from, to + 1);
    return {
      start_seconds: slice[0]!.start_seconds,
      end_seconds: slice.at(-1)!.end_seconds,
      is_preview: preview,
      lines: slice.map(lineView),
    };
  };
  if (lines.length === 0) return [];
  if (matched.length === 0) return [window(0, Math.min(lines.length, PREVIEW_LINES) - 1, true)];

  // Ranges around matches, best match first; merge into existing ranges when they touch.
  const ranges: { from: number; to: number; best: number }[] = [];
  for (const [n] of matched) {
    const i = indexOf.get(n)!;
    const from = Math.max(0, i - CONTEXT_LINES);
    const to = Math.min(lines.length - 1, i + CONTEXT_LINES);
    const overlapping = ranges.find((r) => from <= r.to + 1 && to >= r.from - 1);
    if (overlapping) {
      overlapping.from = Math.min(overlapping.from, from);
      overlapping.to = Math.max(overlapping.to, to);
    } else if (ranges.length < MAX_WINDOWS) {
      ranges.push({ from, to, best: ranges.length });
    }
  }
  // Merging can make ranges touch each other; fold those together.
  ranges.sort((a, b) => a.from - b.from);
  const merged: typeof ranges = [];
  for (const r of ranges) {
    const last = merged.at(-1);
    if (last && r.from <= last.to + 1) {
      last.to = Math.max(last.to, r.to);
      last.best = Math.min(last.best, r.best);
    } else merged.push({ ...r });
  }
  return merged.map((r) => window(r.from, r.to, r.best === 0));
}
