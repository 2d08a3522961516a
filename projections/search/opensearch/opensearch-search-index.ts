import { randomUUID } from 'node:crypto';
import { Client } from '@opensearch-project/opensearch';
import {
  chunks,
  clipDocument,
  clipFields,
  hasVector,
  lineFields,
  segmentFields,
  waitingForVectors,
} from '../index-rows.ts';
import { fuzziness, namePrefixes } from '../name-match.ts';
import { openSearchError } from '../search-errors.ts';
import type {
  ClipDoc,
  ClipHit,
  ClipOrder,
  ClipSource,
  EpisodeDocs,
  EpisodePart,
  FilterFields,
  IndexStats,
  KeywordQuery,
  LineDoc,
  LineHit,
  LineSource,
  NameDoc,
  NameHit,
  NameQuery,
  SearchFilter,
  SearchIndex,
  SearchIndexOptions,
  SegmentDoc,
  VectorBacklog,
  VectorUpdate,
} from '../search-index.ts';
import { FILTER_FIELDS } from '../search-index.ts';
import { analyze } from '../text-analysis.ts';

const DEFAULT_DIMENSIONS = 384;

export interface OpenSearchSearchIndexOptions extends SearchIndexOptions {
  /** Prefix of every index name (isolates deployments and test runs on one cluster). */
  prefix?: string;
  /** Most bytes per bulk request. */
  bulkBytes?: number;
}

type IndexName =
  | 'lines'
  | 'line_vectors'
  | 'segments'
  | 'clips'
  | 'clip_vectors'
  | 'episodes'
  | 'pending'
  | 'names'
  | 'parts'
  | 'meta';
const DATA_INDEXES: IndexName[] = [
  'lines',
  'line_vectors',
  'segments',
  'clips',
  'clip_vectors',
  'episodes',
  'pending',
  'names',
  'parts',
];
/** Where each kind of document keeps its vectors. */
const VECTORS = { lines: 'line_vectors', clips: 'clip_vectors' } as const;
/** Layout of the indexes; an index of another layout is refused at open (rebuild it). */
const LAYOUT = 2;

// biome-ignore lint/suspicious/noExplicitAny: OpenSearch request and response bodies are JSON
type Json = any;

/** The analysers restating text-analysis.ts for Lucene. */
const ANALYSIS = {
  tokenizer: { earshot_words: { type: 'pattern', pattern: '[^\\p{L}\\p{N}]+' } },
  filter: { earshot_max40: { type: 'length', min: 1, max: 40 } },
  analyzer: {
    earshot_text: {
      type: 'custom',
      tokenizer: 'earshot_words',
      filter: ['lowercase', 'asciifolding', 'earshot_max40'],
    },
    earshot_prefixes: { type: 'custom', tokenizer: 'whitespace', filter: [] },
  },
};

const keyword = { type: 'keyword' };
const stored = { type: 'object', enabled: false };
const episodeFields = {
  episode_id: keyword,
  podcast_id: keyword,
  published_at: { type: 'long' },
  language: keyword,
  entity_keys: keyword,
  /** Which `replaceEpisodes` wrote the document (its older documents are then deleted). */
  rev: keyword,
};

