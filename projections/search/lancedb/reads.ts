import type { Table } from '@lancedb/lancedb';
import { BooleanQuery, type FullTextQuery, MatchQuery, Occur } from '@lancedb/lancedb';
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
import { filterSql, inList, keywordFts, sqlString } from './filters.ts';
import { type StoreTable, VECTORS } from './tables.ts';

/**
 * The reads of the LanceDB search index: keyword, vector and filter queries, documents by id,
 * names, counts. BM25 comes from LanceDB's full-text index (with positions, so phrase queries are
 * exact); filters are SQL predicates applied before ranking.
 */
export class LanceDbReads {
  constructor(private readonly table: (name: StoreTable) => Table) {}

  /** Nearest vectors by dot product; exact until the table has its ANN index. */
  private nearest(name: 'passage_vectors' | 'clip_vectors', vector: Float32Array, limit: number) {
    return this.table(name)
      .query()
      .nearestTo(Array.from(vector))
      .distanceType('dot')
      .ef(Math.max(64, limit * 2))
      .nprobes(20)
      .refineFactor(2);
  }

  async getParts(episodeIds: string[]): Promise<EpisodePart[]> {
    const out: EpisodePart[] = [];
    for (const ids of chunks([...new Set(episodeIds)], 500)) {
      const rows = await this.table('parts')
        .query()
        .where(inList('episode_id', ids))
        .select(['episode_id', 'part', 'payload'])
        .toArray();
      for (const r of rows) out.push({ episode_id: r.episode_id, part: r.part, payload: r.payload });
    }
    return out;
  }

