import type { KeywordQuery } from './search-index.ts';

/**
 * The one analyser of search text: the search projector runs it on what it indexes (lines and
 * names) and the query layer on every query, and both engines only split its output at spaces
 * (LanceDB: the `whitespace` tokenizer without lower-casing, folding or stemming; OpenSearch: the
 * `whitespace` tokenizer without filters), so a word is indexed and looked up as the same token on
 * LanceDB and OpenSearch alike:
 *
 * 1. lower case, compatibility decomposition (NFKD: ﬁ → fi, ² → 2);
 * 2. combining marks dropped where they are accents — after a Latin or Greek letter
 *    (é → e, ά → α), Arabic harakat and the tatweel, Hebrew points — and kept where they
 *    are part of the letter, as the vowel signs of Devanagari and other Indic scripts are
 *    ("किसान" stays one word with its signs); then recomposed (NFC);
 * 3. Latin letters without a decomposition spelled in ASCII (ß → ss, æ → ae, ø → o);
 * 4. words: runs of letters, combining marks and digits; each Han, Hiragana or Katakana character
 *    (ー and 々 included) is a word of its own, and ends the run before it, as Lucene's standard
 *    tokenizer does, so a Chinese or Japanese word is found as a phrase of its characters
 *    ("東京" within "東京都に住んでいます", and within "2024年に東京でAIの…" and "iphone很好",
 *    where a digit or a Latin letter comes first);
 * 5. words longer than 40 characters are dropped.
 *
 * No stemming and no stop words: a quoted phrase matches exactly those words in that order.
 */
export const MAX_TOKEN_LENGTH = 40;

/** Accents: marks after a Latin or Greek letter. */
const ACCENTS = /(?<=[\p{Script=Latin}\p{Script=Greek}]\p{M}*)\p{M}/gu;
/** Arabic harakat, superscript alef and tatweel; Hebrew points and cantillation. */
const VOWEL_POINTS = /[\u064B-\u065F\u0670\u0640\u0591-\u05BD\u05BF\u05C1\u05C2\u05C4\u05C5\u05C7]/gu;
/**
 * A Han, Hiragana or Katakana letter or digit, by script extension, so the marks shared by the
 * kana (the prolonged sound mark ー) and by Han (々, 〆, 〇) count too; CJK punctuation does not.
 */
const CJK = String.raw`[[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}]&&[\p{L}\p{N}]]`;
/** A CJK character alone, or a run of other letters, marks and digits (a set difference: `v` flag). */
const WORDS = new RegExp(String.raw`${CJK}|[[\p{L}\p{M}\p{N}]--${CJK}]+`, 'gv');

const LETTERS_TO_ASCII: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ł: 'l',
  ı: 'i',
};

/** `text` normalised as the analyser compares it (steps 1-3), before it is cut into words. */
export function normalizeText(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(ACCENTS, '')
    .replace(VOWEL_POINTS, '')
    .normalize('NFC')
    .replace(/[ßæœøđðþłı]/g, (c) => LETTERS_TO_ASCII[c] ?? c);
}

/** Words of `text` as they are indexed and searched. */
export function analyze(text: string): string[] {
  const out: string[] = [];
  for (const m of normalizeText(text).matchAll(WORDS)) {
    // A run that starts with a mark (a stray sign after punctuation or a spacing accent such as
    // ´, which NFKD turns into a space and a mark) keeps only what follows it: a word never
    // starts with a mark.
    const word = m[0].replace(/^\p{M}+/u, '');
    if (word.length > 0 && word.length <= MAX_TOKEN_LENGTH) out.push(word);
  }
  return out;
}

/** What an engine indexes for `text`: its words, space-separated (the engines split at spaces only). */
export function indexTerms(text: string): string {
  return analyze(text).join(' ');
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

/**
 * Whether `terms` — a line's indexed words, space-separated — holds every quoted phrase of `q`
 * as consecutive words (false when `q` quotes none).
 */
export function holdsPhrases(q: KeywordQuery, terms: string): boolean {
  const padded = ` ${terms} `;
  return q.phrases.length > 0 && q.phrases.every((p) => padded.includes(` ${p} `));
}

export function isEmptyKeywordQuery(q: KeywordQuery): boolean {
  return q.phrases.length === 0 && q.words.length === 0;
}
