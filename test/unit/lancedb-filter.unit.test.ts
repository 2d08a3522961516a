import { describe, expect, it } from 'vitest';
import { filterSql, sqlNumber, sqlString } from '../../projections/search/lancedb/lancedb-search-index.ts';

describe('LanceDB filter translation', () => {
  it('writes strings as quoted literals with their quotes doubled', () => {
    expect(sqlString("it's")).toBe("'it''s'");
    expect(sqlString("x') OR true OR ('")).toBe("'x'') OR true OR ('''");
    expect(sqlString('back\\slash')).toBe("'back\\slash'");
    expect(filterSql('lines', { episodeIds: [], podcastIds: ["pod_'1"] })).toBe(
      "false AND podcast_id IN ('pod_''1')",
    );
  });

  it('writes numbers only when finite', () => {
    expect(sqlNumber(1795465506107)).toBe('1795465506107');
    expect(sqlNumber(-0.5)).toBe('-0.5');
    expect(sqlNumber(1e-7)).toBe('1e-7');
    for (const bad of [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN]) {
      expect(() => sqlNumber(bad)).toThrow(RangeError);
      expect(() => filterSql('clips', { minEngagement: bad })).toThrow(RangeError);
      expect(() => filterSql('lines', { publishedFrom: bad })).toThrow(RangeError);
      expect(() => filterSql('lines', { publishedBefore: bad })).toThrow(RangeError);
    }
    expect(() => sqlNumber('1 OR true' as unknown as number)).toThrow(RangeError);
    expect(filterSql('lines', { publishedFrom: 10, publishedBefore: 20 })).toBe(
      'published_at >= 10 AND published_at < 20',
    );
  });
});
