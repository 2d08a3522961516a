/** The OpenSearch indexes of the search index: names, mappings and analysers. */

/** Vector size used for a new index when no embeddings model is available yet. */
export const DEFAULT_DIMENSIONS = 384;

export type IndexName =
  | 'lines'
  | 'passages'
  | 'passage_vectors'
  | 'segments'
  | 'clips'
  | 'clip_vectors'
  | 'episodes'
  | 'pending'
  | 'names'
  | 'parts'
  | 'meta';
export const DATA_INDEXES: IndexName[] = [
  'lines',
  'passages',
  'passage_vectors',
  'segments',
  'clips',
  'clip_vectors',
  'episodes',
  'pending',
  'names',
  'parts',
];
/** Where each kind of document keeps its vectors. */
export const VECTORS = { passages: 'passage_vectors', clips: 'clip_vectors' } as const;
/**
 * Layout of the indexes; an index of another layout is refused at open (rebuild it). 1: vectors
 * inside the line documents; 2: one vector per line in `line_vectors`; 3: passages (`passages`,
 * `passage_vectors`); 4: text indexed as the words of text-analysis.ts, split at spaces; 5: the
 * same, with every Han and kana character a word even after a digit or a Latin letter.
 */
export const LAYOUT = 5;

// biome-ignore lint/suspicious/noExplicitAny: OpenSearch request and response bodies are JSON
export type Json = any;

/**
 * The text of lines and names is written already analysed (text-analysis.ts: its words, space
 * separated), and queries are too, so Lucene only splits at spaces: the same tokens as on LanceDB.
 */
export const ANALYSIS = {
  analyzer: {
    earshot_text: { type: 'custom', tokenizer: 'whitespace', filter: [] },
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
  };
  const passageFields = {
    id: keyword,
    ...episodeFields,
    segment_id: keyword,
    segment_type: keyword,
    number: { type: 'integer' },
    last_number: { type: 'integer' },
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
    passages: { properties: { ...passageFields, text: { type: 'text', index: false } } },
    passage_vectors: { properties: { ...passageFields, text: { type: 'text', index: false }, vector } },
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
