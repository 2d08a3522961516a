import type { ClipType, SegmentType } from '../../schemas/event-enums.ts';

/**
 * Search index port: what dialogue, clip, entity and podcast search read, and what the search
 * projector writes. Two adapters (LanceDB embedded, OpenSearch distributed) pass one contract
 * suite (test/contracts/search-index.contract.ts).
 *
 * Layout, identical on both engines:
 *
 * - `lines`: one document per transcript line inside a segment — BM25 text (positions kept for
 *   phrases) and the filter fields of its segment and episode. Keyword search ranks lines; the
 *   query layer groups them into segments.
 * - `passages`: what semantic search embeds (passages.ts): a segment's lines cut into passages of
 *   about 128 model tokens with overlap (short lines share one, a long turn spans several), each
 *   with the lines it covers, its text, the key of the vector it should have and the filter
 *   fields of its segment and episode.
 * - `passage_vectors`: one document per passage that has its vector — the vector, its key, and
 *   the passage's fields. Semantic search ranks these and shows each hit as the lines it covers.
 *   Vectors live apart from the text so that writing one never rewrites a row: on LanceDB an
 *   updated row leaves the full-text index until the next refresh, so phrase queries would miss
 *   it meanwhile.
 * - `segments`: one document per segment, holding what a result shows (lines with speakers and
 *   mentions, the segment's clips) plus the same filter fields, for filter-only queries.
 * - `clips`: one document per clip — filter fields, engagement, the embedded clip text; its vector
 *   in `clip_vectors`, beside the same filter fields.
 * - `episodes`: one small document per episode with its entity keys (mention counts).
 * - `pending`: the episodes with passages or clips still waiting for a vector (the vector
 *   filler's work list).
 * - `names`: people, companies, knowledge-graph entities and podcasts by every name they go by.
 * - `parts`: the latest event of each kind per episode, so an episode's documents can be
 *   rebuilt whichever of its events arrives last.
 *
 * Every document id is derived from the event (segment id, `episode:line`,
 * `episode:line:part` for passages, clip id, entity or podcast id), and an episode's documents are replaced as a whole, so replaying topics leaves
 * the index as it was.
 */

export type { ClipType, SegmentType };

/** Roles the API filters by; speaker roles are the lower-case speaker record roles. */
export const FILTER_ROLES = ['guest', 'host', 'panelist', 'correspondent', 'mention'] as const;
export type FilterRole = (typeof FILTER_ROLES)[number];

/**
 * Entity keys: `<entity id>` when the entity features at all (mentioned or speaking), and
 * `<entity id>:<role>` for each way it features (`mention`, `host`, `guest`, `panelist`,
 * `correspondent`, `audience`, `soundbite_speaker`).
 */
export function entityKey(entityId: string, role?: string): string {
  return role ? `${entityId}:${role.toLowerCase()}` : entityId;
}

export interface Speaker {
  label: string;
  /** The identified person's name, else the diarization label. */
  name: string;
  /** Upper case as in speaker records (`HOST`, `GUEST`, …), or null when unknown. */
  role: string | null;
  person_id: string | null;
}

export interface SegmentLine {
  number: number;
  speaker: Speaker;
  start_seconds: number;
  end_seconds: number;
  text: string;
  /** Entity ids mentioned in this line. */
  mentions: string[];
}

export interface StoredClip {
  id: string;
  type: ClipType;
  title: string;
  description: string | null;
  intro_statement: string | null;
  engagement_score: number;
  start_seconds: number;
  end_seconds: number;
  audio_url: string | null;
  segment: { id: string; title: string; type: SegmentType } | null;
  speaker: Speaker | null;
}

/** Filter fields every episode-derived document carries. */
export interface EpisodeFields {
  episode_id: string;
  podcast_id: string;
  /** Epoch milliseconds. */
  published_at: number;
  /** Primary language subtag, lower case (`en`, `fr`). */
  language: string;
  /** Episode-level entity keys (see `entityKey`). */
  entity_keys: string[];
}

export interface LineDoc extends EpisodeFields {
  /** `<episode id>:<line number>` */
  id: string;
  segment_id: string;
  segment_type: SegmentType;
  number: number;
  text: string;
}

