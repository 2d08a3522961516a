import type {
  ClipDoc,
  ClipHit,
  ClipOrder,
  EpisodeDocs,
  EpisodePart,
  IndexStats,
  KeywordQuery,
  LineHit,
  NameHit,
  NameQuery,
  PassageHit,
  SearchFilter,
  SearchIndex,
  SegmentDoc,
  VectorBacklog,
  VectorKind,
  VectorSource,
  VectorUpdate,
} from './search-index.ts';

/** The reads of the search index port: what each adapter's reads.ts answers. */
export type SearchReads = Pick<
  SearchIndex,
  | 'getParts'
  | 'storedVectors'
  | 'pendingVectorEpisodes'
  | 'vectorSources'
  | 'vectorBacklog'
  | 'keywordLines'
  | 'vectorPassages'
  | 'filterSegments'
  | 'getSegments'
  | 'vectorClips'
  | 'listClips'
  | 'getClips'
  | 'searchNames'
  | 'countEpisodes'
  | 'stats'
>;

/**
 * What both search index adapters share. Their reads are answered by their reads object
 * (`reads`; an adapter overrides a read that must first see its latest writes). Their writers of
 * episode rows (the projector's replacements, the vector filler's updates and settling) take
 * turns in this process: two commits touching the same rows conflict (on LanceDB the loser re-runs
 * its whole merge), and a vector is written only beside a row that carries its key.
 */
export abstract class SearchAdapter implements SearchReads {
  protected abstract readonly reads: SearchReads;
  private writing: Promise<unknown> = Promise.resolve();

  /** Runs `work` after the writes before it have settled (succeeded or not). */
  protected inTurn<T>(work: () => Promise<T>): Promise<T> {
    const run = this.writing.catch(() => {}).then(work);
    this.writing = run;
    return run;
  }

  replaceEpisodes(batch: EpisodeDocs[]): Promise<void> {
    return this.inTurn(() => this.replaceEpisodesNow(batch));
  }

  putVectors(kind: VectorKind, updates: VectorUpdate[]): Promise<number> {
    return this.inTurn(() => this.putVectorsNow(kind, updates));
  }

  settleVectors(episodeIds: string[]): Promise<void> {
    return this.inTurn(() => this.settleVectorsNow(episodeIds));
  }

  protected abstract replaceEpisodesNow(batch: EpisodeDocs[]): Promise<void>;
  protected abstract putVectorsNow(kind: VectorKind, updates: VectorUpdate[]): Promise<number>;
  protected abstract settleVectorsNow(episodeIds: string[]): Promise<void>;

  getParts(episodeIds: string[]): Promise<EpisodePart[]> {
    return this.reads.getParts(episodeIds);
  }

  storedVectors(episodeIds: string[]): Promise<Map<string, Float32Array>> {
    return this.reads.storedVectors(episodeIds);
  }

  pendingVectorEpisodes(limit: number): Promise<string[]> {
    return this.reads.pendingVectorEpisodes(limit);
  }

  vectorSources(episodeIds: string[]): Promise<{ passages: VectorSource[]; clips: VectorSource[] }> {
    return this.reads.vectorSources(episodeIds);
  }

  /**
   * Counted between writes, in turn with them: a replacement deletes an episode's vectors and rows
   * before it writes them again, so a count taken mid-write reads a backlog that never was (on
   * LanceDB, a batch of every episode read as `total` 0 until its rows were back).
   */
  vectorBacklog(): Promise<VectorBacklog> {
    return this.inTurn(() => this.vectorBacklogNow());
  }

  /** The backlog once the writes before it have settled (an adapter first makes them visible). */
  protected vectorBacklogNow(): Promise<VectorBacklog> {
    return this.reads.vectorBacklog();
  }

  keywordLines(
    query: KeywordQuery,
    filter: SearchFilter,
    limit: number,
    options: { withTerms?: boolean } = {},
  ): Promise<LineHit[]> {
    return this.reads.keywordLines(query, filter, limit, options);
  }

  vectorPassages(
    vector: Float32Array,
    filter: SearchFilter,
    limit: number,
    options: { withVectors?: boolean } = {},
  ): Promise<PassageHit[]> {
    return this.reads.vectorPassages(vector, filter, limit, options);
  }

  filterSegments(filter: SearchFilter, limit: number, offset: number): Promise<LineHit[]> {
    return this.reads.filterSegments(filter, limit, offset);
  }

  getSegments(ids: string[]): Promise<SegmentDoc[]> {
    return this.reads.getSegments(ids);
  }

  vectorClips(vector: Float32Array, filter: SearchFilter, limit: number): Promise<ClipHit[]> {
    return this.reads.vectorClips(vector, filter, limit);
  }

  listClips(filter: SearchFilter, order: ClipOrder, limit: number, offset: number): Promise<ClipHit[]> {
    return this.reads.listClips(filter, order, limit, offset);
  }

  getClips(ids: string[]): Promise<ClipDoc[]> {
    return this.reads.getClips(ids);
  }

  searchNames(query: NameQuery, limit: number): Promise<NameHit[]> {
    return this.reads.searchNames(query, limit);
  }

  countEpisodes(keys: string[]): Promise<Map<string, number>> {
    return this.reads.countEpisodes(keys);
  }

  stats(): Promise<IndexStats> {
    return this.reads.stats();
  }
}
