import type { AlertMatched } from '../../../schemas/generated/index.ts';
import { foldAccents } from '../../../schemas/text-folding.ts';

/**
 * The extractive summary of a match: sentences of its windows, chosen to cover the matched terms
 * (the mention variants of a mention match), in transcript order, each run of one speaker
 * introduced by the speaker's name. Deterministic: the same match always gives the same text.
 *
 * Choice: greedy cover — the sentence naming the most terms not yet covered, ties to a sentence
 * of a mention line, then the earlier one — until every term is covered (at most
 * `MAX_SENTENCES`); then, if fewer than `MIN_SENTENCES` were chosen, the next sentences naming a
 * term (or else of mention lines). A speaker match has no terms: its speaker's first sentences of
 * some substance. A sentence is a line's text split after `.`, `!`, `?` or `…`.
 */
export const MAX_SENTENCES = 3;
export const MIN_SENTENCES = 2;
/** Longest summary; a longer one is cut at a word and ends with `…`. */
export const MAX_SUMMARY_CHARS = 480;
/** A speaker match skips sentences shorter than this ("Thanks.", "Right."). */
const SUBSTANTIAL_CHARS = 20;

interface Sentence {
  /** Position in the windows (window, line, sentence), for transcript order. */
  order: number;
  speaker: string;
  text: string;
  folded: string;
  onMentionLine: boolean;
}

export type SummarizedMatch = Pick<AlertMatched, 'kind' | 'mention_variants' | 'windows'>;

export function extractiveSummary(match: SummarizedMatch): string {
  const sentences = sentencesOf(match);
  if (sentences.length === 0) return '';
  const terms =
    match.kind === 'ENTITY_MENTION' ? [...new Set(match.mention_variants.map(fold).filter(Boolean))] : [];
  const chosen = terms.length > 0 ? coverTerms(sentences, terms) : speakerSentences(sentences);
  return render(chosen.sort((a, b) => a.order - b.order));
}

function fold(text: string): string {
  return foldAccents(text).toLowerCase().replace(/\s+/g, ' ').trim();
}

function sentencesOf(match: SummarizedMatch): Sentence[] {
  const out: Sentence[] = [];
  const seen = new Set<string>();
  let order = 0;
  for (const window of match.windows) {
    for (const line of window.lines) {
      for (const part of line.text.split(/(?<=[.!?…])\s+(?=\S)/)) {
        const text = part.replace(/\s+/g, ' ').trim();
        order++;
        // Overlapping windows repeat a line: keep its first occurrence.
        const key = `${line.start_seconds}\u0000${text}`;
        if (!text || seen.has(key)) continue;
        seen.add(key);
        out.push({ order, speaker: line.speaker, text, folded: fold(text), onMentionLine: line.is_mention });
      }
    }
  }
  return out;
}

/** Whether `term` occurs in `folded` as whole words. */
function names(folded: string, term: string): boolean {
  let from = 0;
  for (;;) {
    const at = folded.indexOf(term, from);
    if (at < 0) return false;
    const before = at === 0 ? '' : folded[at - 1]!;
    const after = folded[at + term.length] ?? '';
    if (!/[\p{L}\p{N}]/u.test(before) && !/[\p{L}\p{N}]/u.test(after)) return true;
    from = at + 1;
  }
}

function coverTerms(sentences: Sentence[], terms: string[]): Sentence[] {
  const termsOf = new Map(sentences.map((s) => [s, terms.filter((t) => names(s.folded, t))]));
  const chosen: Sentence[] = [];
  const covered = new Set<string>();
  const better = (a: Sentence, b: Sentence, gainA: number, gainB: number) =>
    gainA !== gainB
      ? gainA > gainB
      : a.onMentionLine !== b.onMentionLine
        ? a.onMentionLine
        : a.order < b.order;
  while (chosen.length < MAX_SENTENCES && covered.size < terms.length) {
    let best: Sentence | undefined;
    let bestGain = 0;
    for (const s of sentences) {
      if (chosen.includes(s)) continue;
      const gain = termsOf.get(s)!.filter((t) => !covered.has(t)).length;
      if (gain > 0 && (!best || better(s, best, gain, bestGain))) {
        best = s;
        bestGain = gain;
      }
    }
    if (!best) break;
    chosen.push(best);
    for (const t of termsOf.get(best)!) covered.add(t);
  }
  // Fill up to the minimum: sentences naming a term, then sentences of mention lines.
  const rest = sentences
    .filter((s) => !chosen.includes(s))
    .filter((s) => termsOf.get(s)!.length > 0 || s.onMentionLine)
    .sort((a, b) =>
      termsOf.get(a)!.length > 0 !== termsOf.get(b)!.length > 0
        ? termsOf.get(a)!.length > 0
          ? -1
          : 1
        : a.order - b.order,
    );
  while (chosen.length < MIN_SENTENCES && rest.length > 0) chosen.push(rest.shift()!);
  return chosen.length > 0 ? chosen : sentences.slice(0, MIN_SENTENCES);
}

function speakerSentences(sentences: Sentence[]): Sentence[] {
  const substantial = sentences.filter((s) => s.text.length >= SUBSTANTIAL_CHARS);
  return (substantial.length > 0 ? substantial : sentences).slice(0, MIN_SENTENCES);
}

function render(chosen: Sentence[]): string {
  const parts: string[] = [];
  let speaker: string | undefined;
  for (const s of chosen) {
    parts.push(s.speaker !== speaker ? `${s.speaker}: ${s.text}` : s.text);
    speaker = s.speaker;
  }
  const text = parts.join(' … ');
  if (text.length <= MAX_SUMMARY_CHARS) return text;
  const cut = text.slice(0, MAX_SUMMARY_CHARS - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > MAX_SUMMARY_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