/** A passage of a segment's lines (passages.ts): what semantic search embeds and ranks. */
export interface PassageDoc extends EpisodeFields {
  /** `<episode id>:<first line number>:<part>` */
  id: string;
  segment_id: string;
  segment_type: SegmentType;
  /** First and last line the passage covers. */
  number: number;
  last_number: number;
  text: string;
  /** Its embedding, compared by dot product; null until the vector filler gives it one. */
  vector: Float32Array | null;
  /** What the vector is computed from (passageVectorKey: the recipe and the text). */
  vector_key: string | null;
}

export interface SegmentDoc extends EpisodeFields {
  id: string;
  number: number;
  title: string;
  type: SegmentType;
  start_seconds: number;
  end_seconds: number;
  description: string | null;
  summary: string | null;
  audio_url: string | null;
  read_type: string | null;
  /** Keys of entities mentioned or speaking within this segment. */
  segment_entity_keys: string[];
  lines: SegmentLine[];
  clips: StoredClip[];
}

export interface ClipDoc extends EpisodeFields, StoredClip {
  /** Clip-level keys: its speaker (with role) and entities mentioned within its span. */
  clip_entity_keys: string[];
  speaker_person_id: string | null;
  /** Title, description, intro and the transcript span: what the vector embeds. */
  text: string;
  vector: Float32Array | null;
  vector_key: string | null;
}

export interface EpisodeDoc {
  id: string;
  podcast_id: string;
  published_at: number;
  entity_keys: string[];
}

export interface EpisodeDocs {
  episode_id: string;
  episode: EpisodeDoc;
  segments: SegmentDoc[];
  lines: LineDoc[];
  passages: PassageDoc[];
  clips: ClipDoc[];
}

export const NAME_KINDS = ['person', 'company', 'knowledge_graph_entity', 'podcast'] as const;
export type NameKind = (typeof NAME_KINDS)[number];

export interface NameDoc {
  id: string;
  kind: NameKind;
  /** Every way the record is named (name, aliases, nicknames, ticker, handles, domain, title). */
  names: string[];
  /** Global popularity 0-100 where known (podcasts), else 0. */
  popularity: number;
  /** The catalog record as JSON. */
  record: string;
}

/** The newest event of one kind for one episode, as JSON. */
export interface EpisodePart {
  episode_id: string;
  part: 'episode' | 'transcript' | 'segments' | 'clips' | 'mentions' | 'speakers';
  payload: string;
}

/**
 * Filters; every field present must hold (AND). Fields an index does not carry are refused by
 * the adapter. `keys` is a conjunction of disjunctions: each group needs any one of its keys.
 */
export interface SearchFilter {
  episodeIds?: string[];
  podcastIds?: string[];
  segmentTypes?: SegmentType[];
  clipTypes?: ClipType[];
  /** Inclusive, epoch ms. */
  publishedFrom?: number;
  /** Exclusive, epoch ms. */
  publishedBefore?: number;
  /** Episode-level entity keys (lines, segments, episodes). */
  keys?: string[][];
  /** Segment-level entity keys (segments). */
  segmentKeys?: string[][];
  /** Clip-level entity keys (clips). */
  clipKeys?: string[][];
  speakerPersonIds?: string[];
  minEngagement?: number;
  segmentIds?: string[];
}

/**
 * A parsed keyword query: each phrase must occur as an exact ordered sequence (phrases AND
 * together); free words rank by BM25 and any may match. Phrases and words are raw text, analysed
 * by the engine with the index's own analyser.
 */
export interface KeywordQuery {
  phrases: string[];
  words: string[];
}

export interface LineHit {
  id: string;
  segment_id: string;
  episode_id: string;
  number: number;
  published_at: number;
  /** BM25 score (keyword) or dot product (vector); comparable within one list only. */
  score: number;
  /** The line's words as indexed (text-analysis.ts, space-separated), with `withTerms`. */
  terms?: string;
}

