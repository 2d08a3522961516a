import { foldToAscii } from '../../schemas/text-folding.ts';
import { analyze } from './text-analysis.ts';

/**
 * Name matching for entity and podcast search. The engines find candidates (BM25 over every
 * name a record goes by, with typo tolerance, plus word prefixes); this module then decides how
 * well each candidate matches, the same way whichever engine found it.
 */

export const MATCH_QUALITIES = ['exact', 'prefix', 'partial', 'fuzzy'] as const;
export type MatchQuality = (typeof MATCH_QUALITIES)[number];

export type NameField = 'name' | 'ticker' | 'handle' | 'domain' | 'alias' | 'nickname' | 'title';

export interface NameVariant {
  field: NameField;
  value: string;
}

export interface NameMatch {
  quality: MatchQuality;
  field: NameField;
  value: string;
}

/** Edits allowed for a word of this length (the engines' AUTO fuzziness: 0, 1 or 2). */
export function fuzziness(word: string): number {
  return word.length <= 2 ? 0 : word.length <= 5 ? 1 : 2;
}

const MIN_PREFIX = 2;
const MAX_PREFIX = 20;

/** Word prefixes (2-20 characters) of every name, indexed so a partly typed word finds names. */
export function namePrefixes(names: string[]): string[] {
  const out = new Set<string>();
  for (const name of names) {
    for (const word of analyze(name)) {
      for (let n = MIN_PREFIX; n <= Math.min(word.length, MAX_PREFIX); n++) out.add(word.slice(0, n));
    }
  }
  return [...out];
}

/** Lower case, accents folded, punctuation to single spaces. */
export function normalizeName(text: string): string {
  return analyze(text).join(' ');
}

/** `https://www.Apple.com/` → `apple.com` */
export function normalizeDomain(text: string): string {
  return foldToAscii(text.trim())
    .replace(/^[a-z]+:\/\//, '')
    .replace(/^www\./, '')
    .replace(/[/?#].*$/, '');
}

function levenshtein(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      cur.push(v);
      rowMin = Math.min(rowMin, v);
    }
    if (rowMin > max) return max + 1;
    prev = cur;
  }
  return prev[b.length]!;
}

const QUALITY_RANK: Record<MatchQuality, number> = { exact: 0, prefix: 1, partial: 2, fuzzy: 3 };
const FIELD_RANK: Record<NameField, number> = {
  name: 0,
  title: 0,
  ticker: 1,
  handle: 1,
  domain: 1,
  alias: 2,
  nickname: 3,
};

export function compareMatches(a: NameMatch, b: NameMatch): number {
  return QUALITY_RANK[a.quality] - QUALITY_RANK[b.quality] || FIELD_RANK[a.field] - FIELD_RANK[b.field];
}

/**
 * How well `query` names a record known by `variants`:
 *
 * - `exact`: the query is one of its names (case, accents and punctuation aside; `@` on handles,
 *   `$` on tickers and scheme or `www.` on domains optional);
 * - `prefix`: a name starts with the query (`nvid` → Nvidia);
 * - `partial`: every query word is a word of a name, or starts one (`musk` → Elon Musk);
 * - `fuzzy`: every query word is within the allowed edits of a word of a name (`elon mosk`).
 *
 * The best match over all variants wins; undefined when none matches.
 */
export function matchName(query: string, variants: NameVariant[]): NameMatch | undefined {
  const q = normalizeName(query);
  if (q.length === 0) return undefined;
  const qWords = q.split(' ');
  const rawQuery = query.trim();
  let best: NameMatch | undefined;
  const consider = (m: NameMatch) => {
    if (!best || compareMatches(m, best) < 0) best = m;
  };
  for (const v of variants) {
    const name = normalizeName(v.value);
    if (name.length === 0) continue;
    const exact =
      name === q ||
      (v.field === 'domain' && normalizeDomain(v.value) === normalizeDomain(rawQuery)) ||
      (v.field === 'ticker' && name === normalizeName(rawQuery.replace(/^\$/, ''))) ||
      (v.field === 'handle' && name === normalizeName(rawQuery.replace(/^@/, '')));
    if (exact) {
      consider({ quality: 'exact', field: v.field, value: v.value });
      continue;
    }
    if (name.startsWith(q)) {
      consider({ quality: 'prefix', field: v.field, value: v.value });
      continue;
    }
    const words = name.split(' ');
    if (qWords.every((w) => words.some((n) => n === w || n.startsWith(w)))) {
      consider({ quality: 'partial', field: v.field, value: v.value });
      continue;
    }
    if (
      qWords.every((w) => {
        const allowed = fuzziness(w);
        return allowed > 0 && words.some((n) => levenshtein(w, n, allowed) <= allowed);
      })
    ) {
      consider({ quality: 'fuzzy', field: v.field, value: v.value });
    }
  }
  return best;
}
