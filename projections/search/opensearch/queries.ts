import {
  FILTER_FIELDS,
  type FilterFields,
  ID_FILTERS,
  KEY_FILTERS,
  type KeywordQuery,
  type SearchFilter,
} from '../search-index.ts';
import type { IndexName, Json } from './mappings.ts';

/** Search filters, keyword and k-NN queries as OpenSearch query DSL. */

const INDEX_FILTER_FIELDS: Record<IndexName, FilterFields> = {
  ...FILTER_FIELDS,
  passage_vectors: FILTER_FIELDS.passages,
  clip_vectors: FILTER_FIELDS.clips,
  pending: {},
  meta: {},
};

/** SearchFilter → OpenSearch filter clauses for `index`; refuses fields the index lacks. */
export function filterClauses(index: IndexName, filter: SearchFilter): Json[] {
  const fields = INDEX_FILTER_FIELDS[index];
  const field = (name: keyof SearchFilter) => {
    const f = fields[name];
    if (!f) throw new Error(`the ${index} index cannot filter on ${name}`);
    return f;
  };
  const out: Json[] = [];
  const terms = (name: keyof SearchFilter, values: readonly string[] | undefined) => {
    if (values !== undefined) out.push({ terms: { [field(name)]: values } });
  };
  for (const name of ID_FILTERS) terms(name, filter[name]);
  if (filter.publishedFrom !== undefined || filter.publishedBefore !== undefined) {
    const range: Json = {};
    if (filter.publishedFrom !== undefined) range.gte = filter.publishedFrom;
    if (filter.publishedBefore !== undefined) range.lt = filter.publishedBefore;
    out.push({
      range: { [field(filter.publishedFrom !== undefined ? 'publishedFrom' : 'publishedBefore')]: range },
    });
  }
  if (filter.minEngagement !== undefined)
    out.push({ range: { [field('minEngagement')]: { gte: filter.minEngagement } } });
  for (const name of KEY_FILTERS) {
    for (const group of filter[name] ?? []) out.push({ terms: { [field(name)]: group } });
  }
  return out;
}

export function keywordQuery(q: KeywordQuery, filters: Json[]): Json {
  const must: Json[] = q.phrases.map((p) => ({ match_phrase: { text: { query: p } } }));
  const should: Json[] = [];
  if (q.words.length > 0) {
    const words = { match: { text: { query: q.words.join(' '), operator: 'or' } } };
    if (must.length === 0) must.push(words);
    else should.push(words);
  }
  return { bool: { must, should, filter: filters } };
}

/** The lucene engine scores an inner product p as p + 1 when p ≥ 0, else 1 / (1 − p). */
export function innerProduct(score: number): number {
  return score >= 1 ? score - 1 : 1 - 1 / score;
}

/**
 * k-NN query. The lucene engine searches the graph with `k` candidates; a small `k` can stop at
 * a local optimum, so at least 64 are searched and `size` keeps the first `limit`.
 */
export function knnQuery(vector: Float32Array, filters: Json[], limit: number): Json {
  const knn: Json = { vector: Array.from(vector), k: Math.max(limit, 64) };
  if (filters.length > 0) knn.filter = { bool: { filter: filters } };
  return { knn: { vector: knn } };
}
