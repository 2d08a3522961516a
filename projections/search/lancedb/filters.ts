import { BooleanQuery, type FullTextQuery, MatchQuery, Occur, PhraseQuery } from '@lancedb/lancedb';
import {
  FILTER_FIELDS,
  type FilterFields,
  ID_FILTERS,
  KEY_FILTERS,
  type KeywordQuery,
  type SearchFilter,
} from '../search-index.ts';
import type { TableName } from './tables.ts';

/** Columns each table filters on, by SearchFilter field. */
const FILTER_COLUMNS: Record<TableName, FilterFields> = FILTER_FIELDS;

/**
 * Filters are SQL predicates (DataFusion), so every value is written as a typed literal and
 * nothing else reaches the text: a string is quoted with its quotes doubled (backslashes are
 * literal in DataFusion strings), a number only when it is finite (`Infinity` would read as a
 * column name), and column names come from FILTER_FIELDS, never from input.
 */
export function sqlString(value: string): string {
  if (typeof value !== 'string') throw new TypeError(`a filter string is a ${typeof value}`);
  return `'${value.replaceAll("'", "''")}'`;
}

export function sqlNumber(value: number): string {
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new RangeError(`a filter number must be finite, not ${String(value)}`);
  return String(value);
}

export function inList(column: string, values: readonly string[]): string {
  return `${column} IN (${values.map(sqlString).join(', ')})`;
}

function anyOf(column: string, keys: readonly string[]): string {
  return `array_has_any(${column}, [${keys.map(sqlString).join(', ')}])`;
}

/** SearchFilter → SQL predicate for `table`; refuses fields the table does not carry. */
export function filterSql(table: TableName, filter: SearchFilter): string | undefined {
  const columns = FILTER_COLUMNS[table];
  const clauses: string[] = [];
  const column = (field: keyof SearchFilter) => {
    const c = columns[field];
    if (!c) throw new Error(`the ${table} index cannot filter on ${field}`);
    return c;
  };
  const ids = (field: keyof SearchFilter, values: readonly string[] | undefined) => {
    if (values === undefined) return;
    clauses.push(values.length === 0 ? 'false' : inList(column(field), values));
  };
  for (const field of ID_FILTERS) ids(field, filter[field]);
  if (filter.publishedFrom !== undefined)
    clauses.push(`${column('publishedFrom')} >= ${sqlNumber(filter.publishedFrom)}`);
  if (filter.publishedBefore !== undefined)
    clauses.push(`${column('publishedBefore')} < ${sqlNumber(filter.publishedBefore)}`);
  if (filter.minEngagement !== undefined)
    clauses.push(`${column('minEngagement')} >= ${sqlNumber(filter.minEngagement)}`);
  for (const field of KEY_FILTERS) {
    for (const group of filter[field] ?? []) {
      clauses.push(group.length === 0 ? 'false' : anyOf(column(field), group));
    }
  }
  return clauses.length > 0 ? clauses.join(' AND ') : undefined;
}

export function keywordFts(q: KeywordQuery, column: string): FullTextQuery {
  const must: [Occur, FullTextQuery][] = q.phrases.map((p) => [Occur.Must, new PhraseQuery(p, column)]);
  if (q.words.length > 0) {
    const words = new MatchQuery(q.words.join(' '), column);
    if (must.length === 0) return words;
    must.push([Occur.Should, words]);
  }
  if (must.length === 1) return must[0]![1];
  return new BooleanQuery(must);
}