/** Index mappings: the same fields and analysers as the LanceDB tables. */
export function openSearchMappings(dims: number): Record<IndexName, Json> {
  const vector = {
    type: 'knn_vector',
    dimension: dims,
    method: {
      name: 'hnsw',
      engine: 'lucene',
      space_type: 'innerproduct',
      parameters: { m: 16, ef_construction: 128 },
    },
  };
  const lineFields = {
    id: keyword,
    ...episodeFields,
    segment_id: keyword,
    segment_type: keyword,
    number: { type: 'integer' },
    vector_key: { type: 'keyword', index: false },
  };
  const clipFields = {
    id: keyword,
    ...episodeFields,
    type: keyword,
    segment_id: keyword,
    engagement_score: { type: 'double' },
    clip_entity_keys: keyword,
    speaker_person_id: keyword,
    vector_key: { type: 'keyword', index: false },
  };
  return {
    lines: { properties: { ...lineFields, text: { type: 'text', analyzer: 'earshot_text' } } },
    line_vectors: { properties: { ...lineFields, text: { type: 'text', index: false }, vector } },
    segments: {
      properties: {
        id: keyword,
        ...episodeFields,
        type: keyword,
        number: { type: 'integer' },
        segment_entity_keys: keyword,
        doc: stored,
      },
    },
    clips: { properties: { ...clipFields, text: { type: 'text', index: false }, doc: stored } },
    clip_vectors: { properties: { ...clipFields, vector } },
    episodes: {
      properties: {
        id: keyword,
        podcast_id: keyword,
        published_at: { type: 'long' },
        entity_keys: keyword,
        rev: keyword,
      },
    },
    pending: { properties: { id: keyword, published_at: { type: 'long' } } },
    names: {
      properties: {
        id: keyword,
        kind: keyword,
        names: { type: 'text', analyzer: 'earshot_text' },
        prefixes: { type: 'text', analyzer: 'earshot_prefixes' },
        popularity: { type: 'double' },
        record: { type: 'keyword', index: false, doc_values: false },
      },
    },
    parts: {
      properties: {
        id: keyword,
        episode_id: keyword,
        part: keyword,
        payload: { type: 'keyword', index: false, doc_values: false },
      },
    },
    meta: { properties: { dimensions: { type: 'integer' }, model: keyword, layout: { type: 'integer' } } },
  };
}

const INDEX_FILTER_FIELDS: Record<IndexName, FilterFields> = {
  ...FILTER_FIELDS,
  line_vectors: FILTER_FIELDS.lines,
  clip_vectors: FILTER_FIELDS.clips,
  pending: {},
  meta: {},
};

/** SearchFilter → OpenSearch filter clauses for `index`; refuses fields the index lacks. */
export function filterClauses(index: IndexName, filter: SearchFilter): Json[] {
  const fields = INDEX_FILTER_FIELDS[index];
  const field = (name: keyof SearchFilter) => {
    const f = fields[name];
    if (!f) throw new Error(`the ${index} index cannot filter on ${name}`);
    return f;
  };
  const out: Json[] = [];
  const terms = (name: keyof SearchFilter, values: readonly string[] | undefined) => {
    if (values !== undefined) out.push({ terms: { [field(name)]: values } });
  };
  terms('episodeIds', filter.episodeIds);
  terms('podcastIds', filter.podcastIds);
  terms('segmentTypes', filter.segmentTypes);
  terms('clipTypes', filter.clipTypes);
  terms('segmentIds', filter.segmentIds);
  terms('speakerPersonIds', filter.speakerPersonIds);
  if (filter.publishedFrom !== undefined || filter.publishedBefore !== undefined) {
    const range: Json = {};
    if (filter.publishedFrom !== undefined) range.gte = filter.publishedFrom;
    if (filter.publishedBefore !== undefined) range.lt = filter.publishedBefore;
    out.push({
      range: { [field(filter.publishedFrom !== undefined ? 'publishedFrom' : 'publishedBefore')]: range },
    });
  }
  if (filter.minEngagement !== undefined)
    out.push({ range: { [field('minEngagement')]: { gte: filter.minEngagement } } });
  for (const name of ['keys', 'segmentKeys', 'clipKeys'] as const) {
    for (const group of filter[name] ?? []) out.push({ terms: { [field(name)]: group } });
  }
  return out;
}

function keywordQuery(q: KeywordQuery, filters: Json[]): Json {
  const must: Json[] = q.phrases.map((p) => ({ match_phrase: { text: { query: p } } }));
  const should: Json[] = [];
  if (q.words.length > 0) {
    const words = { match: { text: { query: q.words.join(' '), operator: 'or' } } };
    if (must.length === 0) must.push(words);
    else should.push(words);
  }
  return { bool: { must, should, filter: filters } };
}

/** The lucene engine scores an inner product p as p + 1 when p ≥ 0, else 1 / (1 − p). */
function innerProduct(score: number): number {
  return score >= 1 ? score - 1 : 1 - 1 / score;
}

