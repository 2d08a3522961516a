import { describe, expect, it } from 'vitest';
import type { Transcript } from '../../schemas/generated/index.ts';
import { cutSegments, type Question, scoreQuestion } from '../bench/real-speech-search.bench.ts';

const question: Question = {
  id: 't01',
  query: 'which shops did refugees recreate',
  lang: 'en',
  kind: 'tail',
  relevant: [
    { episode_id: 'e', line: 8, grade: 2 },
    { episode_id: 'e', line: 12, grade: 2 },
    { episode_id: 'e', line: 11, grade: 1 },
  ],
};

describe('real-speech search scoring', () => {
  it('counts grade ≥ 1 lines among the first five distinct lines, grade 2 for the strict variant', () => {
    const r = scoreQuestion(question, 'hybrid', ['e:11', 'e:11', 'e:3', 'e:8', 'f:1', 'e:4', 'e:12']);
    expect(r.top.slice(0, 5)).toEqual(['e:11', 'e:3', 'e:8', 'f:1', 'e:4']);
    expect(r.p5).toBeCloseTo(2 / 5);
    expect(r.p5strict).toBeCloseTo(1 / 5);
    expect(r.unjudged).toBe(3);
    // The tail test looks for the question's first relevant line.
    expect(r.firstRelevantRank).toBe(3);
    expect(scoreQuestion(question, 'semantic', ['e:1']).firstRelevantRank).toBeUndefined();
  });

  it('cuts a transcript into segments of about ten minutes at line boundaries, covering every line', () => {
    const lines = Array.from({ length: 30 }, (_, i) => ({
      number: i + 1,
      speaker: 'Guest',
      role: null,
      start_seconds: i * 100,
      end_seconds: i * 100 + 90,
      text: `line ${i + 1}`,
      words: [],
    }));
    const s = cutSegments({ episode_id: 'e', lines } as unknown as Transcript);
    expect(s.segments.map((x) => [x.first_line, x.last_line])).toEqual([
      [1, 6],
      [7, 12],
      [13, 18],
      [19, 24],
      [25, 30],
    ]);
    expect(new Set(s.segments.map((x) => x.id)).size).toBe(5);
  });
});
