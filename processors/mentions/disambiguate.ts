import type { Transcript } from '../../schemas/generated/index.ts';
import { categoryVocabulary } from './category-vocabulary.ts';
import type { AliasEntry, AliasMatch, Gazetteer } from './gazetteer.ts';
import { functionWord, ordinaryWord } from './lexicon.ts';
import type { LineView } from './line-view.ts';
import type { Token } from './tokenize.ts';

/**
 * Scores the candidates of a match that cannot be taken at face value: an alias that is also
 * everyday language ("Apple", "Congress", "partition"), an alias several entities share
 * ("Supreme Court", "IBM" — the company's name and the network's known misspelling), or an
 * all-caps alias written in lower case. Evidence, per candidate entity:
 *
 *   +2.5  base for an alias that is not itself everyday language (a known variant that is
 *         another entity's name: +1.5); an ambiguous alias starts at 0
 *   case  only in a line written with capitals: a word most often written in lower case
 *         ("apple", "emergency") written capitalised inside a sentence is a name, +2; in lower
 *         case it is the ordinary word for a person or company, −3 (transcribers capitalise
 *         those; they write events in lower case: "partition"); after "a", "an",
 *         "another"… or "to", "could"… it is the ordinary word, and "The Hindu" before a noun an adjective
 *         ("the Hindu vote"): no mention
 *   +3    one of the entity's context terms in the same sentence, +2 within `WINDOW` tokens,
 *         +1 elsewhere in a short line; +1.5 / +0.75 in the facing end of the line before or
 *         after (same / other speaker), +0.5 two lines away
 *   +2    another entity of the same category named in the same sentence ("Apple, Amazon,
 *         Microsoft"), +1 within the window
 *   +1.5  a word of the entity's category vocabulary in the same sentence, +1 within the window
 *   +1.5  the episode is about the entity: at least `TOPICAL_TERMS` of its context terms occur
 *         in the episode, and no rival candidate's terms occur more often
 *   +1    a word most often written in lower case, bare after a preposition ("after
 *         partition", "during emergency"): an ordinary noun would take an article
 *   +2    (several entities share the alias) the same word names this entity nearby in the
 *         line ("IBM Podcast" for the network: one sense per discourse)
 *   +1    the entity is named unambiguously (or confirmed) elsewhere in the episode, +2 on three
 *         lines or more
 *   +0.5  the podcast's categories fit the entity's
 *
 * An ambiguous alias in a sentence of three or more content words with no context term,
 * category word or co-mentioned entity in the sentence or the window is about something else
 * ("Apple pie with vanilla ice cream…"), and nothing from further away rescues it — unless it is
 * written as a name inside the sentence, or (second pass) the episode is about the entity and it
 * does not open the sentence. A candidate is accepted at `ACCEPT_SCORE`; a tie is dropped.
 */
export const ACCEPT_SCORE = 2.5;
/** Tokens either side of a mention read as its neighbourhood. */
export const WINDOW = 40;
/** A line up to this many tokens is short: its every word and its neighbours count. */
const SHORT_LINE = 60;
const SUBSTANTIVE = 3;
/** Distinct context terms of an entity in an episode that make the episode about it. */
export const TOPICAL_TERMS = 3;
const INDEFINITE = new Set(['a', 'an', 'another', 'any', 'every', 'each', 'some', 'no']);
const ARTICLE = /^(the|le|la|les|der|die|das|el|los|las)$/;

const MODALS = new Set(
  "could would should can will must might may did do does cannot can't won't didn't don't".split(' '),
);
const OBJECTS = new Set('the a an this that these those it them our your his her their my its'.split(' '));

/**
 * "you could partition the drive", "to partition the land": after a modal, or after "to" with an
 * object following, the word is a verb ("up to partition" is not).
 */
function verbal(view: LineView, start: number): boolean {
  if (start === 0 || !view.adjacent(start)) return false;
  const before = view.tokens[start - 1]!.norm;
  if (MODALS.has(before)) return true;
  const after = view.tokens[start + 1];
  return before === 'to' && after !== undefined && view.adjacent(start + 1) && OBJECTS.has(after.norm);
}

const PREPOSITIONS = new Set(
  'on after before during since about from until till post pre through into under against of in for'.split(
    ' ',
  ),
);

