import { EXACT_TERM } from './gazetteer.ts';
import { stem, type Token } from './tokenize.ts';

/**
 * What the disambiguation needs to know about one transcript line beyond its tokens, computed
 * only for lines that hold a candidate: token stems, sentences (a turn of speech-to-text can run
 * to thousands of words, so context is read per sentence and in a window of tokens, not per
 * line), and whether the line is written with capitals at all.
 */
const stemCache = new Map<string, string>();

/** Stems of words seen recently (a bounded cache: the same words recur across lines). */
export function cachedStem(norm: string): string {
  let s = stemCache.get(norm);
  if (s === undefined) {
    if (stemCache.size >= 100_000) stemCache.clear();
    s = stem(norm);
    stemCache.set(norm, s);
  }
  return s;
}

const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'st',
  'vs',
  'prof',
  'sr',
  'jr',
  'no',
  'lt',
  'gen',
  'col',
]);

export class LineView {
  private stemList?: string[];
  private positionList?: Map<string, number[]>;
  private sentenceOf?: Int32Array;
  private sentenceStarts?: number[];
  private casedFlag?: boolean;

  constructor(
    readonly text: string,
    readonly tokens: Token[],
  ) {}

  get length(): number {
    return this.tokens.length;
  }

  stems(): string[] {
    this.stemList ??= this.tokens.map((t) => cachedStem(t.norm));
    return this.stemList;
  }

  /** Written with capitals somewhere (else capitalisation says nothing). */
  get cased(): boolean {
    if (this.casedFlag === undefined) {
      this.casedFlag = this.tokens.some((t) => {
        const c = t.surface[0]!;
        return c !== c.toLowerCase() && t.surface !== 'I';
      });
    }
    return this.casedFlag;
  }

  /** Sentence index of token i. */
  sentence(i: number): number {
    this.splitSentences();
    return this.sentenceOf![i]!;
  }

  /** Token range [start, end) of sentence s. */
  sentenceRange(s: number): [number, number] {
    this.splitSentences();
    const starts = this.sentenceStarts!;
    return [starts[s]!, starts[s + 1] ?? this.tokens.length];
  }

  /** Token i begins its sentence. */
  sentenceInitial(i: number): boolean {
    return i === 0 || this.sentence(i) !== this.sentence(i - 1);
  }

  /** Only white space between tokens i-1 and i. */
  adjacent(i: number): boolean {
    if (i <= 0 || i >= this.tokens.length) return false;
    const text = this.text;
    const from = this.tokens[i - 1]!.end;
    const to = this.tokens[i]!.start;
    if (to <= from) return false;
    for (let k = from; k < to; k++) {
      const c = text.charCodeAt(k);
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13 && c !== 160) return false;
    }
    return true;
  }

  /** Whether a stem sequence occurs with its first token in [from, to). */
  has(term: string[], from: number, to: number): boolean {
    const lo = Math.max(0, from);
    const hi = Math.min(to, this.tokens.length);
    if (term.length === 1 && term[0]!.startsWith(EXACT_TERM)) {
      const surface = term[0]!.slice(1);
      for (let i = lo; i < hi; i++) if (this.tokens[i]!.surface === surface) return true;
      return false;
    }
    const at = this.positions().get(term[0]!);
    if (!at) return false;
    const stems = this.stems();
    outer: for (const i of at) {
      if (i < lo || i >= hi) continue;
      for (let k = 1; k < term.length; k++) if (stems[i + k] !== term[k]) continue outer;
      return true;
    }
    return false;
  }

  /** Token positions of each stem. */
  private positions(): Map<string, number[]> {
    if (!this.positionList) {
      const map = new Map<string, number[]>();
      const stems = this.stems();
      for (let i = 0; i < stems.length; i++) {
        const list = map.get(stems[i]!);
        if (list) list.push(i);
        else map.set(stems[i]!, [i]);
      }
      this.positionList = map;
    }
    return this.positionList;
  }

  hasAny(terms: string[][], from: number, to: number): boolean {
    const lo = Math.max(0, from);
    const hi = Math.min(to, this.tokens.length);
    // A long list against a short range: look each word of the range up instead.
    if (terms.length > 8 && hi - lo < terms.length) {
      const byFirst = firstWords(terms);
      const stems = this.stems();
      for (let i = lo; i < hi; i++) {
        const candidates = byFirst.get(stems[i]!);
        if (candidates) for (const t of candidates) if (this.has(t, i, i + 1)) return true;
      }
      return false;
    }
    for (const t of terms) if (this.has(t, lo, hi)) return true;
    return false;
  }

  private splitSentences(): void {
    if (this.sentenceOf) return;
    const n = this.tokens.length;
    const of = new Int32Array(n);
    const starts = [0];
    const text = this.text;
    for (let i = 1; i < n; i++) {
      const prev = this.tokens[i - 1]!;
      // A full stop, question or exclamation mark, ellipsis or line break between the words ends
      // a sentence, except the full stop of an abbreviation ("Mrs. Gandhi").
      for (let k = prev.end; k < this.tokens[i]!.start; k++) {
        const c = text.charCodeAt(k);
        if (
          c === 33 ||
          c === 63 ||
          c === 8230 ||
          c === 10 ||
          (c === 46 && !(k === prev.end && ABBREVIATIONS.has(prev.norm)))
        ) {
          starts.push(i);
          break;
        }
      }
      of[i] = starts.length - 1;
    }
    this.sentenceOf = of;
    this.sentenceStarts = starts;
  }
}

const byFirstCache = new WeakMap<string[][], Map<string, string[][]>>();

/** Terms by their first stem (cached per list). */
function firstWords(terms: string[][]): Map<string, string[][]> {
  let map = byFirstCache.get(terms);
  if (!map) {
    map = new Map();
    for (const t of terms) {
      const list = map.get(t[0]!);
      if (list) list.push(t);
      else map.set(t[0]!, [t]);
    }
    byFirstCache.set(terms, map);
  }
  return map;
}
