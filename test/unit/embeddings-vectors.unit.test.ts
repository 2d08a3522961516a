import { describe, expect, it } from 'vitest';
import { cosineSimilarity, l2Normalise } from '../../projections/embeddings/embeddings-port.ts';
import { transcriptLines } from '../bench/bench-embeddings.ts';

describe('vector helpers', () => {
  it('normalise to unit length in place, leaving a zero vector at zero', () => {
    const v = Float32Array.of(3, 4, 0);
    expect(l2Normalise(v)).toBe(v);
    expect(Array.from(v)).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6), 0]);
    expect(Array.from(l2Normalise(new Float32Array(3)))).toEqual([0, 0, 0]);
  });

  it('compute cosine similarity independent of length', () => {
    expect(cosineSimilarity(Float32Array.of(1, 0), Float32Array.of(0, 2))).toBe(0);
    expect(cosineSimilarity(Float32Array.of(1, 1), Float32Array.of(5, 5))).toBeCloseTo(1, 6);
    expect(cosineSimilarity(Float32Array.of(1, 2), Float32Array.of(-1, -2))).toBeCloseTo(-1, 6);
    expect(cosineSimilarity(new Float32Array(2), Float32Array.of(1, 0))).toBe(0);
    expect(() => cosineSimilarity(new Float32Array(2), new Float32Array(3))).toThrow(/lengths differ/);
  });
});

describe('benchmark transcript lines', () => {
  it('are deterministic per seed and have the requested number of words', () => {
    const lines = transcriptLines(50, 15, 7);
    expect(transcriptLines(50, 15, 7)).toEqual(lines);
    expect(transcriptLines(50, 15, 8)).not.toEqual(lines);
    expect(new Set(lines).size).toBe(50);
    for (const line of lines) expect(line.split(' ')).toHaveLength(15);
  });
});