  async storedVectors(episodeIds: string[]): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    for (const ids of chunks([...new Set(episodeIds)], 500)) {
      for (const name of ['passage_vectors', 'clip_vectors'] as const) {
        const rows = await this.table(name)
          .query()
          .where(inList('episode_id', ids))
          .select(['vector_key', 'vector'])
          .toArray();
        for (const r of rows) {
          if (r.vector_key) out.set(r.vector_key, Float32Array.from(r.vector.toArray() as Float32Array));
        }
      }
    }
    return out;
  }

  /** Keys of the stored vectors of these episodes' passages or clips, by row id. */
  async vectorKeys(kind: VectorKind, episodeIds: string[]): Promise<Map<string, string | null>> {
    const out = new Map<string, string | null>();
    for (const ids of chunks([...new Set(episodeIds)], 500)) {
      const rows = await this.table(VECTORS[kind])
        .query()
        .where(inList('episode_id', ids))
        .select(['id', 'vector_key'])
        .toArray();
      for (const r of rows) out.set(r.id, r.vector_key ?? null);
    }
    return out;
  }

  async vectorSources(episodeIds: string[]): Promise<{ passages: VectorSource[]; clips: VectorSource[] }> {
    const out = { passages: [] as VectorSource[], clips: [] as VectorSource[] };
    for (const kind of ['passages', 'clips'] as const) {
      const stored = await this.vectorKeys(kind, episodeIds);
      for (const ids of chunks([...new Set(episodeIds)], 500)) {
        for (const r of await this.table(kind)
          .query()
          .where(inList('episode_id', ids))
          .select(['id', 'episode_id', 'text', 'vector_key'])
          .toArray()) {
          const key = r.vector_key ?? null;
          out[kind].push({
            id: r.id,
            episode_id: r.episode_id,
            text: r.text,
            vector_key: key,
            has_vector: hasVector(key, stored, r.id),
          });
        }
      }
    }
    return out;
  }

  async pendingVectorEpisodes(limit: number): Promise<string[]> {
    // Newest published first: a backfill of older episodes yields to fresh ones.
    const rows = await this.table('pending')
      .query()
      .orderBy([
        { columnName: 'published_at', ascending: false },
        { columnName: 'id', ascending: true },
      ])
      .select(['id', 'published_at'])
      .limit(limit)
      .toArray();
    return rows.map((r) => r.id as string);
  }

  async vectorBacklog(): Promise<VectorBacklog> {
    const [passages, passageVectors, clips, clipVectors] = await Promise.all([
      this.table('passages').countRows(),
      this.table('passage_vectors').countRows(),
      this.table('clips').countRows(),
      this.table('clip_vectors').countRows(),
    ]);
    return vectorBacklog(passages, passageVectors, clips, clipVectors);
  }

  async keywordLines(
    query: KeywordQuery,
    filter: SearchFilter,
    limit: number,
    options: { withTerms?: boolean } = {},
  ): Promise<LineHit[]> {
    let q = this.table('lines').query().fullTextSearch(keywordFts(query, 'text'));
    const where = filterSql('lines', filter);
    if (where) q = q.where(where);
    const columns = ['id', 'segment_id', 'episode_id', 'number', 'published_at', '_score'];
    if (options.withTerms) columns.push('text');
    const rows = await q.select(columns).limit(limit).toArray();
    return rows.map((r) => {
      const hit = lineHit(r, r._score);
      if (options.withTerms) hit.terms = r.text as string;
      return hit;
    });
  }

  async vectorPassages(
    vector: Float32Array,
    filter: SearchFilter,
    limit: number,
    options: { withVectors?: boolean } = {},
  ): Promise<PassageHit[]> {
    let q = this.nearest('passage_vectors', vector, limit);
    const where = filterSql('passages', filter);
    if (where) q = q.where(where);
    const columns = [
      'id',
      'segment_id',
      'episode_id',
      'number',
      'last_number',
      'published_at',
      'vector_key',
      '_distance',
    ];
    if (options.withVectors) columns.push('text', 'vector');
    const rows = await q.select(columns).limit(limit).toArray();
    return rows.map((r) => {
      // LanceDB's dot distance is 1 − a·b.
      const hit: PassageHit = {
        ...lineHit(r, 1 - r._distance),
        last_number: r.last_number,
        vector_key: r.vector_key ?? null,
      };
      if (options.withVectors) {
        hit.text = r.text;
        hit.vector = Float32Array.from(r.vector.toArray() as Float32Array);
      }
      return hit;
    });
  }

  async filterSegments(filter: SearchFilter, limit: number, offset: number): Promise<LineHit[]> {
    let q = this.table('segments').query();
    const where = filterSql('segments', filter);
    if (where) q = q.where(where);
    const rows = await q
      .orderBy([
        { columnName: 'published_at', ascending: false },
        { columnName: 'id', ascending: true },
      ])
      .select(['id', 'episode_id', 'number', 'published_at'])
      .offset(offset)
      .limit(limit)
      .toArray();
    return rows.map((r) => ({
      id: r.id,
      segment_id: r.id,
      episode_id: r.episode_id,
      number: r.number,
      published_at: r.published_at,
      score: 0,
    }));
  }

  getSegments(ids: string[]): Promise<SegmentDoc[]> {
    return this.docsByIds('segments', ids, ['id', 'doc'], (doc) => doc as SegmentDoc);
  }

  /** The documents (`doc` column, JSON) of these rows, in the order asked; ids not found are left out. */
  private async docsByIds<T>(
    name: 'segments' | 'clips',
    ids: string[],
    columns: string[],
    parse: (doc: unknown) => T,
  ): Promise<T[]> {
    const out = new Map<string, T>();
    for (const part of chunks([...new Set(ids)], 500)) {
      const rows = await this.table(name).query().where(inList('id', part)).select(columns).toArray();
      for (const r of rows) out.set(r.id, parse(JSON.parse(r.doc)));
    }
    return ids.map((id) => out.get(id)).filter((d): d is T => d !== undefined);
  }

  async vectorClips(vector: Float32Array, filter: SearchFilter, limit: number): Promise<ClipHit[]> {
    let q = this.nearest('clip_vectors', vector, limit);
    const where = filterSql('clips', filter);
    if (where) q = q.where(where);
    const rows = await q
      .select(['id', 'published_at', 'engagement_score', '_distance'])
      .limit(limit)
      .toArray();
    return rows.map((r) => clipHit(r, 1 - r._distance));
  }

  async listClips(filter: SearchFilter, order: ClipOrder, limit: number, offset: number): Promise<ClipHit[]> {
    let q = this.table('clips').query();
    const where = filterSql('clips', filter);
    if (where) q = q.where(where);
    const first = order === 'engagement' ? 'engagement_score' : 'published_at';
    const second = order === 'engagement' ? 'published_at' : 'engagement_score';
    const rows = await q
      .orderBy([
        { columnName: first, ascending: false },
        { columnName: second, ascending: false },
        { columnName: 'id', ascending: true },
      ])
      .select(['id', 'published_at', 'engagement_score'])
      .offset(offset)
      .limit(limit)
      .toArray();
    return rows.map((r) => clipHit(r, 0));
  }

  getClips(ids: string[]): Promise<ClipDoc[]> {
    return this.docsByIds('clips', ids, ['id', 'doc', 'clip_entity_keys', 'entity_keys'], (doc) => ({
      ...(doc as ClipDoc),
      vector: null,
    }));
  }

  async searchNames(query: NameQuery, limit: number): Promise<NameHit[]> {
    const words = query.words.flatMap((w) => analyze(w));
    if (words.length === 0 || query.kinds.length === 0) return [];
    // The fuzzy prefix is the first letter. LanceDB counts it in UTF-8 bytes and applies it to
    // every token its own tokenizer cuts the word into (it splits at some marks too), panicking
    // when the cut falls inside a letter; so a prefix is given only when every letter of the
    // word has the same byte length (any word of one script), and none otherwise.
    const prefixLength = (w: string) => {
      if (w.length <= 3) return 0;
      const widths = new Set(Array.from(w, (c) => Buffer.byteLength(c)));
      return widths.size === 1 ? [...widths][0]! : 0;
    };
    const should: [Occur, FullTextQuery][] = words.map((w) => [
      Occur.Should,
      new MatchQuery(w, 'names', { fuzziness: fuzziness(w), prefixLength: prefixLength(w) }),
    ]);
    const last = words.at(-1)!;
    if (last.length >= 2) should.push([Occur.Should, new MatchQuery(last, 'prefixes')]);
    const rows = await this.table('names')
      .query()
      .fullTextSearch(should.length === 1 ? should[0]![1] : new BooleanQuery(should))
      .where(inList('kind', query.kinds))
      .select(['id', 'kind', 'names', 'popularity', 'record', '_score'])
      .limit(limit)
      .toArray();
    return rows.map((r) => ({
      doc: {
        id: r.id,
        kind: r.kind,
        names: String(r.names).split(' ; '),
        popularity: r.popularity,
        record: r.record,
      },
      score: r._score,
    }));
  }

  async countEpisodes(keys: string[]): Promise<Map<string, number>> {
    const table = this.table('episodes');
    const unique = [...new Set(keys)];
    const counts = await Promise.all(
      unique.map((k) => table.countRows(`array_has(entity_keys, ${sqlString(k)})`)),
    );
    return new Map(unique.map((k, i) => [k, counts[i]!]));
  }

  async stats(): Promise<IndexStats> {
    const [lines, passages, passagesWithVectors, segments, clips, names] = await Promise.all([
      this.table('lines').countRows(),
      this.table('passages').countRows(),
      this.table('passage_vectors').countRows(),
      this.table('segments').countRows(),
      this.table('clips').countRows(),
      this.table('names').countRows(),
    ]);
    return { lines, passages, passagesWithVectors, segments, clips, names };
  }
}

function lineHit(r: Record<string, unknown>, score: unknown): LineHit {
  return {
    id: r.id as string,
    segment_id: r.segment_id as string,
    episode_id: r.episode_id as string,
    number: r.number as number,
    published_at: r.published_at as number,
    score: Number(score),
  };
}

function clipHit(r: Record<string, unknown>, score: number): ClipHit {
  return {
    id: r.id as string,
    published_at: r.published_at as number,
    engagement_score: r.engagement_score as number,
    score,
  };
}
