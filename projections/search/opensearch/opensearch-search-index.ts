import { randomUUID } from 'node:crypto';
import { Client } from '@opensearch-project/opensearch';
import {
  clipDocument,
  clipFields,
  hasVector,
  passageFields,
  segmentFields,
  waitingForVectors,
} from '../index-rows.ts';
import { namePrefixes } from '../name-match.ts';
import { SearchAdapter } from '../search-adapter.ts';
import { openSearchError } from '../search-errors.ts';
import type {
  ClipDoc,
  EpisodeDocs,
  EpisodePart,
  NameDoc,
  PassageDoc,
  SearchIndex,
  SearchIndexOptions,
  VectorBacklog,
  VectorKind,
  VectorModel,
  VectorSource,
  VectorUpdate,
} from '../search-index.ts';
import { indexTerms } from '../text-analysis.ts';
import { CARRIED_INDEX, carriedMeta, carryVectors, dropCarried, lookUpCarried } from './carried-vectors.ts';
import {
  ANALYSIS,
  DATA_INDEXES,
  DEFAULT_DIMENSIONS,
  type IndexName,
  type Json,
  LAYOUT,
  openSearchMappings,
  VECTORS,
} from './mappings.ts';
import { OpenSearchReads } from './reads.ts';

export { openSearchMappings } from './mappings.ts';
/**
 * The OpenSearch search index adapter, the entry of this folder: index mappings and analysers
 * (mappings.ts), filters and queries as query DSL (queries.ts), reads (reads.ts, answered through
 * SearchAdapter; those that must see the latest writes refresh first); writes are here.
 */
export { filterClauses } from './queries.ts';

export interface OpenSearchSearchIndexOptions extends SearchIndexOptions {
  /** Prefix of every index name (isolates deployments and test runs on one cluster). */
  prefix?: string;
  /** Most bytes per bulk request. */
  bulkBytes?: number;
}

/**
 * Search index on OpenSearch: BM25 on the same analyser as LanceDB (`match`, `match_phrase`),
 * k-NN on the lucene engine's HNSW (inner product) with efficient filtering, keyword fields for filters.
 */
export class OpenSearchSearchIndex extends SearchAdapter implements SearchIndex {
  readonly kind = 'opensearch';
  readonly client: Client;
  private readonly prefix: string;
  private meta?: { dimensions: number; model: string | null; layout?: number };
  protected readonly reads: OpenSearchReads;
  private unrefreshed = false;
  private carried?: VectorModel;

  constructor(
    readonly url: string,
    private readonly options: OpenSearchSearchIndexOptions = {},
  ) {
    super();
    this.client = new Client({ node: url });
    this.prefix = options.prefix ?? 'earshot-';
    this.reads = new OpenSearchReads(this.client, (index) => this.name(index));
  }

  get dimensions(): number | undefined {
    return this.meta?.dimensions;
  }

  get model(): string | undefined {
    return this.meta?.model ?? undefined;
  }

  name(index: IndexName | typeof CARRIED_INDEX): string {
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
        `the search indexes under the prefix ${this.prefix} have an earlier layout (${this.meta.layout ?? 1}; ` +
          `this version uses layout ${LAYOUT}: passages, text analysed once for both engines, every Chinese or Japanese character a word); rebuild them with the service stopped: ` +
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
                ...(index === 'passage_vectors' || index === 'clip_vectors' ? { knn: true } : {}),
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
    this.carried = await carriedMeta(this.client, this.name(CARRIED_INDEX));
  }

  async carriedVectors(
    model: string,
    dimensions: number,
    keys: string[],
  ): Promise<Map<string, Float32Array>> {
    if (!this.carried || this.carried.model !== model || this.carried.dimensions !== dimensions)
      return new Map();
    return lookUpCarried(this.client, this.name(CARRIED_INDEX), keys);
  }

  async dropCarriedVectors(): Promise<number> {
    this.carried = undefined;
    return dropCarried(this.client, this.name(CARRIED_INDEX));
  }

