import { createHash } from 'node:crypto';

/**
 * How search turns sentence embeddings into queries, the same for every engine.
 *
 * Dialogue is embedded as passages (passages.ts: a segment's lines packed and cut to about 128
 * model tokens with overlap, so short elliptical lines are embedded with the dialogue around them
 * and the end of a long turn is embedded at all); clips by their own text. Vectors are compared by
 * dot product (for unit-length vectors that is the cosine).
 *
 * Queries get one round of pseudo-relevance feedback (Rocchio): the query vector plus PRF_WEIGHT
 * times the mean vector of the PRF_DOCS best distinct passages of a first pass, then searched
 * again.
 */
export const PRF_DOCS = 5;
export const PRF_POOL = 20;
export const PRF_WEIGHT = 0.3;

export function clipVectorKey(text: string): string {
  return `c:${createHash('sha1').update(text).digest('base64url')}`;
}

/** Rocchio feedback: `query + PRF_WEIGHT · mean(feedback)`. */
export function feedbackQuery(query: Float32Array, feedback: Float32Array[]): Float32Array {
  if (feedback.length === 0) return query;
  const out = Float32Array.from(query);
  for (const f of feedback)
    for (let d = 0; d < out.length; d++) out[d]! += (PRF_WEIGHT * f[d]!) / feedback.length;
  return out;
}