/**
 * Search index on OpenSearch: BM25 on the same analyser as LanceDB (`match`, `match_phrase`),
 * k-NN on the lucene engine's HNSW (inner product) with efficient filtering, keyword fields for filters.
 */
export class OpenSearchSearchIndex implements SearchIndex {
  readonly kind = 'opensearch';
  readonly client: Client;
  private readonly prefix: string;
  private meta?: { dimensions: number; model: string | null; layout?: number };
  private unrefreshed = false;
  /** The projector's replacements and the vector filler's writes, one at a time (see exclusive). */
  private writing: Promise<unknown> = Promise.resolve();

  constructor(
    readonly url: string,
    private readonly options: OpenSearchSearchIndexOptions = {},
  ) {
    this.client = new Client({ node: url });
    this.prefix = options.prefix ?? 'earshot-';
  }

  get dimensions(): number | undefined {
    return this.meta?.dimensions;
  }

  get model(): string | undefined {
    return this.meta?.model ?? undefined;
  }

  name(index: IndexName): string {
    return `${this.prefix}${index}`;
  }

  async open(): Promise<void> {
    const metaIndex = this.name('meta');
    const exists = (await this.client.indices.exists({ index: metaIndex })).body;
    if (exists) {
      const res = await this.client.get({ index: metaIndex, id: 'meta' }, { ignore: [404] });
      this.meta = (res.body as Json)._source;
    }
    if (this.meta && this.meta.layout !== LAYOUT) {
      throw new Error(
        `the search indexes under the prefix ${this.prefix} have an earlier layout (vectors inside the line ` +
          `documents, layout 1; this version uses layout ${LAYOUT}); rebuild them with the service stopped: ` +
          'npx earshot projections rebuild search',
      );
    }
    if (!this.meta) {
      this.meta = {
        dimensions: this.options.dimensions ?? DEFAULT_DIMENSIONS,
        model: this.options.model ?? null,
        layout: LAYOUT,
      };
    } else if (!this.meta.model && this.options.model && this.options.dimensions === this.meta.dimensions) {
      this.meta.model = this.options.model;
    }
    const mappings = openSearchMappings(this.meta.dimensions);
    for (const index of [...DATA_INDEXES, 'meta'] as IndexName[]) {
      const name = this.name(index);
      if ((await this.client.indices.exists({ index: name })).body) continue;
      await this.client.indices.create(
        {
          index: name,
          body: {
            settings: {
              index: {
                number_of_shards: 1,
                number_of_replicas: 0,
                ...(index === 'line_vectors' || index === 'clip_vectors' ? { knn: true } : {}),
              },
              analysis: ANALYSIS,
            },
            mappings: { dynamic: 'strict', ...mappings[index] },
          } as never,
        },
        { ignore: [400] }, // created concurrently by another process
      );
    }
    await this.client.index({ index: metaIndex, id: 'meta', body: this.meta, refresh: true });
  }

  /**
   * Indexes documents in bulk requests of bounded size; throws on any item failure. Returns each
   * document's result (`_id`, `_seq_no`, `_primary_term`), in order.
   */
  private async bulk(index: IndexName, docs: Json[]): Promise<Json[]> {
    const results: Json[] = [];
    if (docs.length === 0) return results;
    const limit = this.options.bulkBytes ?? 8 * 1024 * 1024;
    let body: Json[] = [];
    let bytes = 0;
    const send = async () => {
      if (body.length === 0) return;
      const res = await this.client.bulk({ index: this.name(index), body });
      if ((res.body as Json).errors) {
        const failed = (res.body as Json).items.find((i: Json) => i.index?.error);
        throw openSearchError(
          failed?.index?.error,
          failed?.index?.status,
          `bulk indexing into ${this.name(index)}`,
        );
      }
      for (const item of (res.body as Json).items) results.push(item.index);
      body = [];
      bytes = 0;
    };
    for (const doc of docs) {
      const source = JSON.stringify(doc);
      body.push({ index: { _id: doc.id } }, doc);
      bytes += source.length + 40;
      if (bytes >= limit) await send();
    }
    await send();
    this.unrefreshed = true;
    return results;
  }

