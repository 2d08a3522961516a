import type { ClipDoc, EpisodeDocs, PassageDoc, SegmentDoc, VectorBacklog } from './search-index.ts';

/**
 * What both search adapters write for an episode's documents, before each adds what its engine
 * keeps its own way (LanceDB: documents as JSON text; OpenSearch: documents as objects, and the
 * `rev` of the write).
 */

/** A passage without its vector (the vector is kept in `passage_vectors`, beside a copy of the passage). */
export function passageFields(p: PassageDoc): Omit<PassageDoc, 'vector'> {
  const { vector: _v, ...fields } = p;
  return fields;
}

/** The fields a clip is filtered and ranked by (its row and its vector's row carry them). */
export function clipFields(c: ClipDoc) {
  return {
    id: c.id,
    episode_id: c.episode_id,
    podcast_id: c.podcast_id,
    published_at: c.published_at,
    language: c.language,
    entity_keys: c.entity_keys,
    type: c.type,
    segment_id: c.segment?.id ?? null,
    engagement_score: c.engagement_score,
    clip_entity_keys: c.clip_entity_keys,
    speaker_person_id: c.speaker_person_id,
    vector_key: c.vector_key,
  };
}

/** The clip document a search returns: everything but the vector and its key. */
export function clipDocument(c: ClipDoc): Omit<ClipDoc, 'vector' | 'vector_key'> {
  const { vector: _v, vector_key: _k, ...doc } = c;
  return doc;
}

/** The fields a segment is filtered and sorted by. */
export function segmentFields(s: SegmentDoc) {
  return {
    id: s.id,
    episode_id: s.episode_id,
    podcast_id: s.podcast_id,
    published_at: s.published_at,
    language: s.language,
    entity_keys: s.entity_keys,
    type: s.type,
    number: s.number,
    segment_entity_keys: s.segment_entity_keys,
  };
}

/** The episodes of `batch` with a line or a clip still waiting for its vector. */
export function waitingForVectors(batch: EpisodeDocs[]): EpisodeDocs[] {
  return batch.filter((b) => b.passages.some((p) => !p.vector) || b.clips.some((c) => !c.vector));
}

/** Whether the row with this key has its vector: one stored under its key (any, for a row without a key). */
export function hasVector(key: string | null, stored: Map<string, string | null>, id: string): boolean {
  return stored.has(id) && (key === null || stored.get(id) === key);
}

/** `items` in runs of at most `size`. */
export function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The backlog from the counts of rows and of their vectors (a count read mid-write never goes below zero). */
export function vectorBacklog(
  passages: number,
  passageVectors: number,
  clips: number,
  clipVectors: number,
): VectorBacklog {
  const total = passages + clips;
  const waiting = {
    passages: Math.max(0, passages - passageVectors),
    clips: Math.max(0, clips - clipVectors),
  };
  return { ...waiting, total, embedded: total - waiting.passages - waiting.clips };
}