/** A passage found by vector: its first line (`number`), its last, and with `withVectors` its text and vector. */
export interface PassageHit extends LineHit {
  last_number: number;
  /** The key its vector is stored under (passages of the same text share it); null without one. */
  vector_key?: string | null;
  text?: string;
  vector?: Float32Array;
}

export interface ClipHit {
  id: string;
  published_at: number;
  engagement_score: number;
  score: number;
}

export interface NameQuery {
  /** Analysed words of the query; the last one may be the start of a word. */
  words: string[];
  kinds: NameKind[];
}

export interface NameHit {
  doc: NameDoc;
  score: number;
}

export type ClipOrder = 'engagement' | 'recency';

/** A passage or clip as the vector filler reads it: enough to compute its vector. */
export interface VectorSource {
  id: string;
  episode_id: string;
  text: string;
  vector_key: string | null;
  has_vector: boolean;
}

/** What carries vectors: passages (dialogue search) and clips (clip search). */
export type VectorKind = 'passages' | 'clips';

/** A vector for one passage or clip, valid only while the row still carries `vector_key`. */
export interface VectorUpdate {
  id: string;
  vector_key: string;
  vector: Float32Array;
}

export interface VectorBacklog {
  /** Passages without a vector. */
  passages: number;
  /** Clips without a vector. */
  clips: number;
  /** Passages and clips with their vector, of `total`. */
  embedded: number;
  total: number;
}

export interface IndexStats {
  lines: number;
  passages: number;
  passagesWithVectors: number;
  segments: number;
  clips: number;
  names: number;
}

/** The model vectors came from, and their size (carried vectors are used only by the same). */
export interface VectorModel {
  model: string;
  dimensions: number;
}

export interface SearchIndexOptions {
  /** Vector size of the embeddings model; unset when no model is available. */
  dimensions?: number;
  /** Name of the embeddings model whose vectors the index holds. */
  model?: string;
}

export interface SearchIndex {
  readonly kind: string;
  /** Creates tables or indexes as needed. */
  open(): Promise<void>;
  /** Vector size the index was built with (undefined: no vectors yet). */
  readonly dimensions: number | undefined;
  /** Model the index's vectors come from. */
  readonly model: string | undefined;

  putParts(parts: EpisodePart[]): Promise<void>;
  getParts(episodeIds: string[]): Promise<EpisodePart[]>;
  /** Vectors already stored for these episodes' lines and clips, by vector key. */
  storedVectors(episodeIds: string[]): Promise<Map<string, Float32Array>>;
  /** Replaces every line, segment, clip and episode document of each episode given. */
  replaceEpisodes(batch: EpisodeDocs[]): Promise<void>;
  upsertNames(docs: NameDoc[]): Promise<void>;
  /** Makes everything written so far searchable (phrases included), and waits for it. */
  refresh(): Promise<void>;
  /**
   * Asks for what was written to become searchable soon, without waiting (the projector's path:
   * an index refresh can take long on a big table and must not hold the stream up).
   */
  scheduleRefresh(): void;

  /**
   * Episodes (at most `limit`) holding passages or clips without a vector, newest published first
   * (a backfill of older episodes yields to fresh ones): the vector filler's next work. Rows get their vectors after they are indexed (search-vector-filler.ts); an episode
   * leaves this list through `settleVectors`.
   */
  pendingVectorEpisodes(limit: number): Promise<string[]>;
  /** Every passage and clip of these episodes with its text, vector key and whether it has a vector. */
  vectorSources(episodeIds: string[]): Promise<{ passages: VectorSource[]; clips: VectorSource[] }>;
  /**
   * Gives vectors to passages or clips that have none and still carry the update's `vector_key`
   * (or no key); a row replaced meanwhile by a different one is left alone. The vectors are stored
   * beside the rows, which stay as they are (phrase queries keep finding them). Returns the
   * vectors written.
   */
  putVectors(kind: VectorKind, updates: VectorUpdate[]): Promise<number>;
  /**
   * Takes off the pending list (`pendingVectorEpisodes`) those of these episodes whose every
   * passage and clip now has its vector; the others stay on it.
   */
  settleVectors(episodeIds: string[]): Promise<void>;
  /** Passages and clips still without a vector, and how many have one. */
  vectorBacklog(): Promise<VectorBacklog>;
  /**
   * Vectors kept aside by the rebuild that emptied this index (`clearSearchIndex`), by vector key,
   * when they came from `model` with `dimensions`; empty when there are none. Never searched: the
   * vector filler takes a row's vector from here before asking the model.
   */
  carriedVectors(model: string, dimensions: number, keys: string[]): Promise<Map<string, Float32Array>>;
  /** Drops the vectors kept aside by a rebuild (once the index has every vector); returns how many. */
  dropCarriedVectors(): Promise<number>;