  private async search(index: IndexName, body: Json): Promise<Json[]> {
    const res = await this.client.search({ index: this.name(index), body });
    return (res.body as Json).hits.hits;
  }

  async putParts(parts: EpisodePart[]): Promise<void> {
    const latest = new Map(parts.map((p) => [`${p.episode_id}/${p.part}`, p]));
    await this.bulk(
      'parts',
      [...latest.entries()].map(([id, p]) => ({ id, ...p })),
    );
  }

  async getParts(episodeIds: string[]): Promise<EpisodePart[]> {
    const out: EpisodePart[] = [];
    for (const ids of chunks([...new Set(episodeIds)], 1000)) {
      // Parts are read by id (real-time get), so they are visible before a refresh.
      const docIds = ids.flatMap((id) =>
        ['episode', 'transcript', 'segments', 'clips', 'mentions', 'speakers'].map((p) => `${id}/${p}`),
      );
      const res = await this.client.mget({ index: this.name('parts'), body: { ids: docIds } });
      for (const d of (res.body as Json).docs) {
        if (d.found)
          out.push({ episode_id: d._source.episode_id, part: d._source.part, payload: d._source.payload });
      }
    }
    return out;
  }

  async storedVectors(episodeIds: string[]): Promise<Map<string, Float32Array>> {
    await this.refreshIfNeeded();
    const out = new Map<string, Float32Array>();
    for (const ids of chunks([...new Set(episodeIds)], 100)) {
      for (const kind of ['lines', 'clips'] as const) {
        const query = { bool: { filter: [{ terms: { episode_id: ids } }] } };
        for (const v of await this.scan(VECTORS[kind], query, ['vector_key', 'vector'])) {
          if (v.vector_key) out.set(v.vector_key, Float32Array.from(v.vector));
        }
      }
    }
    return out;
  }

  private async refreshIfNeeded(): Promise<void> {
    if (this.unrefreshed) await this.refresh();
  }

