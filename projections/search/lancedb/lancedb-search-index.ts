import fs from 'node:fs';
import path from 'node:path';
import type { Table } from '@lancedb/lancedb';
import * as lancedb from '@lancedb/lancedb';
import type { Schema } from 'apache-arrow';
import {
  chunks,
  clipDocument,
  clipFields,
  hasVector,
  passageFields,
  segmentFields,
  waitingForVectors,
} from '../index-rows.ts';
import { namePrefixes } from '../name-match.ts';
import { SearchAdapter } from '../search-adapter.ts';
import type {
  EpisodeDocs,
  EpisodePart,
  NameDoc,
  SearchIndex,
  SearchIndexOptions,
  VectorKind,
  VectorUpdate,
} from '../search-index.ts';
import { indexTerms } from '../text-analysis.ts';
import { CarriedVectors } from './carried-vectors.ts';
import { inList } from './filters.ts';
import { ensureScalarIndexes, ensureTextIndexes, trainVectorIndex } from './indexes.ts';
import { LanceDbReads } from './reads.ts';
import { RefreshSchedule } from './refresh.ts';
import {
  DEFAULT_DIMENSIONS,
  LAYOUT,
  META_FILE,
  type Meta,
  type StoreTable,
  schemas,
  VECTORS,
  type VectorRow,
  vectorRows,
} from './tables.ts';

/**
 * The LanceDB search index adapter, the entry of this folder: the tables and their schemas
 * (tables.ts), filters as SQL predicates (filters.ts), indexes (indexes.ts), refresh scheduling
 * (refresh.ts), reads (reads.ts, answered through SearchAdapter); writes are here.
 */
export { clearKeepingVectors } from './carried-vectors.ts';
export { filterSql, sqlNumber, sqlString } from './filters.ts';
export { refreshWait } from './refresh.ts';

export interface LanceDbSearchIndexOptions extends SearchIndexOptions {
  /** Passages with vectors needed before an ANN index is trained; below it, search is exact. */
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

/**
 * Embedded search index on LanceDB (one directory, one table per document kind). BM25 comes from
 * LanceDB's full-text index (tantivy-style inverted index with positions, so phrase queries are
 * exact); vectors are searched exactly until `vectorIndexMinRows` lines carry one, then through
 * an IVF-HNSW index with scalar quantisation (dot product); filters are SQL predicates applied before ranking.
 */
export class LanceDbSearchIndex extends SearchAdapter implements SearchIndex {
  readonly kind = 'lancedb';
  private db?: lancedb.Connection;
  private readonly tables = new Map<StoreTable, Table>();
  private meta?: Meta;
  private dirty = new Set<StoreTable>();
  private readonly vectorIndexMinRows: number;
  private readonly refreshes: RefreshSchedule;
  protected readonly reads: LanceDbReads;
  private schemaCache?: Record<StoreTable, Schema>;
  private carried?: CarriedVectors;

  constructor(
    readonly dir: string,
    private readonly options: LanceDbSearchIndexOptions = {},
  ) {
    super();
    this.vectorIndexMinRows = options.vectorIndexMinRows ?? 100_000;
    this.refreshes = new RefreshSchedule(() => this.refreshNow(), {
      intervalMs: options.refreshIntervalMs ?? 30_000,
      delayMs: options.refreshDelayMs ?? 1_000,
      onError: options.onRefreshError ?? (() => {}),
      // Compaction rewrites the fragments the writers touch: it takes its turn with them.
      inTurn: (work) => this.inTurn(work),
    });
    this.reads = new LanceDbReads((name) => this.table(name));
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
    this.db = await lancedb.connect(this.dir, { readConsistencyInterval: 1 });
    const existing = new Set(await this.db.tableNames());
    if (fs.existsSync(metaFile)) {
      this.meta = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as Meta;
      let changed = false;
      if (!this.meta.model && this.options.model && this.options.dimensions === this.meta.dimensions) {
        this.meta.model = this.options.model;
        changed = true;
      }
      // A meta file without tables (nothing indexed yet) takes this layout.
      if (!existing.has('lines') && this.meta.layout !== LAYOUT) {
        this.meta.layout = LAYOUT;
        changed = true;
      }
      if (changed) fs.writeFileSync(metaFile, JSON.stringify(this.meta));
    } else {
      this.meta = {
        dimensions: this.options.dimensions ?? DEFAULT_DIMENSIONS,
        model: this.options.model ?? null,
        // Tables without a meta file are of an earlier layout.
        ...(existing.has('lines') ? {} : { layout: LAYOUT }),
      };
      if (!existing.has('lines')) fs.writeFileSync(metaFile, JSON.stringify(this.meta));
    }
    const defs = schemas(this.meta.dimensions);
    if (existing.has('lines') && this.meta.layout !== LAYOUT) {
      throw new Error(
        `the search index in ${this.dir} has an earlier layout (${this.meta.layout ?? 'vectors per line, layout 1 or 2'}; ` +
          `this version uses layout ${LAYOUT}: passages, text analysed once for both engines, every Chinese or Japanese character a word); rebuild it with the service stopped: npx earshot projections rebuild search`,
      );
    }
    for (const name of Object.keys(defs) as StoreTable[]) {
      const table = existing.has(name)
        ? await this.db.openTable(name)
        : await this.db.createEmptyTable(name, defs[name], { mode: 'create', existOk: true });
      this.tables.set(name, table);
    }
    this.carried = await CarriedVectors.open(this.db, this.dir, existing);
    await ensureScalarIndexes((name) => this.table(name));
    // Full-text indexes from the start, even on empty tables: rows written before the first
    // refresh are then searched with the index's tokenizer. With no index yet, LanceDB tokenized
    // them otherwise: "Welcome to another Episode, friends." did not match the word `episode`.
    await ensureTextIndexes((name) => this.table(name));
  }

