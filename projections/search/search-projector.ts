import type { Logger } from 'pino';
import type { ProcessorDefinition } from '../../processors/consumer-runner.ts';
import { ok, skip } from '../../processors/step-result.ts';
import type { Entity, Podcast } from '../../schemas/generated/index.ts';
import { TOPICS } from '../../schemas/topics.ts';
import type { EmbeddingsPort } from '../embeddings/embeddings-port.ts';
import { buildEpisodeDocs, compactPart, type EpisodePartName, parseParts } from './episode-documents.ts';
import type { EpisodeDocs, EpisodePart, LineDoc, NameDoc, SearchIndex } from './search-index.ts';
import { clipVectorKey, contextualVectors, lineVectorKey } from './vectors.ts';

const PART_BY_TOPIC: Record<string, EpisodePartName> = {
  [TOPICS.episodes.name]: 'episode',
  [TOPICS.transcripts.name]: 'transcript',
  [TOPICS.segments.name]: 'segments',
  [TOPICS.clips.name]: 'clips',
  [TOPICS.mentions.name]: 'mentions',
  [TOPICS.speakers.name]: 'speakers',
};

/** Text → vector, least recently used dropped first. Lines repeat (intros, ad reads, fillers). */
export class VectorCache {
  readonly map = new Map<string, Float32Array>();
  hits = 0;
  misses = 0;

  constructor(private readonly capacity: number) {}

  get(text: string): Float32Array | undefined {
    const v = this.map.get(text);
    if (v) {
      this.map.delete(text);
      this.map.set(text, v);
      this.hits++;
    } else {
      this.misses++;
    }
    return v;
  }

  set(text: string, v: Float32Array): void {
    if (this.capacity <= 0) return;
    this.map.delete(text);
    this.map.set(text, v);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value!);
  }
}

export interface SearchProjectorStats {
  episodesIndexed: number;
  linesIndexed: number;
  textsEmbedded: number;
  vectorsReused: number;
  embedMs: number;
  writeMs: number;
}

export interface SearchProjectorOptions {
  /** The index, read when the first batch is written (it is opened after the steps are listed). */
  index: () => SearchIndex;
  /** The embeddings port for indexing, or undefined when no model is available (no vectors). */
  embeddings: () => EmbeddingsPort | undefined;
  logger?: Logger;
  /** Texts whose vectors are kept in memory for reuse (default 50,000, about 77 MB at 384 dims). */
  cacheSize?: number;
  /** A cache to share (e.g. between two projectors of one process); overrides `cacheSize`. */
  cache?: VectorCache;
  /** Texts per embeddings call. */
  embedBatch?: number;
  stats?: SearchProjectorStats;
}

export interface PartItem extends EpisodePart {}

/**
 * Projects episode events (published, transcript, segments, clips, mentions, speakers) into the
 * search index. Each event replaces its episode's stored part; the episode's documents are then
 * rebuilt from all its parts and replace the old ones, so any arrival order and any replay give
 * the same index. Line vectors are contextual (vectors.ts); a vector the index already holds for
 * the same text in the same context is kept, own embeddings come from memory when the text was
 * embedded before, and from the model otherwise.
 */
export function searchProjector(options: SearchProjectorOptions): ProcessorDefinition<unknown, PartItem> {
  const cache = options.cache ?? new VectorCache(options.cacheSize ?? 50_000);
  const stats = options.stats ?? {
    episodesIndexed: 0,
    linesIndexed: 0,
    textsEmbedded: 0,
    vectorsReused: 0,
    embedMs: 0,
    writeMs: 0,
  };
  return {
    name: 'search-projector',
    groupId: 'projector.search',
    inputs: [
      TOPICS.episodes,
      TOPICS.transcripts,
      TOPICS.segments,
      TOPICS.clips,
      TOPICS.mentions,
      TOPICS.speakers,
    ],
    handle(record) {
      const part = PART_BY_TOPIC[record.topic];
      if (!part) return skip(`not an episode topic: ${record.topic}`);
      const compact = compactPart(part, record.value);
      if (!compact) return skip('nothing to index');
      return ok({ ...compact, part });
    },
    sink: {
      async write(items) {
        const index = options.index();
        const latest = new Map<string, PartItem>();
        for (const item of items) latest.set(`${item.episode_id}/${item.part}`, item);
        const parts = [...latest.values()];
        await index.putParts(parts.map(({ episode_id, part, payload }) => ({ episode_id, part, payload })));
        const episodeIds = [...new Set(parts.map((p) => p.episode_id))];
        const all = parseParts(await index.getParts(episodeIds));
        const batch: EpisodeDocs[] = [];
        for (const id of episodeIds) {
          const docs = buildEpisodeDocs(id, all.get(id) ?? {});
          if (docs) batch.push(docs);
        }
        if (batch.length === 0) return;
        const port = options.embeddings();
        if (port) {
          const started = performance.now();
          await fillVectors(batch, port, index, cache, options.embedBatch ?? 256, stats);
          stats.embedMs += performance.now() - started;
        }
        const started = performance.now();
        await index.replaceEpisodes(batch);
        index.scheduleRefresh();
        stats.writeMs += performance.now() - started;
        stats.episodesIndexed += batch.length;
        stats.linesIndexed += batch.reduce((n, b) => n + b.lines.length, 0);
      },
    },
  };
}

