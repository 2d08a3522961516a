import type { Logger } from 'pino';
import type { ProcessorDefinition } from '../../processors/consumer-runner.ts';
import { ok, skip } from '../../processors/step-result.ts';
import type { Entity, Podcast } from '../../schemas/generated/index.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { buildEpisodeDocs, compactPart, type EpisodePartName, parseParts } from './episode-documents.ts';
import { passageVectorKey } from './passages.ts';
import type { EpisodeDocs, EpisodePart, NameDoc, SearchIndex } from './search-index.ts';
import { clipVectorKey } from './vectors.ts';

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
  /** Distinct passage and clip texts the vector filler had the model embed. */
  textsEmbedded: number;
  /** Vectors kept from the index when an episode was rebuilt with the same passage or clip text. */
  vectorsReused: number;
  /** Passage and clip vectors the vector filler wrote. */
  vectorsWritten: number;
  /** Distinct texts whose vector the filler took from those a rebuild kept aside, not the model. */
  vectorsCarried: number;
  /** Time in the model (vector filler). */
  embedMs: number;
  /** Time writing documents (projector) and vectors (filler). */
  writeMs: number;
}

export function emptySearchStats(): SearchProjectorStats {
  return {
    episodesIndexed: 0,
    linesIndexed: 0,
    textsEmbedded: 0,
    vectorsReused: 0,
    vectorsWritten: 0,
    vectorsCarried: 0,
    embedMs: 0,
    writeMs: 0,
  };
}

export interface SearchProjectorOptions {
  /** The index, read when the first batch is written (it is opened after the steps are listed). */
  index: () => SearchIndex;
  /** Called after each batch is written (wakes the vector filler). */
  onIndexed?: () => void;
  logger?: Logger;
  stats?: SearchProjectorStats;
}

export interface PartItem extends EpisodePart {}

/**
 * Projects episode events (published, transcript, segments, clips, mentions, speakers) into the
 * search index. Each event replaces its episode's stored part; the episode's documents are then
 * rebuilt from all its parts and replace the old ones, so any arrival order and any replay give
 * the same index.
 *
 * The projector never waits for the embeddings model: every passage and clip is keyed by what its
 * vector would be computed from (passages.ts, vectors.ts), a vector the index already holds under the same key
 * is kept, and the rest are written without one. The vector filler (search-vector-filler.ts) then
 * embeds those rows and sets their vectors, so keyword search is current as soon as the events
 * are indexed and semantic search follows.
 */
export function searchProjector(options: SearchProjectorOptions): ProcessorDefinition<unknown, PartItem> {
  const stats = options.stats ?? emptySearchStats();
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
      async probe() {
        await options.index().stats();
      },
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
        const started = performance.now();
        await keepStoredVectors(batch, index, stats);
        await index.replaceEpisodes(batch);
        index.scheduleRefresh();
        stats.writeMs += performance.now() - started;
        stats.episodesIndexed += batch.length;
        stats.linesIndexed += batch.reduce((n, b) => n + b.lines.length, 0);
        options.onIndexed?.();
      },
    },
  };
}

/** Keys every passage and clip by what its vector is computed from, and keeps the vectors the index has. */
async function keepStoredVectors(
  batch: EpisodeDocs[],
  index: SearchIndex,
  stats: SearchProjectorStats,
): Promise<void> {
  for (const b of batch) {
    for (const p of b.passages) p.vector_key = passageVectorKey(p.text);
    for (const c of b.clips) c.vector_key = clipVectorKey(c.text);
  }
  const stored = await index.storedVectors(batch.map((b) => b.episode_id));
  if (stored.size === 0) return;
  const dims = index.dimensions;
  const keep = (doc: { vector_key: string | null; vector: Float32Array | null }) => {
    const v = doc.vector_key ? stored.get(doc.vector_key) : undefined;
    if (v && v.length === dims) {
      doc.vector = v;
      stats.vectorsReused++;
    }
  };
  for (const b of batch) {
    for (const p of b.passages) keep(p);
    for (const c of b.clips) keep(c);
  }
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
      async probe() {
        await index().stats();
      },
      async write(items) {
        await index().upsertNames(items);
        index().scheduleRefresh();
      },
    },
  };
}