  private table(name: StoreTable): Table {
    const t = this.tables.get(name);
    if (!t) throw new Error('search index is not open');
    return t;
  }

  async putParts(parts: EpisodePart[]): Promise<void> {
    if (parts.length === 0) return;
    const latest = new Map(parts.map((p) => [`${p.episode_id}/${p.part}`, p]));
    await this.upsert(
      'parts',
      [...latest.entries()].map(([id, p]) => ({ id, ...p })),
    );
  }

  protected async replaceEpisodesNow(batch: EpisodeDocs[]): Promise<void> {
    if (batch.length === 0) return;
    const ids = batch.map((b) => b.episode_id);
    const passages = batch.flatMap((b) => b.passages);
    const clips = batch.flatMap((b) => b.clips);
    const rows: Record<
      Exclude<StoreTable, 'names' | 'parts' | 'passage_vectors' | 'clip_vectors'>,
      Record<string, unknown>[]
    > = {
      lines: batch.flatMap((b) => b.lines.map((l) => ({ ...l, text: indexTerms(l.text) }))),
      passages: passages.map(passageFields),
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
      passage_vectors: passages
        .filter((p) => p.vector)
        .map((p) => ({ ...passageFields(p), vector: p.vector! })),
      clip_vectors: clips.filter((c) => c.vector).map((c) => ({ ...clipFields(c), vector: c.vector! })),
    };
    // Vectors go first and come back last, so that `vectorBacklog` never counts below zero.
    const order = [
      'passage_vectors',
      'clip_vectors',
      'lines',
      'passages',
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
    for (const name of ['lines', 'passages', 'segments', 'clips', 'episodes', 'pending'] as const) {
      if (rows[name].length > 0) {
        await this.table(name).add(rows[name]);
        this.dirty.add(name);
      }
    }
    for (const name of ['passage_vectors', 'clip_vectors'] as const) {
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
        names: d.names.map(indexTerms).join(' '),
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
    return this.refreshes.now();
  }

  /**
   * A refresh once writes pause for `refreshDelayMs`, at most one per `refreshIntervalMs`; runs in
   * the background while writes go on. Until it has run, phrase queries miss the newest rows
   * (word and vector queries see them at once).
   */
  scheduleRefresh(): void {
    this.refreshes.schedule();
  }

  /** Whether there was anything to refresh. */
  private async refreshNow(): Promise<boolean> {
    const dirty = [...this.dirty];
    this.dirty.clear();
    if (dirty.length === 0) return false;
    try {
      await ensureTextIndexes((name) => this.table(name));
      for (const name of dirty) {
        const table = this.table(name);
        await table.optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) });
      }
      for (const kind of ['passages', 'clips'] as const) {
        if (dirty.includes(VECTORS[kind])) await this.ensureVectorIndex(kind);
      }
    } catch (err) {
      for (const name of dirty) this.dirty.add(name);
      throw err;
    }
    return true;
  }

  /** The ANN index of `name`'s vectors, trained (again) when due (indexes.ts); recorded in the meta file. */
  private async ensureVectorIndex(name: VectorKind): Promise<void> {
    const trainedOn = this.meta?.vectorIndexRows?.[name] ?? 0;
    const rows = await trainVectorIndex(this.table(VECTORS[name]), this.vectorIndexMinRows, trainedOn);
    if (rows === undefined) return;
    this.meta = { ...this.meta!, vectorIndexRows: { ...this.meta?.vectorIndexRows, [name]: rows } };
    fs.writeFileSync(path.join(this.dir, META_FILE), JSON.stringify(this.meta));
  }

  protected async putVectorsNow(kind: VectorKind, updates: VectorUpdate[]): Promise<number> {
    if (updates.length === 0) return 0;
    const latest = new Map(updates.map((u) => [u.id, u]));
    // The rows as they are now (their fields copied beside the vector), read by id (indexed).
    const where = (ids: string[]) => inList('id', ids);
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
    const stored = await this.reads.vectorKeys(kind, [
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

  protected async settleVectorsNow(episodeIds: string[]): Promise<void> {
    const unique = [...new Set(episodeIds)];
    if (unique.length === 0) return;
    const { passages, clips } = await this.reads.vectorSources(unique);
    const open = new Set([...passages, ...clips].filter((r) => !r.has_vector).map((r) => r.episode_id));
    const done = unique.filter((id) => !open.has(id));
    for (const ids of chunks(done, 500)) {
      const predicate = inList('id', ids);
      if ((await this.table('pending').countRows(predicate)) > 0) {
        await this.table('pending').delete(predicate);
        this.dirty.add('pending');
      }
    }
  }

  carriedVectors(model: string, dimensions: number, keys: string[]): Promise<Map<string, Float32Array>> {
    return this.carried?.lookup(model, dimensions, keys) ?? Promise.resolve(new Map());
  }

  async dropCarriedVectors(): Promise<number> {
    const carried = this.carried;
    this.carried = undefined;
    return carried ? await carried.drop() : 0;
  }

  async close(): Promise<void> {
    this.carried?.close();
    this.carried = undefined;
    await this.refreshes.close();
    for (const t of this.tables.values()) t.close();
    this.tables.clear();
    this.db?.close();
  }
}
