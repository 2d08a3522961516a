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

/** The LanceDB tables of the search index: their names, their Arrow schemas, the index's metadata. */

/** Vector size used for a new index when no embeddings model is available yet. */
export const DEFAULT_DIMENSIONS = 384;

export type TableName = 'lines' | 'passages' | 'segments' | 'clips' | 'episodes' | 'names' | 'parts';
/** Every table: those queried by filter, the vectors kept beside passages and clips, the filler's list. */
export type StoreTable = TableName | 'passage_vectors' | 'clip_vectors' | 'pending';
/** Where each kind of row keeps its vectors. */
export const VECTORS = { passages: 'passage_vectors', clips: 'clip_vectors' } as const;
/**
 * Layout of the tables; an index of another layout is refused at open (rebuild it). 1: vectors
 * inside the line rows; 2: one vector per line in `line_vectors`; 3: passages (`passages`,
 * `passage_vectors`); 4: text indexed as the words of text-analysis.ts, split at spaces; 5: the
 * same, with every Han and kana character a word even after a digit or a Latin letter.
 */
export const LAYOUT = 5;

const list = (name: string) => new Field(name, new List(new Field('item', new Utf8(), true)), false);
const str = (name: string, nullable = false) => new Field(name, new Utf8(), nullable);
const f64 = (name: string) => new Field(name, new Float64(), false);
/** The `vector` column of a vector table. */
export const vectorField = (dims: number) =>
  new Field('vector', new FixedSizeList(dims, new Field('item', new Float32(), true)), false);

export function schemas(dims: number): Record<StoreTable, Schema> {
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
  ];
  const passageFields = [
    str('id'),
    ...episodeFields,
    str('segment_id'),
    str('segment_type'),
    new Field('number', new Int32(), false),
    new Field('last_number', new Int32(), false),
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
    passages: new Schema(passageFields),
    passage_vectors: new Schema([...passageFields, vectorField(dims)]),
    segments: new Schema([
      str('id'),
      ...episodeFields,
      str('type'),
      new Field('number', new Int32(), false),
      list('segment_entity_keys'),
      str('doc'),
    ]),
    clips: new Schema([...clipFields, str('text'), str('doc')]),
    clip_vectors: new Schema([...clipFields, vectorField(dims)]),
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

/**
 * Rows of a vector table as one Arrow table in that table's schema: the vectors copied into one
 * buffer (no per-number boxing), the other columns converted by their declared types.
 */
export function vectorRows(schema: Schema, rows: VectorRow[]): ArrowTable {
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

/** A row of `passage_vectors` or `clip_vectors`: the row's fields, its vector key and vector. */
export type VectorRow = Record<string, unknown> & { id: string; vector: Float32Array };

/** What the index keeps beside its tables (`META_FILE`). */
export interface Meta {
  dimensions: number;
  model: string | null;
  /** Rows each ANN index was trained on. */
  vectorIndexRows?: Partial<Record<'passages' | 'clips', number>>;
  /** The layout (absent before layout 3). */
  layout?: number;
}

export const META_FILE = 'earshot-search.json';