  /**
   * The projector's replacements and the vector filler's writes take turns in this process (a
   * vector is written only beside a line that carries its key; see putVectors for writers in
   * other processes).
   */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.writing.catch(() => {}).then(work);
    this.writing = run;
    return run;
  }

  replaceEpisodes(batch: EpisodeDocs[]): Promise<void> {
    return this.exclusive(() => this.replaceEpisodesNow(batch));
  }

  /**
   * Writes the episodes' documents over the old ones (same ids), then deletes the old documents
   * not written again. A search sees the old or the new version of a line, never neither: an
   * overwrite becomes visible at one refresh, old and new together.
   */
  private async replaceEpisodesNow(batch: EpisodeDocs[]): Promise<void> {
    if (batch.length === 0) return;
    const ids = batch.map((b) => b.episode_id);
    const rev = randomUUID();
    await this.refreshIfNeeded();
    const known = await this.client.count({
      index: this.name('episodes'),
      body: { query: { terms: { id: ids } } },
    });
    const lineDoc = (l: LineDoc) => ({ ...lineFields(l), rev });
    const clipDoc = (c: ClipDoc) => ({ ...clipFields(c), rev });
    const lines = batch.flatMap((b) => b.lines);
    const clips = batch.flatMap((b) => b.clips);
    await this.bulk('lines', lines.map(lineDoc));
    await this.bulk(
      'segments',
      batch.flatMap((b) => b.segments.map((s) => ({ ...segmentFields(s), doc: s, rev }))),
    );
    await this.bulk(
      'clips',
      clips.map((c) => ({ ...clipDoc(c), text: c.text, doc: clipDocument(c) })),
    );
    await this.bulk(
      'episodes',
      batch.map((b) => ({ ...b.episode, rev })),
    );
    // The vectors the episodes keep (same key), beside their documents.
    await this.bulk(
      'line_vectors',
      lines.filter((l) => l.vector).map((l) => ({ ...lineDoc(l), vector: Array.from(l.vector!) })),
    );
    await this.bulk(
      'clip_vectors',
      clips.filter((c) => c.vector).map((c) => ({ ...clipDoc(c), vector: Array.from(c.vector!) })),
    );
    if ((known.body as Json).count > 0) {
      // Vector documents another process wrote are deleted too unless written again here: made
      // visible first (a vector written after this refresh is checked by its writer, putVectors).
      await this.client.indices.refresh({
        index: `${this.name('line_vectors')},${this.name('clip_vectors')}`,
      });
      for (const index of ['line_vectors', 'clip_vectors', 'lines', 'segments', 'clips'] as const) {
        await this.client.deleteByQuery({
          index: this.name(index),
          conflicts: 'proceed', // a document written again since the search is the new one: kept
          body: {
            query: { bool: { filter: [{ terms: { episode_id: ids } }], must_not: [{ term: { rev } }] } },
          },
        } as never);
      }
    }
    // Last, so that a filler elsewhere that took an episode off the list meanwhile is overruled.
    const pending = waitingForVectors(batch);
    await this.bulk(
      'pending',
      pending.map((b) => ({ id: b.episode_id, published_at: b.episode.published_at })),
    );
    const done = ids.filter((id) => !pending.some((b) => b.episode_id === id));
    if (done.length > 0) {
      await this.client.bulk({
        index: this.name('pending'),
        body: done.map((id) => ({ delete: { _id: id } })),
      });
    }
  }

  async upsertNames(docs: NameDoc[]): Promise<void> {
    const latest = new Map(docs.map((d) => [d.id, d]));
    await this.bulk(
      'names',
      [...latest.values()].map((d) => ({
        id: d.id,
        kind: d.kind,
        names: d.names,
        prefixes: namePrefixes(d.names).join(' '),
        popularity: d.popularity,
        record: d.record,
      })),
    );
  }

  /** OpenSearch refreshes every second by itself. */
  scheduleRefresh(): void {}

  async refresh(): Promise<void> {
    this.unrefreshed = false;
    await this.client.indices.refresh({ index: DATA_INDEXES.map((i) => this.name(i)).join(',') });
  }

  async pendingVectorEpisodes(limit: number): Promise<string[]> {
    await this.refreshIfNeeded();
    const hits = await this.search('pending', { size: limit, track_total_hits: false, _source: ['id'] });
    return hits.map((h: Json) => h._source.id as string);
  }

  /** Every document of `index` matching `query`, in id order, `fields` of its source. */
  private async scan(index: IndexName, query: Json, fields: string[]): Promise<Json[]> {
    const out: Json[] = [];
    let searchAfter: Json[] | undefined;
    for (;;) {
      const hits = await this.search(index, {
        size: 5000,
        track_total_hits: false,
        _source: fields,
        query,
        sort: [{ id: 'asc' }],
        ...(searchAfter ? { search_after: searchAfter } : {}),
      });
      for (const h of hits) out.push(h._source);
      if (hits.length < 5000) return out;
      searchAfter = hits.at(-1).sort;
    }
  }

  /** Keys of the stored vectors of these episodes' lines or clips, by document id. */
  private async vectorKeys(
    kind: 'lines' | 'clips',
    episodeIds: string[],
  ): Promise<Map<string, string | null>> {
    const out = new Map<string, string | null>();
    for (const ids of chunks([...new Set(episodeIds)], 100)) {
      const query = { bool: { filter: [{ terms: { episode_id: ids } }] } };
      for (const v of await this.scan(VECTORS[kind], query, ['id', 'vector_key'])) {
        out.set(v.id, v.vector_key ?? null);
      }
    }
    return out;
  }

  async vectorSources(episodeIds: string[]): Promise<{ lines: LineSource[]; clips: ClipSource[] }> {
    await this.refreshIfNeeded();
    const lines: LineSource[] = [];
    const clips: ClipSource[] = [];
    const lineVectors = await this.vectorKeys('lines', episodeIds);
    const clipVectors = await this.vectorKeys('clips', episodeIds);
    for (const ids of chunks([...new Set(episodeIds)], 100)) {
      const query = { bool: { filter: [{ terms: { episode_id: ids } }] } };
      for (const l of await this.scan('lines', query, [
        'id',
        'episode_id',
        'segment_id',
        'number',
        'text',
        'vector_key',
      ])) {
        const key = l.vector_key ?? null;
        lines.push({ ...l, vector_key: key, has_vector: hasVector(key, lineVectors, l.id) });
      }
      for (const c of await this.scan('clips', query, ['id', 'episode_id', 'text', 'vector_key'])) {
        const key = c.vector_key ?? null;
        clips.push({ ...c, vector_key: key, has_vector: hasVector(key, clipVectors, c.id) });
      }
    }
    return { lines, clips };
  }

  /** Documents by id, read in real time (visible before a refresh): source and version of each found. */
  private async getByIds(index: IndexName, ids: string[], fields?: string[]): Promise<Map<string, Json>> {
    const out = new Map<string, Json>();
    for (const part of chunks(ids, 1000)) {
      if (part.length === 0) continue;
      const res = await this.client.mget({
        index: this.name(index),
        body: { ids: part },
        ...(fields ? { _source: fields } : {}),
      } as never);
      for (const d of (res.body as Json).docs) {
        if (d.found) out.set(d._id, { ...d._source, _seq_no: d._seq_no, _primary_term: d._primary_term });
      }
    }
    return out;
  }

  putVectors(kind: 'lines' | 'clips', updates: VectorUpdate[]): Promise<number> {
    return this.exclusive(() => this.putVectorsNow(kind, updates));
  }

  private async putVectorsNow(kind: 'lines' | 'clips', updates: VectorUpdate[]): Promise<number> {
    if (updates.length === 0) return 0;
    const latest = new Map(updates.map((u) => [u.id, u]));
    const ids = [...latest.keys()];
    const fields = Object.keys(openSearchMappings(1)[VECTORS[kind]].properties).filter(
      (f) => f !== 'vector' && f !== 'rev',
    );
    const current = await this.getByIds(kind, ids, fields);
    const stored = new Map<string, string | null>(
      [...(await this.getByIds(VECTORS[kind], ids, ['vector_key'])).entries()].map(([id, v]) => [
        id,
        v.vector_key ?? null,
      ]),
    );
    // Only beside rows that still carry the update's key (or none) and hold no vector of their key;
    // a row replaced by the projector since it was read is left as it is.
    const docs: Json[] = [];
    for (const [id, u] of latest) {
      const row = current.get(id);
      if (!row) continue;
      const key = row.vector_key ?? null;
      if (key !== null && key !== u.vector_key) continue;
      if (hasVector(key, stored, id)) continue;
      const { _seq_no, _primary_term, ...source } = row;
      docs.push({ ...source, id, vector_key: u.vector_key, vector: Array.from(u.vector) });
    }
    if (docs.length === 0) return 0;
    const written = await this.bulk(VECTORS[kind], docs);
    // A projector in another process may have replaced a row since it was read: its replacement
    // deletes the vectors it can see, and a vector it could not see yet is taken back here.
    const now = await this.getByIds(
      kind,
      docs.map((d) => d.id),
      ['vector_key'],
    );
    const undo = docs
      .map((d, i) => ({ d, r: written[i] }))
      .filter(({ d }) => {
        const row = now.get(d.id);
        return !row || (row.vector_key != null && row.vector_key !== d.vector_key);
      });
    if (undo.length > 0) {
      await this.client.bulk({
        index: this.name(VECTORS[kind]),
        body: undo.map(({ r }) => ({
          delete: { _id: r._id, if_seq_no: r._seq_no, if_primary_term: r._primary_term },
        })),
      });
    }
    return docs.length - undo.length;
  }

  settleVectors(episodeIds: string[]): Promise<void> {
    return this.exclusive(async () => {
      const unique = [...new Set(episodeIds)];
      // The list entries as they are now, before the rows are read: an entry written again since
      // (a projector replaced the episode) is newer than this reading and stays.
      const entries = await this.getByIds('pending', unique, ['id']);
      if (entries.size === 0) return;
      await this.refresh();
      const { lines, clips } = await this.vectorSources([...entries.keys()]);
      const open = new Set([...lines, ...clips].filter((r) => !r.has_vector).map((r) => r.episode_id));
      const done = [...entries.entries()].filter(([id]) => !open.has(id));
      if (done.length === 0) return;
      await this.client.bulk({
        index: this.name('pending'),
        body: done.map(([id, e]) => ({
          delete: { _id: id, if_seq_no: e._seq_no, if_primary_term: e._primary_term },
        })),
      });
      this.unrefreshed = true;
    });
  }

  async vectorBacklog(): Promise<VectorBacklog> {
    const count = async (index: IndexName) =>
      ((await this.client.count({ index: this.name(index) })).body as Json).count as number;
    const [lines, lineVectors, clips, clipVectors] = await Promise.all([
      count('lines'),
      count('line_vectors'),
      count('clips'),
      count('clip_vectors'),
    ]);
    return { lines: Math.max(0, lines - lineVectors), clips: Math.max(0, clips - clipVectors) };
  }

  async keywordLines(query: KeywordQuery, filter: SearchFilter, limit: number): Promise<LineHit[]> {
    const hits = await this.search('lines', {
      size: limit,
      track_total_hits: false,
      _source: ['id', 'segment_id', 'episode_id', 'number', 'published_at'],
      query: keywordQuery(query, filterClauses('lines', filter)),
    });
    return hits.map((h: Json) => ({ ...h._source, score: h._score }));
  }

  /**
   * k-NN query. The lucene engine searches the graph with `k` candidates; a small `k` can stop at
   * a local optimum, so at least 64 are searched and `size` keeps the first `limit`.
   */
  private knn(vector: Float32Array, filters: Json[], limit: number): Json {
    const knn: Json = { vector: Array.from(vector), k: Math.max(limit, 64) };
    if (filters.length > 0) knn.filter = { bool: { filter: filters } };
    return { knn: { vector: knn } };
  }

  async vectorLines(
    vector: Float32Array,
    filter: SearchFilter,
    limit: number,
    options: { withVectors?: boolean } = {},
  ): Promise<LineHit[]> {
    const source = ['id', 'segment_id', 'episode_id', 'number', 'published_at'];
    if (options.withVectors) source.push('text', 'vector');
    const hits = await this.search('line_vectors', {
      size: limit,
      track_total_hits: false,
      _source: source,
      query: this.knn(vector, filterClauses('lines', filter), limit),
    });
    return hits.map((h: Json) => {
      const { text, vector: v, ...rest } = h._source;
      const hit: LineHit = { ...rest, score: innerProduct(h._score) };
      if (options.withVectors) {
        hit.text = text;
        hit.vector = Float32Array.from(v);
      }
      return hit;
    });
  }

  async filterSegments(filter: SearchFilter, limit: number, offset: number): Promise<LineHit[]> {
    const hits = await this.search('segments', {
      from: offset,
      size: limit,
      track_total_hits: false,
      _source: ['id', 'episode_id', 'number', 'published_at'],
      query: { bool: { filter: filterClauses('segments', filter) } },
      sort: [{ published_at: 'desc' }, { id: 'asc' }],
    });
    return hits.map((h: Json) => ({
      id: h._source.id,
      segment_id: h._source.id,
      episode_id: h._source.episode_id,
      number: h._source.number,
      published_at: h._source.published_at,
      score: 0,
    }));
  }

  async getSegments(ids: string[]): Promise<SegmentDoc[]> {
    if (ids.length === 0) return [];
    const res = await this.client.mget({
      index: this.name('segments'),
      body: { ids },
      _source: ['doc'],
    } as never);
    return (res.body as Json).docs.filter((d: Json) => d.found).map((d: Json) => d._source.doc as SegmentDoc);
  }

  async vectorClips(vector: Float32Array, filter: SearchFilter, limit: number): Promise<ClipHit[]> {
    const hits = await this.search('clip_vectors', {
      size: limit,
      track_total_hits: false,
      _source: ['id', 'published_at', 'engagement_score'],
      query: this.knn(vector, filterClauses('clips', filter), limit),
    });
    return hits.map((h: Json) => ({ ...h._source, score: innerProduct(h._score) }));
  }

  async listClips(filter: SearchFilter, order: ClipOrder, limit: number, offset: number): Promise<ClipHit[]> {
    const hits = await this.search('clips', {
      from: offset,
      size: limit,
      track_total_hits: false,
      _source: ['id', 'published_at', 'engagement_score'],
      query: { bool: { filter: filterClauses('clips', filter) } },
      sort:
        order === 'engagement'
          ? [{ engagement_score: 'desc' }, { published_at: 'desc' }, { id: 'asc' }]
          : [{ published_at: 'desc' }, { engagement_score: 'desc' }, { id: 'asc' }],
    });
    return hits.map((h: Json) => ({ ...h._source, score: 0 }));
  }

  async getClips(ids: string[]): Promise<ClipDoc[]> {
    if (ids.length === 0) return [];
    const res = await this.client.mget({
      index: this.name('clips'),
      body: { ids },
      _source: ['doc'],
    } as never);
    return (res.body as Json).docs
      .filter((d: Json) => d.found)
      .map((d: Json) => ({ ...(d._source.doc as ClipDoc), vector: null }));
  }

  async searchNames(query: NameQuery, limit: number): Promise<NameHit[]> {
    const words = query.words.flatMap((w) => analyze(w));
    if (words.length === 0 || query.kinds.length === 0) return [];
    const should: Json[] = words.map((w) => ({
      match: { names: { query: w, fuzziness: fuzziness(w), prefix_length: w.length > 3 ? 1 : 0 } },
    }));
    const last = words.at(-1)!;
    if (last.length >= 2) should.push({ match: { prefixes: last } });
    const hits = await this.search('names', {
      size: limit,
      track_total_hits: false,
      query: { bool: { should, minimum_should_match: 1, filter: [{ terms: { kind: query.kinds } }] } },
    });
    return hits.map((h: Json) => ({
      doc: {
        id: h._source.id,
        kind: h._source.kind,
        names: h._source.names,
        popularity: h._source.popularity,
        record: h._source.record,
      },
      score: h._score,
    }));
  }

  async countEpisodes(keys: string[]): Promise<Map<string, number>> {
    const unique = [...new Set(keys)];
    if (unique.length === 0) return new Map();
    const filters: Json = {};
    unique.forEach((k, i) => {
      filters[`k${i}`] = { term: { entity_keys: k } };
    });
    const res = await this.client.search({
      index: this.name('episodes'),
      body: { size: 0, aggs: { keys: { filters: { filters } } } },
    });
    const buckets = (res.body as Json).aggregations.keys.buckets;
    return new Map(unique.map((k, i) => [k, buckets[`k${i}`].doc_count as number]));
  }

  async stats(): Promise<IndexStats> {
    const count = async (index: IndexName, query?: Json) =>
      ((await this.client.count({ index: this.name(index), body: query ? { query } : {} })).body as Json)
        .count as number;
    const [lines, linesWithVectors, segments, clips, names] = await Promise.all([
      count('lines'),
      count('line_vectors'),
      count('segments'),
      count('clips'),
      count('names'),
    ]);
    return { lines, linesWithVectors, segments, clips, names };
  }

  /** Deletes every index this adapter created (tests and rebuilds). */
  async drop(): Promise<void> {
    // A node busy merging a large index can take longer than the default 30 s to apply the delete.
    await this.client.indices.delete(
      {
        index: [...DATA_INDEXES, 'meta'].map((i) => this.name(i as IndexName)).join(','),
        cluster_manager_timeout: '5m',
        timeout: '5m',
      },
      { ignore: [404], requestTimeout: 330_000 },
    );
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