async function fillVectors(
  batch: EpisodeDocs[],
  port: EmbeddingsPort,
  index: SearchIndex,
  cache: VectorCache,
  embedBatch: number,
  stats: SearchProjectorStats,
): Promise<void> {
  // Each segment's lines, in order: the unit contextual vectors are computed over.
  const segments: LineDoc[][] = [];
  for (const b of batch) {
    let current: LineDoc[] = [];
    for (const l of b.lines) {
      if (current.length > 0 && current[0]!.segment_id !== l.segment_id) {
        segments.push(current);
        current = [];
      }
      current.push(l);
    }
    if (current.length > 0) segments.push(current);
    for (const c of b.clips) c.vector_key = clipVectorKey(port.model, c.text);
  }
  for (const lines of segments) {
    const texts = lines.map((l) => l.text);
    lines.forEach((l, i) => {
      l.vector_key = lineVectorKey(port.model, texts, i);
    });
  }

  // Vectors this index already holds for the same text in the same context are kept.
  const stored = await index.storedVectors(batch.map((b) => b.episode_id));
  const dims = port.dimensions;
  const reuse = (doc: { vector_key: string | null; vector: Float32Array | null }) => {
    const v = doc.vector_key ? stored.get(doc.vector_key) : undefined;
    if (v && v.length === dims) {
      doc.vector = v;
      stats.vectorsReused++;
      return true;
    }
    return false;
  };
  const pendingSegments = segments.filter((lines) => lines.map(reuse).includes(false));
  const pendingClips = batch.flatMap((b) => b.clips).filter((c) => !reuse(c));

  // Own embeddings of every text still needed: from memory, else from the model.
  const own = new Map<string, Float32Array>();
  const missing = new Set<string>();
  const want = (text: string) => {
    if (own.has(text) || missing.has(text)) return;
    const v = cache.get(text);
    if (v) own.set(text, v);
    else missing.add(text);
  };
  for (const lines of pendingSegments) for (const l of lines) want(l.text);
  for (const c of pendingClips) want(c.text);
  const texts = [...missing];
  for (let i = 0; i < texts.length; i += embedBatch) {
    const chunk = texts.slice(i, i + embedBatch);
    const vectors = await port.embed(chunk);
    chunk.forEach((text, k) => {
      own.set(text, vectors[k]!);
      cache.set(text, vectors[k]!);
    });
    stats.textsEmbedded += chunk.length;
  }
  for (const lines of pendingSegments) {
    const contextual = contextualVectors(lines.map((l) => own.get(l.text)!));
    lines.forEach((l, i) => {
      l.vector = contextual[i]!;
    });
  }
  for (const c of pendingClips) c.vector = own.get(c.text)!;
}

// --- names ------------------------------------------------------------------------------------

const ENTITY_KIND: Record<Entity['kind'], NameDoc['kind']> = {
  PERSON: 'person',
  COMPANY: 'company',
  KNOWLEDGE_GRAPH_ENTITY: 'knowledge_graph_entity',
};

/** Every name an entity goes by: name, aliases, nicknames, ticker, handles, domain. */
export function entityNames(e: Entity): string[] {
  const names = [e.name, ...e.aliases, ...e.nicknames, ...e.handles];
  if (e.company?.ticker) names.push(e.company.ticker);
  if (e.company?.domain) names.push(e.company.domain);
  return [...new Set(names.filter((n) => n.trim().length > 0))];
}

export function entityNameDoc(e: Entity): NameDoc {
  return {
    id: e.id,
    kind: ENTITY_KIND[e.kind],
    names: entityNames(e),
    popularity: 0,
    record: JSON.stringify(e),
  };
}

export function podcastNameDoc(p: Podcast): NameDoc {
  return {
    id: p.id,
    kind: 'podcast',
    names: [p.title],
    popularity: p.popularity ?? 0,
    record: JSON.stringify(p),
  };
}

/** Projects catalog entities and podcasts into the names index for entity and podcast search. */
export function namesProjector(index: () => SearchIndex): ProcessorDefinition<unknown, NameDoc> {
  return {
    name: 'search-names-projector',
    groupId: 'projector.search-names',
    inputs: [TOPICS.entities, TOPICS.podcasts],
    handle(record) {
      if (record.topic === TOPICS.entities.name) return ok(entityNameDoc(record.value as Entity));
      if (record.topic === TOPICS.podcasts.name) return ok(podcastNameDoc(record.value as Podcast));
      return skip(`not a catalog topic: ${record.topic}`);
    },
    sink: {
      async write(items) {
        await index().upsertNames(items);
        index().scheduleRefresh();
      },
    },
  };
}
