import fs from 'node:fs';
import path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import {
  BooleanQuery,
  type FullTextQuery,
  Index,
  MatchQuery,
  Occur,
  PhraseQuery,
  type Table,
} from '@lancedb/lancedb';
import {
  Table as ArrowTable,
  Field,
  FixedSizeList,
  Float32,
  Float64,
  Int32,
  List,
  makeData,
  makeVector,
  Schema,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
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

/** Vector size used for a new index when no embeddings model is available yet. */
const DEFAULT_DIMENSIONS = 384;
/**
 * A refresh rewrites every fragment that lost more than a tenth of its rows to replacements; on a
 * million-line table that takes minutes, and writers wait for it. Pausing at least this many times
 * its duration between refreshes keeps writers going most of the time during a backfill.
 */
const REFRESH_PAUSE_FACTOR = 3;

export interface LanceDbSearchIndexOptions extends SearchIndexOptions {
  /** Lines with vectors needed before an ANN index is trained; below it, search is exact. */
  vectorIndexMinRows?: number;
  /**
   * Shortest pause between two scheduled refreshes (compaction + incremental indexing). A refresh
   * that took longer stretches the pause to `REFRESH_PAUSE_FACTOR` times its duration.
   */
  refreshIntervalMs?: number;
  /** Quiet time after the last write before a scheduled refresh starts. */
  refreshDelayMs?: number;
  /** Where a failed background refresh is reported. */
  onRefreshError?: (err: unknown) => void;
}

type TableName = 'lines' | 'segments' | 'clips' | 'episodes' | 'names' | 'parts';
/** Every table: those queried by filter, the vectors kept beside lines and clips, the filler's list. */
type StoreTable = TableName | 'line_vectors' | 'clip_vectors' | 'pending';
/** Where each kind of row keeps its vectors. */
const VECTORS = { lines: 'line_vectors', clips: 'clip_vectors' } as const;
/** Layout of the tables; an index of another layout is refused at open (rebuild it). */
const LAYOUT = 2;

/**
 * How long a scheduled refresh waits: at least `delayMs` of quiet, and no sooner than `intervalMs`
 * — or REFRESH_PAUSE_FACTOR times the last refresh's duration, when that is longer — after the
 * last refresh ended.
 */
export function refreshWait(t: {
  now: number;
  lastRefreshAt: number;
  lastRefreshMs: number;
  intervalMs: number;
  delayMs: number;
}): number {
  const pause = Math.max(t.intervalMs, REFRESH_PAUSE_FACTOR * t.lastRefreshMs);
  return Math.max(t.delayMs, t.lastRefreshAt + pause - t.now);
}

const list = (name: string) => new Field(name, new List(new Field('item', new Utf8(), true)), false);
const str = (name: string, nullable = false) => new Field(name, new Utf8(), nullable);
const f64 = (name: string) => new Field(name, new Float64(), false);
const vec = (dims: number) =>
  new Field('vector', new FixedSizeList(dims, new Field('item', new Float32(), true)), false);

function schemas(dims: number): Record<StoreTable, Schema> {
  const episodeFields = [
    str('episode_id'),
    str('podcast_id'),
    f64('published_at'),
    str('language'),
    list('entity_keys'),
  ];
  const lineFields = [
    str('id'),
    ...episodeFields,
    str('segment_id'),
    str('segment_type'),
    new Field('number', new Int32(), false),
    str('text'),
    str('vector_key', true),
  ];
  const clipFields = [
    str('id'),
    ...episodeFields,
    str('type'),
    str('segment_id', true),
    f64('engagement_score'),
    list('clip_entity_keys'),
    str('speaker_person_id', true),
    str('vector_key', true),
  ];
  return {
    lines: new Schema(lineFields),
    line_vectors: new Schema([...lineFields, vec(dims)]),
    segments: new Schema([
      str('id'),
      ...episodeFields,
      str('type'),
      new Field('number', new Int32(), false),
      list('segment_entity_keys'),
      str('doc'),
    ]),
    clips: new Schema([...clipFields, str('text'), str('doc')]),
    clip_vectors: new Schema([...clipFields, vec(dims)]),
    episodes: new Schema([str('id'), str('podcast_id'), f64('published_at'), list('entity_keys')]),
    pending: new Schema([str('id'), f64('published_at')]),
    names: new Schema([
      str('id'),
      str('kind'),
      str('names'),
      str('prefixes'),
      f64('popularity'),
      str('record'),
    ]),
    parts: new Schema([str('id'), str('episode_id'), str('part'), str('payload')]),
  };
}

/** Columns each table filters on, by SearchFilter field. */
const FILTER_COLUMNS: Record<TableName, FilterFields> = FILTER_FIELDS;

/**
 * Filters are SQL predicates (DataFusion), so every value is written as a typed literal and
 * nothing else reaches the text: a string is quoted with its quotes doubled (backslashes are
 * literal in DataFusion strings), a number only when it is finite (`Infinity` would read as a
 * column name), and column names come from FILTER_FIELDS, never from input.
 */
export function sqlString(value: string): string {
  if (typeof value !== 'string') throw new TypeError(`a filter string is a ${typeof value}`);
  return `'${value.replaceAll("'", "''")}'`;
}

export function sqlNumber(value: number): string {
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new RangeError(`a filter number must be finite, not ${String(value)}`);
  return String(value);
}

function inList(column: string, values: readonly string[]): string {
  return `${column} IN (${values.map(sqlString).join(', ')})`;
}

function anyOf(column: string, keys: readonly string[]): string {
  return `array_has_any(${column}, [${keys.map(sqlString).join(', ')}])`;
}

/** SearchFilter → SQL predicate for `table`; refuses fields the table does not carry. */
export function filterSql(table: TableName, filter: SearchFilter): string | undefined {
  const columns = FILTER_COLUMNS[table];
  const clauses: string[] = [];
  const column = (field: keyof SearchFilter) => {
    const c = columns[field];
    if (!c) throw new Error(`the ${table} index cannot filter on ${field}`);
    return c;
  };
  const ids = (field: keyof SearchFilter, values: readonly string[] | undefined) => {
    if (values === undefined) return;
    clauses.push(values.length === 0 ? 'false' : inList(column(field), values));
  };
  ids('episodeIds', filter.episodeIds);
  ids('podcastIds', filter.podcastIds);
  ids('segmentTypes', filter.segmentTypes);
  ids('clipTypes', filter.clipTypes);
  ids('segmentIds', filter.segmentIds);
  ids('speakerPersonIds', filter.speakerPersonIds);
  if (filter.publishedFrom !== undefined)
    clauses.push(`${column('publishedFrom')} >= ${sqlNumber(filter.publishedFrom)}`);
  if (filter.publishedBefore !== undefined)
    clauses.push(`${column('publishedBefore')} < ${sqlNumber(filter.publishedBefore)}`);
  if (filter.minEngagement !== undefined)
    clauses.push(`${column('minEngagement')} >= ${sqlNumber(filter.minEngagement)}`);
  for (const field of ['keys', 'segmentKeys', 'clipKeys'] as const) {
    for (const group of filter[field] ?? []) {
      clauses.push(group.length === 0 ? 'false' : anyOf(column(field), group));
    }
  }
  return clauses.length > 0 ? clauses.join(' AND ') : undefined;
}

function keywordFts(q: KeywordQuery, column: string): FullTextQuery {
  const must: [Occur, FullTextQuery][] = q.phrases.map((p) => [Occur.Must, new PhraseQuery(p, column)]);
  if (q.words.length > 0) {
    const words = new MatchQuery(q.words.join(' '), column);
    if (must.length === 0) return words;
    must.push([Occur.Should, words]);
  }
  if (must.length === 1) return must[0]![1];
  return new BooleanQuery(must);
}

/**
 * Rows of a vector table as one Arrow table in that table's schema: the vectors copied into one
 * buffer (no per-number boxing), the other columns converted by their declared types.
 */
function vectorRows(schema: Schema, rows: VectorRow[]): ArrowTable {
  const columns: Record<string, ReturnType<typeof vectorFromArray>> = {};
  for (const field of schema.fields) {
    if (field.name !== 'vector') {
      columns[field.name] = vectorFromArray(
        rows.map((r) => r[field.name] ?? null),
        field.type,
      );
      continue;
    }
    const dims = (field.type as FixedSizeList).listSize;
    const flat = new Float32Array(rows.length * dims);
    rows.forEach((r, i) => {
      if (r.vector.length !== dims)
        throw new Error(`a ${r.vector.length}-dimension vector for a ${dims}-dimension index`);
      flat.set(r.vector, i * dims);
    });
    const child = makeData({ type: new Float32(), length: flat.length, data: flat });
    columns.vector = makeVector(
      makeData({ type: field.type as FixedSizeList, length: rows.length, nullCount: 0, child }),
    ) as never;
  }
  return new ArrowTable(columns);
}

/** A row of `line_vectors` or `clip_vectors`: the row's filter fields, its vector key and vector. */
type VectorRow = Record<string, unknown> & { id: string; vector: Float32Array };

/** `<episode id>:<line number>` → the episode id. */
function episodeOfLine(lineId: string): string {
  return lineId.slice(0, lineId.lastIndexOf(':'));
}

interface Meta {
  dimensions: number;
  model: string | null;
  /** Rows each ANN index was trained on. */
  vectorIndexRows?: Partial<Record<'lines' | 'clips', number>>;
}

const META_FILE = 'earshot-search.json';

/**
 * Embedded search index on LanceDB (one directory, one table per document kind). BM25 comes from
 * LanceDB's full-text index (tantivy-style inverted index with positions, so phrase queries are
 * exact); vectors are searched exactly until `vectorIndexMinRows` lines carry one, then through
 * an IVF-HNSW index with scalar quantisation (dot product); filters are SQL predicates applied before ranking.
 */
export class LanceDbSearchIndex implements SearchIndex {
  readonly kind = 'lancedb';
  private db?: lancedb.Connection;
  private readonly tables = new Map<StoreTable, Table>();
  private meta?: Meta;
  private lastRefresh = 0;
  private lastRefreshMs = 0;
  private refreshing: Promise<void> = Promise.resolve();
  private dirty = new Set<StoreTable>();
  private readonly opts: Required<Omit<LanceDbSearchIndexOptions, 'dimensions' | 'model'>>;
  private refreshTimer?: NodeJS.Timeout;
  private closed = false;
  private schemaCache?: Record<StoreTable, Schema>;
  /**
   * Writers of episode rows (the projector's replacements, the vector filler's updates) take turns:
   * two commits touching the same fragments conflict, and the loser re-runs its whole merge.
   */
  private writing: Promise<unknown> = Promise.resolve();

  constructor(
    readonly dir: string,
    private readonly options: LanceDbSearchIndexOptions = {},
  ) {
    this.opts = {
      vectorIndexMinRows: options.vectorIndexMinRows ?? 100_000,
      refreshIntervalMs: options.refreshIntervalMs ?? 30_000,
      refreshDelayMs: options.refreshDelayMs ?? 1_000,
      onRefreshError: options.onRefreshError ?? (() => {}),
    };
  }

  get dimensions(): number | undefined {
    return this.meta?.dimensions;
  }

  get model(): string | undefined {
    return this.meta?.model ?? undefined;
  }

  async open(): Promise<void> {
    fs.mkdirSync(this.dir, { recursive: true });
    const metaFile = path.join(this.dir, META_FILE);
    if (fs.existsSync(metaFile)) {
      this.meta = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as Meta;
      if (!this.meta.model && this.options.model && this.options.dimensions === this.meta.dimensions) {
        this.meta.model = this.options.model;
        fs.writeFileSync(metaFile, JSON.stringify(this.meta));
      }
    } else {
      this.meta = {
        dimensions: this.options.dimensions ?? DEFAULT_DIMENSIONS,
        model: this.options.model ?? null,
      };
      fs.writeFileSync(metaFile, JSON.stringify(this.meta));
    }
    this.db = await lancedb.connect(this.dir, { readConsistencyInterval: 1 });
    const existing = new Set(await this.db.tableNames());
    const defs = schemas(this.meta.dimensions);
    if (existing.has('lines')) {
      const lines = await this.db.openTable('lines');
      const fields = (await lines.schema()).fields.map((f) => f.name);
      lines.close();
      if (fields.includes('vector')) {
        throw new Error(
          `the search index in ${this.dir} has an earlier layout (vectors inside the line rows, layout 1; ` +
            `this version uses layout ${LAYOUT}); rebuild it with the service stopped: npx earshot projections rebuild search`,
        );
      }
    }
    for (const name of Object.keys(defs) as StoreTable[]) {
      const table = existing.has(name)
        ? await this.db.openTable(name)
        : await this.db.createEmptyTable(name, defs[name], { mode: 'create', existOk: true });
      this.tables.set(name, table);
    }
    await this.ensureScalarIndexes();
    // Full-text indexes from the start, even on empty tables: rows written before the first
    // refresh are then searched with the index's tokenizer. With no index yet, LanceDB tokenized
    // them otherwise: "Welcome to another Episode, friends." did not match the word `episode`.
    await this.ensureTextIndexes();
  }

  private table(name: StoreTable): Table {
    const t = this.tables.get(name);
    if (!t) throw new Error('search index is not open');
    return t;
  }

  private async ensureScalarIndexes(): Promise<void> {
    const wanted: [StoreTable, string, Index][] = [
      ['lines', 'episode_id', Index.btree()],
      ['lines', 'entity_keys', Index.labelList()],
      ['line_vectors', 'episode_id', Index.btree()],
      ['line_vectors', 'entity_keys', Index.labelList()],
      ['segments', 'id', Index.btree()],
      ['segments', 'episode_id', Index.btree()],
      ['segments', 'entity_keys', Index.labelList()],
      ['segments', 'segment_entity_keys', Index.labelList()],
      ['clips', 'id', Index.btree()],
      ['clips', 'episode_id', Index.btree()],
      ['clips', 'clip_entity_keys', Index.labelList()],
      ['clip_vectors', 'episode_id', Index.btree()],
      ['clip_vectors', 'clip_entity_keys', Index.labelList()],
      ['episodes', 'id', Index.btree()],
      ['episodes', 'entity_keys', Index.labelList()],
      ['names', 'id', Index.btree()],
      ['parts', 'episode_id', Index.btree()],
    ];
    for (const [tableName, column, config] of wanted) {
      await this.ensureIndex(tableName, column, config);
    }
  }

  private async ensureIndex(tableName: StoreTable, column: string, config: Index): Promise<void> {
    const table = this.table(tableName);
    const indices = await table.listIndices();
    if (indices.some((i) => i.columns.length === 1 && i.columns[0] === column)) return;
    // Scalar and full-text indexes can be built on an empty table; vector indexes need data.
    await table.createIndex(column, { config, replace: false });
  }

  private async ensureTextIndexes(): Promise<void> {
    const fts = () =>
      Index.fts({
        withPosition: true,
        baseTokenizer: 'simple',
        lowercase: true,
        asciiFolding: true,
        stem: false,
        removeStopWords: false,
        maxTokenLength: 40,
      });
    await this.ensureIndex('lines', 'text', fts());
    await this.ensureIndex('names', 'names', fts());
    await this.ensureIndex(
      'names',
      'prefixes',
      Index.fts({
        withPosition: false,
        baseTokenizer: 'whitespace',
        lowercase: false,
        stem: false,
        removeStopWords: false,
        asciiFolding: false,
      }),
    );
  }

  async putParts(parts: EpisodePart[]): Promise<void> {
    if (parts.length === 0) return;
    const latest = new Map(parts.map((p) => [`${p.episode_id}/${p.part}`, p]));
    await this.upsert(
      'parts',
      [...latest.entries()].map(([id, p]) => ({ id, ...p })),
    );
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
      for (const name of ['line_vectors', 'clip_vectors'] as const) {
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

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.writing.catch(() => {}).then(work);
    this.writing = run;
    return run;
  }

  replaceEpisodes(batch: EpisodeDocs[]): Promise<void> {
    return this.exclusive(() => this.replaceEpisodesNow(batch));
  }

  private async replaceEpisodesNow(batch: EpisodeDocs[]): Promise<void> {
    if (batch.length === 0) return;
    const ids = batch.map((b) => b.episode_id);
    const lines = batch.flatMap((b) => b.lines);
    const clips = batch.flatMap((b) => b.clips);
    const rows: Record<
      Exclude<StoreTable, 'names' | 'parts' | 'line_vectors' | 'clip_vectors'>,
      Record<string, unknown>[]
    > = {
      lines: lines.map(lineFields),
      segments: batch.flatMap((b) =>
        b.segments.map((s) => ({ ...segmentFields(s), doc: JSON.stringify(s) })),
      ),
      clips: clips.map((c) => ({ ...clipFields(c), text: c.text, doc: JSON.stringify(clipDocument(c)) })),
      episodes: batch.map((b) => ({ ...b.episode })),
      pending: waitingForVectors(batch).map((b) => ({
        id: b.episode_id,
        published_at: b.episode.published_at,
      })),
    };
    // Vectors the episodes keep (same key), beside their rows.
    const vectorRowsOf = {
      line_vectors: lines.filter((l) => l.vector).map((l) => ({ ...lineFields(l), vector: l.vector! })),
      clip_vectors: clips.filter((c) => c.vector).map((c) => ({ ...clipFields(c), vector: c.vector! })),
    };
    // Vectors go first and come back last, so that `vectorBacklog` never counts below zero.
    const order = [
      'line_vectors',
      'clip_vectors',
      'lines',
      'segments',
      'clips',
      'episodes',
      'pending',
    ] as const;
    for (const name of order) {
      const table = this.table(name);
      const column = name === 'episodes' || name === 'pending' ? 'id' : 'episode_id';
      for (const part of chunks(ids, 500)) {
        const predicate = inList(column, part);
        if ((await table.countRows(predicate)) > 0) {
          await table.delete(predicate);
          this.dirty.add(name);
        }
      }
    }
    for (const name of ['lines', 'segments', 'clips', 'episodes', 'pending'] as const) {
      if (rows[name].length > 0) {
        await this.table(name).add(rows[name]);
        this.dirty.add(name);
      }
    }
    for (const name of ['line_vectors', 'clip_vectors'] as const) {
      if (vectorRowsOf[name].length > 0) {
        const table = this.table(name);
        await table.add(vectorRows(this.schemaOf(name), vectorRowsOf[name]));
        this.dirty.add(name);
      }
    }
  }

  /** The table's schema (the Arrow rows written must match it field for field). */
  private schemaOf(name: StoreTable): Schema {
    this.schemaCache ??= schemas(this.meta!.dimensions);
    return this.schemaCache[name];
  }

  async upsertNames(docs: NameDoc[]): Promise<void> {
    if (docs.length === 0) return;
    const latest = new Map(docs.map((d) => [d.id, d]));
    await this.upsert(
      'names',
      [...latest.values()].map((d) => ({
        id: d.id,
        kind: d.kind,
        names: d.names.join(' ; '),
        prefixes: namePrefixes(d.names).join(' '),
        popularity: d.popularity,
        record: d.record,
      })),
    );
  }

  private async upsert(name: StoreTable, rows: Record<string, unknown>[]): Promise<void> {
    await this.table(name).mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows);
    this.dirty.add(name);
  }

  /**
   * Folds new rows into the full-text and vector indexes and compacts small fragments, so phrase
   * queries (answered from the index only) see every row written so far. On a table under a
   * million rows compaction rewrites most of it, so the projector schedules refreshes instead.
   */
  refresh(): Promise<void> {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = undefined;
    // Compaction rewrites the fragments the writers touch: it takes its turn with them.
    this.refreshing = this.refreshing.catch(() => {}).then(() => this.exclusive(() => this.refreshNow()));
    return this.refreshing;
  }

  /**
   * A refresh once writes pause for `refreshDelayMs`, at most one per `refreshIntervalMs`; runs in
   * the background while writes go on. Until it has run, phrase queries miss the newest rows
   * (word and vector queries see them at once).
   */
  scheduleRefresh(): void {
    if (this.closed) return;
    clearTimeout(this.refreshTimer);
    const wait = refreshWait({
      now: Date.now(),
      lastRefreshAt: this.lastRefresh,
      lastRefreshMs: this.lastRefreshMs,
      intervalMs: this.opts.refreshIntervalMs,
      delayMs: this.opts.refreshDelayMs,
    });
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      this.refresh().catch((err) => {
        this.opts.onRefreshError(err);
        this.scheduleRefresh();
      });
    }, wait);
    this.refreshTimer.unref();
  }

  private async refreshNow(): Promise<void> {
    const dirty = [...this.dirty];
    this.dirty.clear();
    if (dirty.length === 0) return;
    const started = Date.now();
    try {
      await this.ensureTextIndexes();
      for (const name of dirty) {
        const table = this.table(name);
        await table.optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) });
      }
      for (const kind of ['lines', 'clips'] as const) {
        if (dirty.includes(VECTORS[kind])) await this.ensureVectorIndex(kind);
      }
    } catch (err) {
      for (const name of dirty) this.dirty.add(name);
      throw err;
    } finally {
      this.lastRefresh = Date.now();
      this.lastRefreshMs = this.lastRefresh - started;
    }
  }

  /**
   * Trains the ANN index once `vectorIndexMinRows` vectors exist, and again (replacing it) each
   * time the table has grown fourfold since: partitions trained on a small sample fit a grown
   * table poorly. In between, refreshes add new rows to the existing partitions.
   */
  private async ensureVectorIndex(name: 'lines' | 'clips'): Promise<void> {
    const table = this.table(VECTORS[name]);
    const indices = await table.listIndices();
    const existing = indices.find((i) => i.columns[0] === 'vector');
    const rows = await table.countRows();
    if (rows < this.opts.vectorIndexMinRows) return;
    const trainedOn = this.meta?.vectorIndexRows?.[name] ?? 0;
    if (existing && rows < trainedOn * 4) return;
    await table.createIndex('vector', {
      replace: true,
      config: Index.hnswSq({
        distanceType: 'dot',
        numPartitions: Math.max(1, Math.round(Math.sqrt(rows) / 8)),
      }),
    });
    this.meta = { ...this.meta!, vectorIndexRows: { ...this.meta?.vectorIndexRows, [name]: rows } };
    fs.writeFileSync(path.join(this.dir, META_FILE), JSON.stringify(this.meta));
  }

  async pendingVectorEpisodes(limit: number): Promise<string[]> {
    const rows = await this.table('pending').query().select(['id']).limit(limit).toArray();
    return rows.map((r) => r.id as string);
  }

  /** Keys of the stored vectors of these episodes' lines or clips, by row id. */
  private async vectorKeys(
    kind: 'lines' | 'clips',
    episodeIds: string[],
  ): Promise<Map<string, string | null>> {
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

  async vectorSources(episodeIds: string[]): Promise<{ lines: LineSource[]; clips: ClipSource[] }> {
    const lines: LineSource[] = [];
    const clips: ClipSource[] = [];
    const [lineVectors, clipVectors] = [
      await this.vectorKeys('lines', episodeIds),
      await this.vectorKeys('clips', episodeIds),
    ];
    for (const ids of chunks([...new Set(episodeIds)], 500)) {
      const where = inList('episode_id', ids);
      for (const r of await this.table('lines')
        .query()
        .where(where)
        .select(['id', 'episode_id', 'segment_id', 'number', 'text', 'vector_key'])
        .toArray()) {
        const key = r.vector_key ?? null;
        lines.push({
          id: r.id,
          episode_id: r.episode_id,
          segment_id: r.segment_id,
          number: r.number,
          text: r.text,
          vector_key: key,
          has_vector: hasVector(key, lineVectors, r.id),
        });
      }
      for (const r of await this.table('clips')
        .query()
        .where(where)
        .select(['id', 'episode_id', 'text', 'vector_key'])
        .toArray()) {
        const key = r.vector_key ?? null;
        clips.push({
          id: r.id,
          episode_id: r.episode_id,
          text: r.text,
          vector_key: key,
          has_vector: hasVector(key, clipVectors, r.id),
        });
      }
    }
    return { lines, clips };
  }

  putVectors(kind: 'lines' | 'clips', updates: VectorUpdate[]): Promise<number> {
    return this.exclusive(() => this.putVectorsNow(kind, updates));
  }

  private async putVectorsNow(kind: 'lines' | 'clips', updates: VectorUpdate[]): Promise<number> {
    if (updates.length === 0) return 0;
    const latest = new Map(updates.map((u) => [u.id, u]));
    // The rows as they are now (filter fields copied beside the vector), read by episode for
    // lines (`<episode>:<number>`) and by id for clips (both indexed columns).
    const where =
      kind === 'lines'
        ? (ids: string[]) => inList('episode_id', [...new Set(ids.map(episodeOfLine))])
        : (ids: string[]) => inList('id', ids);
    const current = new Map<string, Record<string, unknown>>();
    const vectorSchema = this.schemaOf(VECTORS[kind]);
    const columns = vectorSchema.fields.map((f) => f.name).filter((n) => n !== 'vector');
    for (const ids of chunks([...latest.keys()], 500)) {
      for (const r of await this.table(kind).query().where(where(ids)).select(columns).toArray()) {
        if (!latest.has(r.id)) continue;
        // Arrow rows to plain values: list columns (entity keys) come back as Arrow vectors.
        const row: Record<string, unknown> = {};
        for (const c of columns) {
          const v = r[c];
          row[c] = v !== null && typeof v === 'object' && 'toArray' in v ? [...v.toArray()] : v;
        }
        current.set(r.id, row);
      }
    }
    const stored = await this.vectorKeys(kind, [
      ...new Set([...current.values()].map((r) => r.episode_id as string)),
    ]);
    // Only into rows that still carry the update's key (or none) and hold no vector of their key;
    // a row replaced by the projector since it was read is left as it is.
    const rows: VectorRow[] = [];
    const stale: string[] = [];
    for (const [id, u] of latest) {
      const row = current.get(id);
      if (!row) continue;
      const key = (row.vector_key as string | null) ?? null;
      if (key !== null && key !== u.vector_key) continue;
      if (hasVector(key, stored, id)) continue;
      if (stored.has(id)) stale.push(id);
      rows.push({ ...row, id, vector_key: u.vector_key, vector: u.vector });
    }
    if (rows.length === 0) return 0;
    const table = this.table(VECTORS[kind]);
    for (const ids of chunks(stale, 500)) await table.delete(inList('id', ids));
    await table.add(vectorRows(vectorSchema, rows));
    this.dirty.add(VECTORS[kind]);
    return rows.length;
  }

  settleVectors(episodeIds: string[]): Promise<void> {
    return this.exclusive(async () => {
      const unique = [...new Set(episodeIds)];
      if (unique.length === 0) return;
      const { lines, clips } = await this.vectorSources(unique);
      const open = new Set([...lines, ...clips].filter((r) => !r.has_vector).map((r) => r.episode_id));
      const done = unique.filter((id) => !open.has(id));
      for (const ids of chunks(done, 500)) {
        const predicate = inList('id', ids);
        if ((await this.table('pending').countRows(predicate)) > 0) {
          await this.table('pending').delete(predicate);
          this.dirty.add('pending');
        }
      }
    });
  }

  async vectorBacklog(): Promise<VectorBacklog> {
    const [lines, lineVectors, clips, clipVectors] = await Promise.all([
      this.table('lines').countRows(),
      this.table('line_vectors').countRows(),
      this.table('clips').countRows(),
      this.table('clip_vectors').countRows(),
    ]);
    return { lines: Math.max(0, lines - lineVectors), clips: Math.max(0, clips - clipVectors) };
  }

  async keywordLines(query: KeywordQuery, filter: SearchFilter, limit: number): Promise<LineHit[]> {
    let q = this.table('lines').query().fullTextSearch(keywordFts(query, 'text'));
    const where = filterSql('lines', filter);
    if (where) q = q.where(where);
    const rows = await q
      .select(['id', 'segment_id', 'episode_id', 'number', 'published_at', '_score'])
      .limit(limit)
      .toArray();
    return rows.map((r) => lineHit(r, r._score));
  }

  async vectorLines(
    vector: Float32Array,
    filter: SearchFilter,
    limit: number,
    options: { withVectors?: boolean } = {},
  ): Promise<LineHit[]> {
    let q = this.table('line_vectors')
      .query()
      .nearestTo(Array.from(vector))
      .distanceType('dot')
      .ef(Math.max(64, limit * 2))
      .nprobes(20)
      .refineFactor(2);
    const where = filterSql('lines', filter);
    if (where) q = q.where(where);
    const columns = ['id', 'segment_id', 'episode_id', 'number', 'published_at', '_distance'];
    if (options.withVectors) columns.push('text', 'vector');
    const rows = await q.select(columns).limit(limit).toArray();
    return rows.map((r) => {
      // LanceDB's dot distance is 1 − a·b.
      const hit = lineHit(r, 1 - r._distance);
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

  async getSegments(ids: string[]): Promise<SegmentDoc[]> {
    const out = new Map<string, SegmentDoc>();
    for (const part of chunks([...new Set(ids)], 500)) {
      const rows = await this.table('segments')
        .query()
        .where(inList('id', part))
        .select(['id', 'doc'])
        .toArray();
      for (const r of rows) out.set(r.id, JSON.parse(r.doc) as SegmentDoc);
    }
    return ids.map((id) => out.get(id)).filter((s): s is SegmentDoc => s !== undefined);
  }

  async vectorClips(vector: Float32Array, filter: SearchFilter, limit: number): Promise<ClipHit[]> {
    let q = this.table('clip_vectors')
      .query()
      .nearestTo(Array.from(vector))
      .distanceType('dot')
      .ef(Math.max(64, limit * 2))
      .nprobes(20)
      .refineFactor(2);
    const where = filterSql('clips', filter);
    if (where) q = q.where(where);
    const rows = await q
      .select(['id', 'published_at', 'engagement_score', '_distance'])
      .limit(limit)
      .toArray();
    return rows.map((r) => ({
      id: r.id,
      published_at: r.published_at,
      engagement_score: r.engagement_score,
      score: 1 - r._distance,
    }));
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
    return rows.map((r) => ({
      id: r.id,
      published_at: r.published_at,
      engagement_score: r.engagement_score,
      score: 0,
    }));
  }

  async getClips(ids: string[]): Promise<ClipDoc[]> {
    const out = new Map<string, ClipDoc>();
    for (const part of chunks([...new Set(ids)], 500)) {
      const rows = await this.table('clips')
        .query()
        .where(inList('id', part))
        .select(['id', 'doc', 'clip_entity_keys', 'entity_keys'])
        .toArray();
      for (const r of rows) out.set(r.id, { ...(JSON.parse(r.doc) as ClipDoc), vector: null });
    }
    return ids.map((id) => out.get(id)).filter((c): c is ClipDoc => c !== undefined);
  }

  async searchNames(query: NameQuery, limit: number): Promise<NameHit[]> {
    const words = query.words.flatMap((w) => analyze(w));
    if (words.length === 0 || query.kinds.length === 0) return [];
    // The fuzzy prefix is the first letter; LanceDB counts it in UTF-8 bytes (and panics when
    // the cut falls inside a letter), so it is given as that letter's byte length.
    const prefixLength = (w: string) =>
      w.length > 3 ? Buffer.byteLength(String.fromCodePoint(w.codePointAt(0)!)) : 0;
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
    const [lines, linesWithVectors, segments, clips, names] = await Promise.all([
      this.table('lines').countRows(),
      this.table('line_vectors').countRows(),
      this.table('segments').countRows(),
      this.table('clips').countRows(),
      this.table('names').countRows(),
    ]);
    return { lines, linesWithVectors, segments, clips, names };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.refreshTimer);
    await this.refreshing.catch(() => {});
    for (const t of this.tables.values()) t.close();
    this.tables.clear();
    this.db?.close();
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
