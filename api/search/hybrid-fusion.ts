import { coverageOf } from '../../projections/search/query-coverage.ts';
import { type Fused, reciprocalRankFusion } from '../../projections/search/rrf.ts';
import type { KeywordQuery, LineHit } from '../../projections/search/search-index.ts';
import { holdsPhrases } from '../../projections/search/text-analysis.ts';

/** A ranked line: a keyword hit, or one of the lines of a semantic passage (`rank`: the passage's). */
export type RankedLine = LineHit & { rank: number };

/**
 * The first page of each search, where the two must meet for the keyword ranking to count in
 * hybrid.
 */
export const AGREEMENT_PAGE = 10;

/**
 * Hybrid line ranking: the keyword lines (BM25 order, each with its indexed words) and the
 * semantic lines fused by reciprocal rank (score Σ weight / (60 + rank)), with three query-time
 * rules, each of which the relevance evaluations showed fusion needs (docs/search.md → Endpoints):
 *
 * 1. **Coverage.** A keyword line weighs the share of the query's distinct content words it
 *    holds (coverageOf; function words such as "too" and "for" do not count): BM25 puts a line
 *    sharing one word of a five-word question first when nothing shares more, and at full weight
 *    it took the place of the best semantic line.
 * 2. **Agreement.** The keyword ranking counts only when the two searches meet on their first
 *    pages: when at least one of semantic search's first AGREEMENT_PAGE lines is among keyword
 *    search's first AGREEMENT_PAGE. When none is, the keyword hits share words with the query but
 *    not its subject (a paraphrase meets "the new head coach wants to play a high press" only on
 *    "to a new"; "property too expensive for young families" meets lines on childcare that is
 *    "too expensive for families", far down the keyword list); their weight is then 0, and the
 *    lines semantic search also found no longer rise above the ones it ranked first. Keyword-only
 *    lines still follow, after every semantic line.
 * 3. **Quoted phrases first.** A line holding every quoted phrase of the keyword query ranks
 *    before the lines that do not, in fused order among themselves: quotes are a requirement in
 *    keyword search, and in hybrid a phrase match is not interleaved with lines that lack it. Its
 *    score is 1 + its fused score (a fused score is below 0.04), so scores stay in rank order.
 * 4. **A model that cannot read the query.** When the embeddings model was not trained on the
 *    query's writing system (`semanticReadsQuery` false: modelReadsQuery), its ranking weighs
 *    nothing and the keyword lines keep keyword search's own order (no coverage weight, whether
 *    or not the two meet): the English models read a Hindi question as a handful of subword
 *    pieces, and their first lines are as good as chance (hybrid ranked below keyword on the
 *    real-speech Hindi questions; reordered by coverage, one line lower again). Semantic-only
 *    lines follow the keyword ones.
 */
export function fuseHybrid(
  query: KeywordQuery,
  keywordLines: readonly RankedLine[],
  semanticLines: readonly RankedLine[],
  options: { semanticReadsQuery?: boolean } = {},
): { hit: RankedLine; score: number }[] {
  const reads = options.semanticReadsQuery ?? true;
  const keywordFirst = new Set(keywordLines.slice(0, AGREEMENT_PAGE).map((l) => l.id));
  const meet = semanticLines.slice(0, AGREEMENT_PAGE).some((l) => keywordFirst.has(l.id));
  const coverage = coverageOf(query);
  const fused = reciprocalRankFusion(
    [keywordLines, semanticLines],
    (l) => l.id,
    undefined,
    (l) => l.rank,
    (l, list) => {
      if (list === 1) return reads ? 1 : 0;
      if (!reads) return 1; // keyword search's own order
      if (!meet) return 0;
      return l.terms !== undefined ? coverage(l.terms) : 1; // words unknown: full weight
    },
  );
  if (query.phrases.length === 0) return fused.map(scored(0));
  // Keyword lines come first in the fusion, so a line both lists hold carries its terms.
  const holding = (f: Fused<RankedLine>) => f.item.terms !== undefined && holdsPhrases(query, f.item.terms);
  return [...fused.filter(holding).map(scored(1)), ...fused.filter((f) => !holding(f)).map(scored(0))];
}

const scored =
  (offset: number) =>
  (f: Fused<RankedLine>): { hit: RankedLine; score: number } => ({ hit: f.item, score: offset + f.score });

/**
 * Whether a model trained on text in `scripts` (LocalModel.scripts) reads a query: at least half
 * of the query's letters are in those scripts. Any query when the scripts are unknown.
 */
export function modelReadsQuery(scripts: readonly string[] | undefined, query: KeywordQuery): boolean {
  if (!scripts) return true;
  const patterns = scripts.map((s) => new RegExp(`\\p{Script=${s}}`, 'u'));
  let read = 0;
  let other = 0;
  for (const ch of [...query.words, ...query.phrases].join(' ')) {
    if (!/\p{L}/u.test(ch)) continue;
    if (patterns.some((p) => p.test(ch))) read++;
    else other++;
  }
  return read >= other;
}
