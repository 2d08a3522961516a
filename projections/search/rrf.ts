/**
 * Reciprocal rank fusion (Cormack, Clarke & Büttcher, 2009): each item scores the sum over the
 * ranked lists it appears in of 1 / (k + rank), rank counting from 1. Only ranks matter, so a
 * BM25 list and a cosine list fuse without calibrating their scores. The one implementation both
 * search adapters' lists go through.
 */
export const RRF_K = 60;

export interface Fused<T> {
  item: T;
  score: number;
  /** Rank in each input list (1-based), undefined where absent. */
  ranks: (number | undefined)[];
}

/**
 * `rankOf` gives an item's rank in its list (default: its position + 1); items that share a rank
 * (the lines of one semantic passage) count as one place in their list. `weightOf` scales an
 * item's share from its list (default 1: weight / (k + rank)).
 */
export function reciprocalRankFusion<T>(
  lists: readonly (readonly T[])[],
  idOf: (item: T) => string,
  k = RRF_K,
  rankOf: (item: T, index: number) => number = (_, i) => i + 1,
  weightOf: (item: T, list: number) => number = () => 1,
): Fused<T>[] {
  const byId = new Map<string, Fused<T>>();
  lists.forEach((list, l) => {
    const seen = new Set<string>();
    list.forEach((item, i) => {
      const id = idOf(item);
      if (seen.has(id)) return; // a list names each item once; keep its best rank
      seen.add(id);
      let entry = byId.get(id);
      if (!entry) {
        entry = { item, score: 0, ranks: new Array(lists.length).fill(undefined) };
        byId.set(id, entry);
      }
      const rank = rankOf(item, i);
      entry.score += weightOf(item, l) / (k + rank);
      entry.ranks[l] = rank;
    });
  });
  // Ties (same score) keep a deterministic order: better best rank first, then id.
  return [...byId.entries()]
    .sort(
      ([ida, a], [idb, b]) =>
        b.score - a.score || bestRank(a) - bestRank(b) || (ida < idb ? -1 : ida > idb ? 1 : 0),
    )
    .map(([, f]) => f);
}

function bestRank(f: Fused<unknown>): number {
  return Math.min(...f.ranks.map((r) => r ?? Number.POSITIVE_INFINITY));
}
