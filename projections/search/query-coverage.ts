import stopwords from 'stopword';
import type { KeywordQuery } from './search-index.ts';
import { analyze } from './text-analysis.ts';

/**
 * Function-word lists (the `stopword` package's) of the languages a query is most likely in,
 * English first: it wins a tie. Each list goes through the analyser, so its words compare with a
 * query's as indexed words do (accents folded: "à" → "a", "für" → "fur").
 */
const LANGUAGES = ['eng', 'fra', 'deu', 'spa', 'ita', 'por', 'nld', 'rus', 'ara', 'hin'] as const;

let lists: Set<string>[] | undefined;

function functionWordLists(): Set<string>[] {
  lists ??= LANGUAGES.map((l) => new Set(stopwords[l].flatMap((w) => analyze(w))));
  return lists;
}

/**
 * The words of a query that name what it is about: its words less the function words ("too",
 * "for", "the", "la", "die") of the one language whose list holds most of them (none dropped when
 * no list holds any; all kept when every word is one). One list, not all of them: "war", "van"
 * and "man" are function words in German or Dutch and content words in English.
 */
export function contentWords(words: readonly string[]): readonly string[] {
  let best: Set<string> | undefined;
  let most = 0;
  for (const list of functionWordLists()) {
    const n = words.filter((w) => list.has(w)).length;
    if (n > most) {
      best = list;
      most = n;
    }
  }
  if (!best) return words;
  const content = words.filter((w) => !best.has(w));
  return content.length > 0 ? content : words;
}

/**
 * The share of a keyword query's distinct content words (free and in phrases; contentWords) that
 * `terms` — a line's indexed words, space-separated — holds: 1 when the line has every one, 0.25
 * when it shares one of four. A line sharing only "too" and "for" with a question holds none of
 * what it asks. The query's content words are found once; the function weighs each line.
 */
export function coverageOf(q: KeywordQuery): (terms: string) => number {
  const wanted = contentWords([...new Set([...q.phrases.flatMap((p) => p.split(' ')), ...q.words])]);
  return (terms) => {
    if (wanted.length === 0) return 0;
    const have = new Set(terms.split(' '));
    let n = 0;
    for (const w of wanted) if (have.has(w)) n++;
    return n / wanted.length;
  };
}