/** "after partition", "during emergency": right after a preposition, no determiner between. */
function bareAfterPreposition(view: LineView, start: number): boolean {
  if (start === 0 || !view.adjacent(start)) return false;
  if (!PREPOSITIONS.has(view.tokens[start - 1]!.norm)) return false;
  const next = view.tokens[start + 1];
  return !(next && view.adjacent(start + 1) && next.norm === 'of');
}

/**
 * "a partition", "another emergency", "a silent creeping emergency": an indefinite determiner,
 * perhaps with a few lower-case words between, makes the word the ordinary one.
 */
function indefinite(view: LineView, start: number): boolean {
  for (let i = start - 1, k = 0; i >= 0 && k < 4 && view.adjacent(i + 1); i--, k++) {
    const t = view.tokens[i]!;
    if (INDEFINITE.has(t.norm)) return true;
    const c = t.surface[0]!;
    if (functionWord(t.norm) || c !== c.toLowerCase()) return false;
  }
  return false;
}

/**
 * An article name whose word is most often a capitalised adjective or name ("The Hindu") used
 * before a noun is the adjective: "the Hindu vote", "the Hindu nationalists".
 */
function adjectival(view: LineView, head: number, end: number, context: string[][]): boolean {
  if (end !== head + 1 || end >= view.length || !view.adjacent(end)) return false;
  if (view.hasAny(context, end, end + 1)) return false;
  const word = view.tokens[head]!;
  const next = view.tokens[end]!;
  if (ordinaryWord(word.norm) || functionWord(next.norm)) return false;
  const c = next.surface[0]!;
  return c === c.toLowerCase() ? ordinaryWord(next.norm) : !/^(I|I'm|I’m)$/.test(next.surface);
}

/** Which podcast categories fit an entity category (beyond the same slug). */
const CATEGORY_FIT: Record<string, string[]> = {
  technology: ['technology', 'tech-news', 'business', 'investing', 'entrepreneurship'],
  consumer: ['business', 'investing', 'entrepreneurship'],
  automotive: ['business', 'investing', 'technology', 'tech-news'],
  transport: ['business', 'investing', 'economics'],
  finance: ['business', 'economics', 'investing'],
  energy: ['business', 'investing', 'environment', 'science'],
  health: ['health', 'medicine', 'business'],
  media: ['arts', 'tv-film', 'music', 'business'],
  astronomy: ['science', 'space', 'education'],
  'political-parties': ['politics', 'government', 'news'],
  legislatures: ['politics', 'government', 'news'],
};

export function fits(entityCategory: string, podcastCategories: string[]): boolean {
  const fit = CATEGORY_FIT[entityCategory] ?? [entityCategory];
  return podcastCategories.some((c) => c === entityCategory || fit.includes(c));
}

/** A mention taken (or a distinctive match) on a line, by token span. */
export interface Placed {
  start: number;
  end: number;
  entityId: string;
  /** The first word as normalised ("ibm" of "IBM Podcast"). */
  first: string;
}

export interface EpisodeEvidence {
  lines: Transcript['lines'];
  view(line: number): LineView;
  /** Lines naming the entity unambiguously, or confirmed so far, in the episode. */
  confirmedLines(entityId: string): number;
  /** Distinctive or accepted matches per line. */
  placed(line: number): Placed[];
  podcastCategories: string[];
  /** How often each word stem occurs in the episode. */
  episodeStems(): Map<string, number>;
}

/** Candidate entities of a match, each with the entries that name it. */
export function candidatesOf(match: AliasMatch): Map<string, AliasEntry[]> {
  const out = new Map<string, AliasEntry[]>();
  for (const e of match.entries) {
    const list = out.get(e.entityId);
    if (list) list.push(e);
    else out.set(e.entityId, [e]);
  }
  return out;
}

export class Disambiguator {
  private readonly topics = new Map<string, { terms: number; occurrences: number }>();

  constructor(
    private readonly gazetteer: Gazetteer,
    private readonly ep: EpisodeEvidence,
  ) {}

  /**
   * The entity a pending match names, or undefined when the evidence does not decide. When
   * entities share the alias and one has clearly more evidence around the mention, the others
   * drop out before the episode-wide evidence is counted. On the second pass an episode about the
   * entity may vouch for a mention with nothing around it.
   */
  resolve(
    line: number,
    match: AliasMatch,
    pass: number,
  ): { entityId: string; entry: AliasEntry } | undefined {
    const candidates = candidatesOf(match);
    const names = new Set<string>();
    for (const [, entries] of candidates)
      for (const e of entries) if (e.kind !== 'variant') names.add(e.entityId);
    // How much the episode is about each candidate is read only when it can matter: to choose
    // between entities sharing the alias, or on the second pass.
    const weighTopics = candidates.size > 1 || (pass > 0 && this.couldPass(line, match, candidates));
    let mostTopical = 0;
    if (weighTopics)
      for (const id of candidates.keys())
        mostTopical = Math.max(mostTopical, this.topicality(id).occurrences);
    const scored: { entityId: string; entry: AliasEntry; near: number; total: number }[] = [];
    for (const [entityId, entries] of candidates) {
      const entry =
        entries.find((e) => !e.ambiguous && e.kind !== 'variant') ??
        entries.find((e) => !e.ambiguous) ??
        entries[0]!;
      const ambiguous = entries.every((e) => e.ambiguous);
      const variantOfAnother =
        entries.every((e) => e.kind === 'variant') && [...names].some((id) => id !== entityId);
      const topical = weighTopics ? this.topicality(entityId) : { terms: 0, occurrences: 0 };
      scored.push({
        entityId,
        entry,
        ...this.score(entityId, line, match, {
          ambiguous,
          variantOfAnother,
          topical: topical.terms >= TOPICAL_TERMS && topical.occurrences >= mostTopical,
          vouch: pass > 0,
          shared: candidates.size > 1,
        }),
      });
    }
    let field = scored;
    if (scored.length > 1) {
      const nearest = Math.max(...scored.map((c) => c.near));
      if (scored.every((c) => c.near === nearest || c.near <= nearest - 1))
        field = scored.filter((c) => c.near === nearest);
    }
    field.sort((a, b) => b.total - a.total);
    const [best, second] = field;
    if (!best || best.total < ACCEPT_SCORE || (second && second.total === best.total)) return undefined;
    return { entityId: best.entityId, entry: best.entry };
  }

  /** Whether a lone candidate would pass were the episode about it (saves reading the episode). */
  private couldPass(line: number, match: AliasMatch, candidates: Map<string, AliasEntry[]>): boolean {
    const [entityId, entries] = [...candidates][0]!;
    const o = {
      ambiguous: entries.every((e) => e.ambiguous),
      variantOfAnother: false,
      topical: true,
      vouch: true,
      shared: false,
    };
    return this.score(entityId, line, match, o).total >= ACCEPT_SCORE;
  }

  /**
   * How much the episode is about the entity: the distinct context terms of it that occur in the
   * episode, and how often they occur (first words of multi-word terms).
   */
  private topicality(entityId: string): { terms: number; occurrences: number } {
    let t = this.topics.get(entityId);
    if (t === undefined) {
      const counts = this.ep.episodeStems();
      t = { terms: 0, occurrences: 0 };
      for (const term of this.gazetteer.profile(entityId)?.context ?? []) {
        if (!term.every((x) => counts.has(x))) continue;
        t.terms++;
        t.occurrences += counts.get(term[0]!)!;
      }
      this.topics.set(entityId, t);
    }
    return t;
  }

  /** `near`: evidence in the sentence and window; `total`: everything (−∞ when vetoed). */
  private score(
    entityId: string,
    line: number,
    match: AliasMatch,
    o: { ambiguous: boolean; variantOfAnother: boolean; topical: boolean; vouch: boolean; shared: boolean },
  ): { near: number; total: number } {
    const profile = this.gazetteer.profile(entityId);
    const view = this.ep.view(line);
    const { start, end } = match;
    let s = o.ambiguous ? 0 : o.variantOfAnother ? 1.5 : ACCEPT_SCORE;
    if (match.lowercase) s = Math.min(s, 1);
    let written = false;
    // An episode about the entity may vouch for a bare mention of it only where the question is
    // which entity (an alias several share) or whether an ordinary word ("partition") is the
    // name — not for a name that is also another thing's ("the Amazon river").
    let vouchable = o.shared;
    const midSentence = !view.sentenceInitial(start);
    if (o.ambiguous) {
      // The word itself: skip a leading article ("the Emergency").
      const head = end - start > 1 && ARTICLE.test(view.tokens[start]!.norm) ? start + 1 : start;
      const t = view.tokens[head]!;
      vouchable ||= ordinaryWord(t.norm);
      const surface = match.part ? view.text.slice(match.part.start, match.part.end) : t.surface;
      const lower = surface[0] === surface[0]!.toLowerCase();
      if (!match.part && (lower || !view.cased) && (indefinite(view, start) || verbal(view, start)))
        return { near: 0, total: Number.NEGATIVE_INFINITY };
      if (lower && head === start && bareAfterPreposition(view, start) && ordinaryWord(t.norm)) s += 1;
      if (head > start && adjectival(view, head, end, profile?.context ?? []))
        return { near: 0, total: Number.NEGATIVE_INFINITY };
      if (view.cased) {
        const first = surface[0]!;
        if (first === first.toLowerCase()) {
          // Transcribers capitalise people and companies, not always events ("partition").
          if (profile?.kind === 'PERSON' || profile?.kind === 'COMPANY') s -= 4;
        } else if ((match.part || !view.sentenceInitial(head)) && ordinaryWord(t.norm)) {
          s += 2;
          written = true;
        }
      }
    }
    const sentence = view.sentence(start);
    const [sFrom, sTo] = view.sentenceRange(sentence);
    const wFrom = start - WINDOW;
    const wTo = end + WINDOW;
    const context = profile?.context ?? [];
    const vocabulary = profile ? categoryVocabulary(profile.categorySlug) : [];

    let support = 0;
    // Context terms.
    if (context.length > 0) {
      if (view.hasAny(context, sFrom, sTo)) support = 3;
      else if (view.hasAny(context, wFrom, wTo)) support = 2;
      else if (view.length <= SHORT_LINE && view.hasAny(context, 0, view.length)) support = 1;
    }
    // Entities of the same category named nearby.
    const co = this.coMention(entityId, line, match, sFrom, sTo, wFrom, wTo);
    // The category's vocabulary.
    let vocab = 0;
    if (vocabulary.length > 0) {
      if (view.hasAny(vocabulary, sFrom, sTo)) vocab = 1.5;
      else if (view.hasAny(vocabulary, wFrom, wTo)) vocab = 0.5;
    }
    // One sense per discourse: the same word naming this entity nearby ("IBM Podcast" → IVM).
    const same = o.shared && this.sameWordNearby(entityId, line, match) ? 2 : 0;
    const near = support + co + vocab + same;
    if (
      near === 0 &&
      o.ambiguous &&
      !written &&
      !(o.vouch && o.topical && midSentence && vouchable) &&
      this.contentWords(view, sFrom, sTo, start, end) >= SUBSTANTIVE
    )
      return { near, total: s };
    s += near;

    // Neighbouring lines, read at the end that faces this mention.
    if (context.length > 0 && support < 3) {
      const speaker = this.ep.lines[line]!.speaker;
      let around = 0;
      if (start < WINDOW) around = Math.max(around, this.facing(entityId, line - 1, 'end', speaker));
      if (view.length - end < WINDOW)
        around = Math.max(around, this.facing(entityId, line + 1, 'start', speaker));
      if (around === 0 && view.length <= SHORT_LINE) {
        if (this.shortHas(entityId, line - 2) || this.shortHas(entityId, line + 2)) around = 0.5;
      }
      s += around;
    }
    if (o.topical) s += 1.5;
    const elsewhere = this.ep.confirmedLines(entityId);
    if (elsewhere >= 3) s += 2;
    else if (elsewhere > 0) s += 1;
    if (profile && fits(profile.categorySlug, this.ep.podcastCategories)) s += 0.5;
    return { near, total: s };
  }

  /** Context of `entityId` in the facing part of line `j`: 1.5 by the same speaker, else 0.75. */
  private facing(entityId: string, j: number, edge: 'start' | 'end', speaker: string): number {
    if (j < 0 || j >= this.ep.lines.length) return 0;
    const context = this.gazetteer.profile(entityId)?.context ?? [];
    const v = this.ep.view(j);
    const [from, to] = edge === 'start' ? [0, WINDOW] : [v.length - WINDOW, v.length];
    if (!v.hasAny(context, from, to)) return 0;
    return this.ep.lines[j]!.speaker === speaker ? 1.5 : 0.75;
  }

  private shortHas(entityId: string, j: number): boolean {
    if (j < 0 || j >= this.ep.lines.length) return false;
    const v = this.ep.view(j);
    const context = this.gazetteer.profile(entityId)?.context ?? [];
    return v.length <= SHORT_LINE && v.hasAny(context, 0, v.length);
  }

  private sameWordNearby(entityId: string, line: number, match: AliasMatch): boolean {
    const word = this.ep.view(line).tokens[match.start]!.norm;
    for (const p of this.ep.placed(line)) {
      if (p.entityId === entityId && p.first === word && Math.abs(p.start - match.start) <= 3 * WINDOW)
        return true;
    }
    return false;
  }

  private coMention(
    entityId: string,
    line: number,
    match: AliasMatch,
    sFrom: number,
    sTo: number,
    wFrom: number,
    wTo: number,
  ): number {
    const profile = this.gazetteer.profile(entityId);
    if (!profile) return 0;
    let best = 0;
    for (const p of this.ep.placed(line)) {
      if (p.entityId === entityId || (p.start === match.start && p.end === match.end)) continue;
      const other = this.gazetteer.profile(p.entityId);
      if (!other) continue;
      if (other.categorySlug !== profile.categorySlug) continue;
      if (p.start >= sFrom && p.start < sTo) return 2;
      if (p.start >= wFrom && p.start < wTo) best = 1;
    }
    return best;
  }

  private contentWords(view: LineView, from: number, to: number, start: number, end: number): number {
    let n = 0;
    for (let i = from; i < to; i++) {
      if (i >= start && i < end) continue;
      const norm = view.tokens[i]!.norm;
      if (norm.length >= 3 && !functionWord(norm) && !/^\d/.test(norm)) n++;
    }
    return n;
  }
}

const TITLES = new Set(
  (
    'mr mrs ms miss mister madam dr doctor prof professor sir lord lady shri sri smt mahatma pandit sardar ' +
    'president prime minister emperor king queen justice general colonel captain saint st chairman comrade ' +
    'netaji babu ji guru swami sheikh'
  ).split(' '),
);

/**
 * A one-word alias of a person right after, or right before, another capitalised name is
 * someone else's name: "Rahul Gandhi", "Frontier Gandhi", "MJ Akbar", "Ashoka University". For
 * other entities only initials count ("JRD Tata"). Titles ("Mrs. Gandhi", "Emperor Akbar") and
 * sentence openings ("So Gandhi said") do not.
 */
export function partOfAnotherName(
  tokens: Token[],
  match: AliasMatch,
  person: boolean,
  view: (line: number) => LineView,
  line: number,
): boolean {
  if (match.end - match.start !== 1) return false;
  const i = match.start;
  // Cheap test first: a capitalised word either side (the next one only matters for a person).
  const before = i > 0 && startsUpper(tokens[i - 1]!.surface);
  const after = person && i + 1 < tokens.length && startsUpper(tokens[i + 1]!.surface);
  if (!before && !after) return false;
  return nameAround(view(line), i, person);
}

function nameAround(view: LineView, i: number, person: boolean): boolean {
  if (!view.cased) return false;
  const prev = i > 0 && view.adjacent(i) ? view.tokens[i - 1]! : undefined;
  if (prev && !TITLES.has(prev.norm) && startsUpper(prev.surface)) {
    if (/^\p{Lu}{2,4}$/u.test(prev.surface)) return true;
    if (person && (!ordinaryWord(prev.norm) || !view.sentenceInitial(i - 1))) return true;
  }
  const next = view.adjacent(i + 1) ? view.tokens[i + 1] : undefined;
  if (person && next && startsUpper(next.surface) && !TITLES.has(next.norm) && next.surface !== 'I')
    return true;
  return false;
}

function startsUpper(s: string): boolean {
  const c = s[0]!;
  return c !== c.toLowerCase();
}