  /**
   * Empties the index for a rebuild (`earshot projections rebuild search`), keeping its vectors
   * aside (carried-vectors.ts) when its meta names the model they came from. Says what it did.
   */
  async clearKeepingVectors(): Promise<string> {
    const meta = await this.client.get({ index: this.name('meta'), id: 'meta' }, { ignore: [404] });
    const source = (meta.body as Json)?._source as { model?: string | null; dimensions?: number } | undefined;
    let carried = 0;
    if (source?.model && source.dimensions) {
      carried = await carryVectors(
        this.client,
        this.name(CARRIED_INDEX),
        Object.values(VECTORS).map((i) => this.name(i)),
        { model: source.model, dimensions: source.dimensions },
      );
    }
    await this.deleteIndexes([...DATA_INDEXES, 'meta']);
    this.carried = undefined;
    return carried > 0
      ? `deleted its OpenSearch indexes, keeping ${carried} vectors of ${source!.model} aside for the rebuild`
      : 'deleted its OpenSearch indexes';
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

  async putParts(parts: EpisodePart[]): Promise<void> {
    const latest = new Map(parts.map((p) => [`${p.episode_id}/${p.part}`, p]));
    await this.bulk(
      'parts',
      [...latest.entries()].map(([id, p]) => ({ id, ...p })),
    );
  }

  private async refreshIfNeeded(): Promise<void> {
    if (this.unrefreshed) await this.refresh();
  }

  /**
   * Writes the episodes' documents over the old ones (same ids), then deletes the old documents
   * not written again. A search sees the old or the new version of a line, never neither: an
   * overwrite becomes visible at one refresh, old and new together.
   */
  protected async replaceEpisodesNow(batch: EpisodeDocs[]): Promise<void> {
    if (batch.length === 0) return;
    const ids = batch.map((b) => b.episode_id);
    const rev = randomUUID();
    await this.refreshIfNeeded();
    const known = await this.client.count({
      index: this.name('episodes'),
      body: { query: { terms: { id: ids } } },
    });
    const passageDoc = (p: PassageDoc) => ({ ...passageFields(p), rev });
    const clipDoc = (c: ClipDoc) => ({ ...clipFields(c), rev });
    const passages = batch.flatMap((b) => b.passages);
    const clips = batch.flatMap((b) => b.clips);
    await this.bulk(
      'lines',
      batch.flatMap((b) => b.lines.map((l) => ({ ...l, text: indexTerms(l.text), rev }))),
    );
    await this.bulk('passages', passages.map(passageDoc));
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
      'passage_vectors',
      passages.filter((p) => p.vector).map((p) => ({ ...passageDoc(p), vector: Array.from(p.vector!) })),
    );
    await this.bulk(
      'clip_vectors',
      clips.filter((c) => c.vector).map((c) => ({ ...clipDoc(c), vector: Array.from(c.vector!) })),
    );
    if ((known.body as Json).count > 0) {
      // Vector documents another process wrote are deleted too unless written again here: made
      // visible first (a vector written after this refresh is checked by its writer, putVectors).
      await this.client.indices.refresh({
        index: `${this.name('passage_vectors')},${this.name('clip_vectors')}`,
      });
      for (const index of [
        'passage_vectors',
        'clip_vectors',
        'lines',
        'passages',
        'segments',
        'clips',
      ] as const) {
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
        names: d.names.map(indexTerms),
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

  protected async putVectorsNow(kind: VectorKind, updates: VectorUpdate[]): Promise<number> {
    if (updates.length === 0) return 0;
    const latest = new Map(updates.map((u) => [u.id, u]));
    const ids = [...latest.keys()];
    const fields = Object.keys(openSearchMappings(1)[VECTORS[kind]].properties).filter(
      (f) => f !== 'vector' && f !== 'rev',
    );
    const current = await this.reads.getByIds(kind, ids, fields);
    const stored = new Map<string, string | null>(
      [...(await this.reads.getByIds(VECTORS[kind], ids, ['vector_key'])).entries()].map(([id, v]) => [
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
    const now = await this.reads.getByIds(
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

  /**
   * Takes settled episodes off the pending list. A vector is written only beside a line that
   * carries its key (see putVectorsNow for writers in other processes).
   */
  protected async settleVectorsNow(episodeIds: string[]): Promise<void> {
    const unique = [...new Set(episodeIds)];
    // The list entries as they are now, before the rows are read: an entry written again since
    // (a projector replaced the episode) is newer than this reading and stays.
    const entries = await this.reads.getByIds('pending', unique, ['id']);
    if (entries.size === 0) return;
    await this.refresh();
    const { passages, clips } = await this.vectorSources([...entries.keys()]);
    const open = new Set([...passages, ...clips].filter((r) => !r.has_vector).map((r) => r.episode_id));
    const done = [...entries.entries()].filter(([id]) => !open.has(id));
    if (done.length === 0) return;
    await this.client.bulk({
      index: this.name('pending'),
      body: done.map(([id, e]) => ({
        delete: { _id: id, if_seq_no: e._seq_no, if_primary_term: e._primary_term },
      })),
    });
    this.unrefreshed = true;
  }

  protected override async vectorBacklogNow(): Promise<VectorBacklog> {
    await this.refreshIfNeeded();
    return this.reads.vectorBacklog();
  }

  override async storedVectors(episodeIds: string[]): Promise<Map<string, Float32Array>> {
    await this.refreshIfNeeded();
    return this.reads.storedVectors(episodeIds);
  }

  override async pendingVectorEpisodes(limit: number): Promise<string[]> {
    await this.refreshIfNeeded();
    return this.reads.pendingVectorEpisodes(limit);
  }

  override async vectorSources(
    episodeIds: string[],
  ): Promise<{ passages: VectorSource[]; clips: VectorSource[] }> {
    await this.refreshIfNeeded();
    return this.reads.vectorSources(episodeIds);
  }

  /** Deletes every index this adapter created, vectors kept aside by a rebuild included. */
  async drop(): Promise<void> {
    await this.deleteIndexes([...DATA_INDEXES, 'meta', CARRIED_INDEX]);
  }

  private async deleteIndexes(indexes: (IndexName | typeof CARRIED_INDEX)[]): Promise<void> {
    // A node busy merging a large index can take longer than the default 30 s to apply the delete.
    await this.client.indices.delete(
      {
        index: indexes.map((i) => this.name(i)).join(','),
        // Those that do not exist (the carried vectors, mostly) are skipped, not an error.
        ignore_unavailable: true,
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