  /** Lines by BM25; `withTerms` adds each hit's indexed words (`terms`). */
  keywordLines(
    query: KeywordQuery,
    filter: SearchFilter,
    limit: number,
    options?: { withTerms?: boolean },
  ): Promise<LineHit[]>;
  /** Passages by dot product with `vector`; `withVectors` adds each hit's text and vector. */
  vectorPassages(
    vector: Float32Array,
    filter: SearchFilter,
    limit: number,
    options?: { withVectors?: boolean },
  ): Promise<PassageHit[]>;
  /** Segments matching a filter, newest first. */
  filterSegments(filter: SearchFilter, limit: number, offset: number): Promise<LineHit[]>;
  getSegments(ids: string[]): Promise<SegmentDoc[]>;

  vectorClips(vector: Float32Array, filter: SearchFilter, limit: number): Promise<ClipHit[]>;
  /** Clips matching a filter, best (engagement) or newest first; `offset` pages. */
  listClips(filter: SearchFilter, order: ClipOrder, limit: number, offset: number): Promise<ClipHit[]>;
  getClips(ids: string[]): Promise<ClipDoc[]>;

  searchNames(query: NameQuery, limit: number): Promise<NameHit[]>;
  /** Episodes carrying each key. */
  countEpisodes(keys: string[]): Promise<Map<string, number>>;

  stats(): Promise<IndexStats>;
  close(): Promise<void>;
}

/** The document field each SearchFilter field filters on, per kind of document (both adapters). */
export type FilterFields = Partial<Record<keyof SearchFilter, string>>;

/** The filter fields that list values a document field must hold one of, in the order translated. */
export const ID_FILTERS = [
  'episodeIds',
  'podcastIds',
  'segmentTypes',
  'clipTypes',
  'segmentIds',
  'speakerPersonIds',
] as const satisfies readonly (keyof SearchFilter)[];

/** The filter fields that list groups of entity keys: a document matches a group by holding any of it. */
export const KEY_FILTERS = [
  'keys',
  'segmentKeys',
  'clipKeys',
] as const satisfies readonly (keyof SearchFilter)[];

export const FILTER_FIELDS = {
  lines: {
    episodeIds: 'episode_id',
    podcastIds: 'podcast_id',
    segmentTypes: 'segment_type',
    segmentIds: 'segment_id',
    publishedFrom: 'published_at',
    publishedBefore: 'published_at',
    keys: 'entity_keys',
  },
  passages: {
    episodeIds: 'episode_id',
    podcastIds: 'podcast_id',
    segmentTypes: 'segment_type',
    segmentIds: 'segment_id',
    publishedFrom: 'published_at',
    publishedBefore: 'published_at',
    keys: 'entity_keys',
  },
  segments: {
    episodeIds: 'episode_id',
    podcastIds: 'podcast_id',
    segmentTypes: 'type',
    segmentIds: 'id',
    publishedFrom: 'published_at',
    publishedBefore: 'published_at',
    keys: 'entity_keys',
    segmentKeys: 'segment_entity_keys',
  },
  clips: {
    episodeIds: 'episode_id',
    podcastIds: 'podcast_id',
    clipTypes: 'type',
    segmentIds: 'segment_id',
    publishedFrom: 'published_at',
    publishedBefore: 'published_at',
    keys: 'entity_keys',
    clipKeys: 'clip_entity_keys',
    speakerPersonIds: 'speaker_person_id',
    minEngagement: 'engagement_score',
  },
  episodes: { keys: 'entity_keys' },
  names: {},
  parts: {},
} satisfies Record<string, FilterFields>;
