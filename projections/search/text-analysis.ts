import { foldToAscii } from '../../schemas/text-folding.ts';
import type { KeywordQuery } from './search-index.ts';

/**
 * The analyser both engines apply to indexed text and queries, restated here for the few places
 * the query layer needs it (parsing queries, name matching):
 *
 *   split on every character that is not a letter or a digit → lower case → fold accents to
 *   ASCII (é → e, ß → ss: `foldToAscii`) → drop tokens longer than 40 characters.
 *
 * No stemming and no stop words: a quoted phrase matches exactly those words in that order.
 * LanceDB: the `simple` tokenizer with `lowercase`, `asciiFolding`, positions, no stemming and no
 * stop-word removal. OpenSearch: a `pattern` tokenizer on `[^\p{L}\p{N}]+` with the `lowercase`,
 * `asciifolding` and `length` (max 40) filters.
 */
export const MAX_TOKEN_LENGTH = 40;

/** Words of `text` as the engines index them. */
export function analyze(text: string): string[] {
  return foldToAscii(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t.length > 0 && t.length <= MAX_TOKEN_LENGTH);
}

/**
 * Parses a `keyword_search` string: each double-quoted sequence is a phrase; everything outside
 * quotes is free words. A quote without its closing partner is ignored. Phrases of a single word
 * stay phrases (the word must occur); empty phrases are dropped.
 */
export function parseKeywordQuery(input: string): KeywordQuery {
  const phrases: string[] = [];
  const free: string[] = [];
  const normalized = input.replace(/[“”„«»]/g, '"');
  const parts = normalized.split('"');
  // Odd indexes are inside quotes; with an unbalanced quote the last part is outside.
  const balanced = parts.length % 2 === 1;
  parts.forEach((part, i) => {
    const inside = i % 2 === 1 && (balanced || i < parts.length - 1);
    if (inside) {
      const words = analyze(part);
      if (words.length > 0) phrases.push(words.join(' '));
    } else {
      free.push(...analyze(part));
    }
  });
  return { phrases, words: [...new Set(free)] };
}

export function isEmptyKeywordQuery(q: KeywordQuery): boolean {
  return q.phrases.length === 0 && q.words.length === 0;
}
