/** Turns text into sentence embeddings for semantic and hybrid search. */
export interface EmbeddingsPort {
  readonly model: string;
  readonly dimensions: number;
  /** One L2-normalised vector per input, in input order. */
  embed(texts: string[]): Promise<Float32Array[]>;
  close(): Promise<void>;
}

export type EmbeddingsAvailability =
  | { available: true; model: string; dimensions: number }
  | { available: false; reason: string };

/** Scales `v` in place to unit length; a zero vector stays zero. Returns `v`. */
export function l2Normalise(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  // Same floor as torch.nn.functional.normalize, which sentence-transformers uses.
  const norm = Math.max(Math.sqrt(sum), 1e-12);
  for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

export function cosineSimilarity(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new Error(`vector lengths differ: ${a.length} vs ${b.length}`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  const denom = Math.sqrt(na) * Math.sqrt(nb);
  return denom === 0 ? 0 : dot / denom;
}
