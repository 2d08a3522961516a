import type { Client } from '@opensearch-project/opensearch';
import { chunks, hasVector, vectorBacklog } from '../index-rows.ts';
import { fuzziness } from '../name-match.ts';
import type {
  ClipDoc,
  ClipHit,
  ClipOrder,
  EpisodePart,
  IndexStats,
  KeywordQuery,
  LineHit,
  NameHit,
  NameQuery,
  PassageHit,
  SearchFilter,
  SegmentDoc,
  VectorBacklog,
  VectorKind,
  VectorSource,
} from '../search-index.ts';
import { analyze } from '../text-analysis.ts';
import { type IndexName, type Json, VECTORS } from './mappings.ts';
import { filterClauses, innerProduct, keywordQuery, knnQuery } from './queries.ts';

/**
 * The reads of the OpenSearch search index: keyword (BM25), k-NN and filter queries, documents by
 * id (real-time gets), scans in id order, names, counts. What must see the newest writes is
 * refreshed by the adapter before it asks.
 */
export class OpenSearchReads {
  constructor(
    private readonly client: Client,
    private readonly name: (index: IndexName) => string,
  ) {}

  async search(index: IndexName, body: Json): Promise<Json[]> {
    const res = await this.client.search({ index: this.name(index), body });
    return (res.body as Json).hits.hits;
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
    const out = new Map<string, Float32Array>();
    for (const ids of chunks([...new Set(episodeIds)], 100)) {
      for (const kind of ['passages', 'clips'] as const) {
        const query = { bool: { filter: [{ terms: { episode_id: ids } }] } };
        for (const v of await this.scan(VECTORS[kind], query, ['vector_key', 'vector'])) {
          if (v.vector_key) out.set(v.vector_key, Float32Array.from(v.vector));
        }
      }
    }
    return out;
  }

  async pendingVectorEpisodes(limit: number): Promise<string[]> {
    // Newest published first: a backfill of older episodes yields to fresh ones.
    const hits = await this.search('pending', {
      size: limit,
      track_total_hits: false,
      _source: ['id'],
      sort: [{ published_at: 'desc' }, { id: 'asc' }],
    });
    return hits.map((h: Json) => h._source.id as string);
  }

  /** Every document of `index` matching `query`, in id order, `fields` of its source. */
  async scan(index: IndexName, query: Json, fields: string[]): Promise<Json[]> {
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

  /** Keys of the stored vectors of these episodes' passages or clips, by document id. */
  async vectorKeys(kind: VectorKind, episodeIds: string[]): Promise<Map<string, string | null>> {
    const out = new Map<string, string | null>();
    for (const ids of chunks([...new Set(episodeIds)], 100)) {
      const query = { bool: { filter: [{ terms: { episode_id: ids } }] } };
      for (const v of await this.scan(VECTORS[kind], query, ['id', 'vector_key'])) {
        out.set(v.id, v.vector_key ?? null);
      }
    }
    return out;
  }

  async vectorSources(episodeIds: string[]): Promise<{ passages: VectorSource[]; clips: VectorSource[] }> {
    const out = { passages: [] as VectorSource[], clips: [] as VectorSource[] };
    for (const kind of ['passages', 'clips'] as const) {
      const stored = await this.vectorKeys(kind, episodeIds);
      for (const ids of chunks([...new Set(episodeIds)], 100)) {
        const query = { bool: { filter: [{ terms: { episode_id: ids } }] } };
        for (const r of await this.scan(kind, query, ['id', 'episode_id', 'text', 'vector_key'])) {
          const key = r.vector_key ?? null;
          out[kind].push({ ...r, vector_key: key, has_vector: hasVector(key, stored, r.id) });
        }
      }
    }
    return out;
  }

  /** Documents by id, read in real time (visible before a refresh): source and version of each found. */
  async getByIds(index: IndexName, ids: string[], fields?: string[]): Promise<Map<string, Json>> {
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

  async vectorBacklog(): Promise<VectorBacklog> {
    const count = async (index: IndexName) =>
      ((await this.client.count({ index: this.name(index) })).body as Json).count as number;
    const [passages, passageVectors, clips, clipVectors] = await Promise.all([
      count('passages'),
      count('passage_vectors'),
      count('clips'),
      count('clip_vectors'),
    ]);
    return vectorBacklog(passages, passageVectors, clips, clipVectors);
  }

  async keywordLines(
    query: KeywordQuery,
    filter: SearchFilter,
    limit: number,
    options: { withTerms?: boolean } = {},
  ): Promise<LineHit[]> {
    const source = ['id', 'segment_id', 'episode_id', 'number', 'published_at'];
    if (options.withTerms) source.push('text');
    const hits = await this.search('lines', {
      size: limit,
      track_total_hits: false,
      _source: source,
      query: keywordQuery(query, filterClauses('lines', filter)),
    });
    return hits.map((h: Json) => {
      const { text, ...rest } = h._source;
      return { ...rest, score: h._score, ...(options.withTerms ? { terms: text } : {}) };
    });
  }

  async vectorPassages(
    vector: Float32Array,
    filter: SearchFilter,
    limit: number,
    options: { withVectors?: boolean } = {},
  ): Promise<PassageHit[]> {
    const source = ['id', 'segment_id', 'episode_id', 'number', 'last_number', 'published_at', 'vector_key'];
    if (options.withVectors) source.push('text', 'vector');
    const hits = await this.search('passage_vectors', {
      size: limit,
      track_total_hits: false,
      _source: source,
      query: knnQuery(vector, filterClauses('passage_vectors', filter), limit),
    });
    return hits.map((h: Json) => {
      const { text, vector: v, ...rest } = h._source;
      const hit: PassageHit = { vector_key: null, ...rest, score: innerProduct(h._score) };
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
    return (await this.docsByIds('segments', ids)) as SegmentDoc[];
  }

  /** The `doc` of each of these documents found, in the order asked (a real-time get). */
  private async docsByIds(index: 'segments' | 'clips', ids: string[]): Promise<Json[]> {
    if (ids.length === 0) return [];
    const res = await this.client.mget({
      index: this.name(index),
      body: { ids },
      _source: ['doc'],
    } as never);
    return (res.body as Json).docs.filter((d: Json) => d.found).map((d: Json) => d._source.doc);
  }

  async vectorClips(vector: Float32Array, filter: SearchFilter, limit: number): Promise<ClipHit[]> {
    const hits = await this.search('clip_vectors', {
      size: limit,
      track_total_hits: false,
      _source: ['id', 'published_at', 'engagement_score'],
      query: knnQuery(vector, filterClauses('clips', filter), limit),
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
    return (await this.docsByIds('clips', ids)).map((doc) => ({ ...(doc as ClipDoc), vector: null }));
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
    const [lines, passages, passagesWithVectors, segments, clips, names] = await Promise.all([
      count('lines'),
      count('passages'),
      count('passage_vectors'),
      count('segments'),
      count('clips'),
      count('names'),
    ]);
    return { lines, passages, passagesWithVectors, segments, clips, names };
  }
}
