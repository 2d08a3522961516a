import type { Entity, SpeakersIdentified, Transcript } from '../../schemas/generated/index.ts';
import { foldAccents as fold } from '../../schemas/text-folding.ts';
import type { Gazetteer } from '../mentions/gazetteer.ts';
import { LineView } from '../mentions/line-view.ts';
import { phoneticKey } from '../mentions/phonetic.ts';
import { type Token, tokenize } from '../mentions/tokenize.ts';
import { type Cue, type Ref, readCues } from './cues.ts';

/**
 * Who speaks under each diarization label: every label is scored against every person who can be
 * in the room, from what the dialogue says (cues.ts), what the label itself says, and the credits.
 *
 *   +4    the label is the person's name ("Amit Varma"), or the person introduces themselves in it
 *   +3    a hand-off names the person right before the label speaks
 *   +1.5  the person is addressed at the end of the turn before the label speaks (+0.5 in the
 *         middle of it), +1 addressed at the start of the turn after it
 *   −1    the label addresses the person (nobody talks to themselves)
 *   −2    the label is a diarizer's leftover ("Unknown" speaking under 5 % of the words), for
 *         anyone: a single hand-off right before it (the jingle after an introduction) is not enough
 *
 * Who can be in the room: the podcast's hosts, the people the episode credits, and people who
 * introduce themselves, are handed over to, or name a label — never someone who is only talked
 * about. Labels and people are matched strongest first, one to one; an assignment needs a score of
 * at least `MIN_SCORE`, and carries a confidence that grows with it. Then the credits fill gaps: a
 * host not placed by the dialogue takes the busiest label left (if nothing speaks against it),
 * and a single credited guest left takes a single substantial label left, or, among several the
 * dialogue cannot tell apart, the one that speaks twice the words of any other.
 */
type Role = SpeakersIdentified['speakers'][number]['role'];

export const MIN_SCORE = 1.5;
const WEIGHT = {
  label: 4,
  self: 4,
  handoff: 3,
  next: 1.5,
  nextWeak: 0.5,
  prev: 1,
  addressed: -1,
  mentioned: -0.25,
  leftover: -2,
};
/** Evidence that counts once or twice at most; the rest grows with the log of its count. */
const ONCE = new Set<keyof typeof WEIGHT>(['label', 'leftover']);
const TWICE = new Set<keyof typeof WEIGHT>(['self', 'handoff']);

/** How much n pieces of evidence of one kind weigh: 1, 2, then one more per doubling. */
function amount(kind: keyof typeof WEIGHT, n: number): number {
  if (ONCE.has(kind)) return Math.min(n, 1);
  if (TWICE.has(kind)) return Math.min(n, 2);
  // Naming someone in passing is weak evidence that adds up: each time counts.
  if (kind === 'mentioned') return n;
  return n <= 2 ? n : 1 + Math.log2(n);
}
/**
 * A single credited guest left with a single label left takes it unless the label speaks against
 * it: named in passing up to four times is tolerated (merged turns carry the host's words about
 * the guest), more is not — unless those names are rare in what the label says (`STORY_RATE`).
 */
const LONE_FLOOR = -1;
/** Passing names per 1,000 words of a label that a storyteller's reported speech explains. */
const STORY_RATE = 2;
/** A label that speaks this many times the words of every other label left is the voice. */
const DOMINANT = 2;
/** A label speaking less than this share of the words is not a person's only label. */
const SUBSTANTIAL = 0.05;

export interface Candidate {
  key: string;
  personId: string | null;
  name: string;
  /** First name, folded, and its phonetic key. */
  first: string;
  firstKey: string;
  /** Role from the credits or the podcast's hosts. */
  credited: Role | null;
  /** Role suggested by how the dialogue brought them in. */
  hint: Role | null;
  /** In the room: credited, a host, introduced, handed over to, or named by a label. */
  present: boolean;
}

export interface Assignment {
  cand: Candidate;
  score: number;
  /** 0-1: how sure the identification is. */
  confidence: number;
}

export interface AssignInput {
  transcript: Transcript;
  hosts: string[];
  credits: { name: string; role: Role }[];
  gazetteer: Gazetteer;
  entity(id: string): Pick<Entity, 'id' | 'name' | 'kind'> | undefined;
  /** Labels that are recorded audio (heard only inside ad reads): never a person. */
  recorded: Set<string>;
}

export interface AssignResult {
  labels: string[];
  assigned: Map<string, Assignment>;
  /** Labels a call-in introduced (and nothing else identifies), with the caller's name. */
  callers: Map<string, string>;
  candidates: Map<string, Candidate>;
}

const LEFTOVER_LABEL = /^(unknown|unk|other|overlap|mixed|none|noise)$/i;

export function assignSpeakers(input: AssignInput): AssignResult {
  const { transcript, gazetteer } = input;
  const lines = transcript.lines;
  const labels: string[] = [];
  const lineCount = new Map<string, number>();
  const words = new Map<string, number>();
  let totalWords = 0;
  for (const l of lines) {
    if (!lineCount.has(l.speaker)) labels.push(l.speaker);
    lineCount.set(l.speaker, (lineCount.get(l.speaker) ?? 0) + 1);
    const n = l.text.split(/\s+/).length;
    words.set(l.speaker, (words.get(l.speaker) ?? 0) + n);
    totalWords += n;
  }

  /**
   * A diarizer's leftover label ("Unknown") that speaks little: jingles, announcements, fragments.
   * One that speaks a good part of the episode is somebody's.
   */
  const leftover = (label: string) =>
    LEFTOVER_LABEL.test(label.trim()) && (words.get(label) ?? 0) < SUBSTANTIAL * totalWords;

  // Candidates.
  const candidates = new Map<string, Candidate>();
  const add = (personId: string | null, name: string, credited: Role | null, present: boolean): Candidate => {
    const key = personId ?? `name:${fold(name)}`;
    let c = candidates.get(key);
    if (!c) {
      const first = fold(tokenize(name)[0]?.surface ?? name);
      c = {
        key,
        personId,
        name,
        first,
        firstKey: phoneticKey(first),
        credited: null,
        hint: null,
        present: false,
      };
      candidates.set(key, c);
    }
    if (credited && (!c.credited || credited === 'HOST')) c.credited = credited;
    c.present ||= present;
    return c;
  };
  const personIn = (tokens: Token[]): { id: string; start: number; end: number; possessive: boolean }[] => {
    const out: { id: string; start: number; end: number; possessive: boolean }[] = [];
    for (const m of gazetteer.match(tokens)) {
      const people = [...new Set(m.entries.map((e) => e.entityId))].filter(
        (id) => input.entity(id)?.kind === 'PERSON',
      );
      // An alias several people share names whoever of them is in the room (else nobody).
      const present = people.filter((id) => candidates.get(id)?.present);
      const id = people.length === 1 ? people[0]! : present.length === 1 ? present[0]! : undefined;
      if (id) out.push({ id, start: m.start, end: m.end, possessive: tokens[m.end - 1]!.possessive });
    }
    return out;
  };
  for (const id of input.hosts) {
    const e = input.entity(id);
    if (e) add(id, e.name, 'HOST', true);
  }
  // A credit whose name several catalog people share (one's name, the others' alias: a guest
  // and the historical figure of the same name) credits the one whose name it is.
  const byName = (name: string): string | null => {
    const tokens = tokenize(name);
    const want = fold(name).toLowerCase().trim();
    for (const m of gazetteer.match(tokens)) {
      if (m.start !== 0 || m.end !== tokens.length) continue;
      const named = [...new Set(m.entries.map((e) => e.entityId))].filter((id) => {
        const e = input.entity(id);
        return e?.kind === 'PERSON' && fold(e.name).toLowerCase().trim() === want;
      });
      if (named.length === 1) return named[0]!;
    }
    return null;
  };
  for (const p of input.credits) {
    const found = personIn(tokenize(p.name));
    const id = found.length === 1 ? found[0]!.id : byName(p.name);
    add(id, id ? input.entity(id)!.name : p.name, p.role, true);
  }

  const score = new Map<string, Map<string, { total: number; counts: Map<string, number> }>>();
  const vote = (label: string | undefined, key: string, kind: keyof typeof WEIGHT) => {
    if (label === undefined || input.recorded.has(label)) return;
    let row = score.get(label);
    if (!row) {
      row = new Map();
      score.set(label, row);
    }
    let cell = row.get(key);
    if (!cell) {
      cell = { total: 0, counts: new Map() };
      row.set(key, cell);
    }
    const n = cell.counts.get(kind) ?? 0;
    cell.counts.set(kind, n + 1);
    cell.total += WEIGHT[kind] * (amount(kind, n + 1) - amount(kind, n));
  };

  // A label that is a person's name.
  for (const label of labels) {
    const tokens = tokenize(label);
    const found = personIn(tokens);
    if (found.length === 1 && found[0]!.start === 0 && found[0]!.end === tokens.length) {
      const e = input.entity(found[0]!.id)!;
      const c = add(e.id, e.name, null, true);
      vote(label, c.key, 'label');
    }
  }

  // The dialogue.
  const nextLabel = (i: number): string | undefined => {
    for (let j = i + 1; j < lines.length; j++)
      if (lines[j]!.speaker !== lines[i]!.speaker) return lines[j]!.speaker;
    return undefined;
  };
  const prevLabel = (i: number): string | undefined => {
    for (let j = i - 1; j >= 0; j--) if (lines[j]!.speaker !== lines[i]!.speaker) return lines[j]!.speaker;
    return undefined;
  };
  /** The speaker of line i speaks the next line too: whatever line i handed over did not happen. */
  const goesOn = (i: number) => lines[i + 1]?.speaker === lines[i]!.speaker;
  const callers = new Map<string, string>();
  // First who is in the room (from full names), then the cues again with first names too.
  const views = lines.map((l) => new LineView(l.text, tokenize(l.text)));
  const fullRefs = views.map((view) => refsOf(view, personIn, candidates, add, input, false));
  const learn = (cues: Cue[], i: number) => {
    for (const cue of cues) {
      if (cue.kind === 'self' || (cue.kind === 'handoff' && !cue.weak)) {
        const c = candidates.get(cue.key)!;
        c.present = true;
        if (cue.kind === 'handoff') c.hint ??= cue.hint;
      } else if (cue.kind === 'panel') {
        for (const key of cue.keys) {
          const c = candidates.get(key)!;
          c.present = true;
          c.hint ??= cue.hint;
        }
      } else if (cue.kind === 'caller') {
        const next = nextLabel(i);
        if (next) callers.set(next, cue.name);
      }
    }
  };
  views.forEach((view, i) => {
    learn(readCues(view, fullRefs[i]!), i);
  });
  const cuesByLine: { line: number; cues: Cue[] }[] = [];
  views.forEach((view, i) => {
    const refs = refsOf(view, personIn, candidates, add, input, true, fullRefs[i]!);
    const cues = refs.length > fullRefs[i]!.length ? readCues(view, refs) : readCues(view, fullRefs[i]!);
    if (refs.length > fullRefs[i]!.length) learn(cues, i);
    if (cues.length > 0) cuesByLine.push({ line: i, cues });
  });
  for (const { line: i, cues } of cuesByLine) {
    const here = lines[i]!.speaker;
    for (const cue of cues) {
      if (cue.kind === 'self') vote(here, cue.key, 'self');
      else if (cue.kind === 'handoff') {
        const to = cue.to === 'this' ? here : nextLabel(i);
        // A clip is played by a voice heard briefly, not by someone who speaks a good part of it.
        if (cue.hint === 'SOUNDBITE_SPEAKER' && to && (words.get(to) ?? 0) >= SUBSTANTIAL * totalWords)
          continue;
        vote(to, cue.key, cue.weak || (cue.to === 'next' && goesOn(i)) ? 'nextWeak' : 'handoff');
      } else if (cue.kind === 'mention') {
        if (candidates.get(cue.key)?.present) vote(here, cue.key, 'mentioned');
      } else if (cue.kind === 'address') {
        if (!candidates.get(cue.key)?.present) continue;
        if (cue.by === 'previous') {
          vote(here, cue.key, 'next');
          vote(prevLabel(i), cue.key, 'addressed');
          continue;
        }
        if (cue.by === 'this') vote(here, cue.key, 'addressed');
        if (cue.toward === 'next') vote(nextLabel(i), cue.key, goesOn(i) ? 'nextWeak' : 'next');
        else if (cue.toward === 'next-weak') vote(nextLabel(i), cue.key, 'nextWeak');
        else vote(prevLabel(i), cue.key, 'prev');
      }
    }
  }
  for (const label of labels) {
    if (!leftover(label)) continue;
    for (const c of candidates.values()) if (c.present) vote(label, c.key, 'leftover');
  }

  // Strongest first, one label per person and one person per label.
  const pairs: { label: string; cand: Candidate; score: number }[] = [];
  for (const [label, row] of score) {
    for (const [key, cell] of row) {
      const cand = candidates.get(key)!;
      // A diarizer's leftover label holds fragments of several voices: only someone the episode
      // credits is named there (a stranger introducing themselves in it is a recording, a promo).
      if (LEFTOVER_LABEL.test(label.trim()) && cand.credited === null) continue;
      if (cand.present && cell.total >= MIN_SCORE) pairs.push({ label, cand, score: cell.total });
    }
  }
  pairs.sort(
    (a, b) => b.score - a.score || a.label.localeCompare(b.label) || a.cand.key.localeCompare(b.cand.key),
  );
  const assigned = new Map<string, Assignment>();
  const taken = new Set<string>();
  for (const p of pairs) {
    if (assigned.has(p.label) || taken.has(p.cand.key)) continue;
    assigned.set(p.label, { cand: p.cand, score: p.score, confidence: confidence(p.score) });
    taken.add(p.cand.key);
  }
  for (const label of callers.keys()) if (assigned.has(label)) callers.delete(label);

  // The credits fill the gaps.
  const cellOf = (label: string, key: string) => score.get(label)?.get(key)?.total ?? 0;
  const open = () =>
    labels.filter(
      (l) =>
        !assigned.has(l) &&
        !callers.has(l) &&
        !input.recorded.has(l) &&
        !leftover(l) &&
        (words.get(l) ?? 0) >= SUBSTANTIAL * totalWords,
    );
  for (const host of [...candidates.values()].filter((c) => c.credited === 'HOST' && !taken.has(c.key))) {
    const left = open()
      .filter((l) => cellOf(l, host.key) >= 0)
      .sort((a, b) => lineCount.get(b)! - lineCount.get(a)!);
    if (left.length === 0) break;
    assigned.set(left[0]!, { cand: host, score: 0, confidence: 0.55 });
    taken.add(host.key);
  }
  // A guest telling stories quotes others calling them by name ("Ravi said, Ambi, you should…"):
  // passing names that are rare in a label's speech (at most STORY_RATE per 1,000 words) do not
  // speak against its being that guest.
  const asTeller = (label: string, key: string) => {
    const cell = score.get(label)?.get(key);
    if (!cell) return 0;
    const passing = cell.counts.get('mentioned') ?? 0;
    const rate = (passing * 1000) / Math.max(1, words.get(label) ?? 0);
    return rate <= STORY_RATE ? cell.total - WEIGHT.mentioned * passing : cell.total;
  };
  // Credited people left and substantial labels left are matched as a whole: the pairing with the
  // most evidence wins when it beats every other pairing by `MIN_SCORE` ("Guest 1 keeps talking
  // about Gideon, so Guest 1 is Prem"), or when there is one of each and nothing speaks against it.
  const guestsLeft = [...candidates.values()].filter(
    (c) => c.credited !== null && c.credited !== 'HOST' && !taken.has(c.key),
  );
  const labelsLeft = open();
  if (guestsLeft.length > 0 && labelsLeft.length > 0 && guestsLeft.length <= 4 && labelsLeft.length <= 4) {
    const pairings = matchings(guestsLeft.length, labelsLeft.length);
    const value = (m: number[]) =>
      m.reduce((sum, l, g) => (l < 0 ? sum : sum + cellOf(labelsLeft[l]!, guestsLeft[g]!.key)), 0);
    const filled = (m: number[]) => m.filter((l) => l >= 0).length;
    // Only pairings that place as many people as can be placed compete.
    const most = Math.min(guestsLeft.length, labelsLeft.length);
    const full = pairings.filter((m) => filled(m) === most).map((m) => ({ m, v: value(m) }));
    full.sort((a, b) => b.v - a.v);
    const [best, second] = full;
    const lone = guestsLeft.length === 1 && labelsLeft.length === 1;
    const margin = best ? best.v - (second?.v ?? 0) : 0;
    if (best && (lone ? asTeller(labelsLeft[0]!, guestsLeft[0]!.key) >= LONE_FLOOR : margin >= MIN_SCORE)) {
      best.m.forEach((l, g) => {
        if (l < 0) return;
        const cand = guestsLeft[g]!;
        const sc = cellOf(labelsLeft[l]!, cand.key);
        assigned.set(labelsLeft[l]!, {
          cand,
          score: sc,
          confidence: lone ? 0.55 : Math.max(0.5, confidence(margin)),
        });
        taken.add(cand.key);
      });
    } else if (guestsLeft.length === 1 && labelsLeft.length > 1) {
      // One credited guest and several labels the dialogue cannot tell apart: an interview's
      // guest is the voice that speaks most, when it clearly does (twice the words of any other
      // label left), nothing there speaks against them, and no other label has clearly more for
      // them (by `MIN_SCORE`).
      const guest = guestsLeft[0]!;
      const byWords = [...labelsLeft].sort((a, b) => (words.get(b) ?? 0) - (words.get(a) ?? 0));
      const [top, next] = byWords as [string, string];
      const clearly = (words.get(top) ?? 0) >= DOMINANT * (words.get(next) ?? 0);
      const here = asTeller(top, guest.key);
      if (clearly && here >= LONE_FLOOR && labelsLeft.every((l) => cellOf(l, guest.key) - here < MIN_SCORE)) {
        assigned.set(top, { cand: guest, score: here, confidence: 0.5 });
        taken.add(guest.key);
      }
    }
  }

  return { labels, assigned, callers, candidates };
}

/** Every way to give each of `people` a distinct one of `labels` or none (-1). */
function matchings(people: number, labels: number): number[][] {
  const out: number[][] = [];
  const walk = (g: number, used: Set<number>, current: number[]) => {
    if (g === people) {
      out.push([...current]);
      return;
    }
    for (let l = -1; l < labels; l++) {
      if (l >= 0 && used.has(l)) continue;
      if (l >= 0) used.add(l);
      current.push(l);
      walk(g + 1, used, current);
      current.pop();
      if (l >= 0) used.delete(l);
    }
  };
  walk(0, new Set(), []);
  return out;
}

/** 0.41 at the minimum score, 0.75 at 4, 0.94 at 8. */
function confidence(score: number): number {
  return Math.round(Math.min(0.99, 1 - 0.5 ** (score / 2)) * 100) / 100;
}

/**
 * The people a line names: catalog people (through the alias automaton, misspellings and
 * phonetic matches included) and, for people in the room, their first name on its own — as
 * written, or as it sounds ("Pawan" for Pavan), written capitalised unless the line has no
 * capitals at all.
 */
function refsOf(
  view: LineView,
  personIn: (tokens: Token[]) => { id: string; start: number; end: number; possessive: boolean }[],
  candidates: Map<string, Candidate>,
  add: (personId: string | null, name: string, credited: Role | null, present: boolean) => Candidate,
  input: AssignInput,
  firstNames: boolean,
  known?: Ref[],
): Ref[] {
  const tokens = view.tokens;
  const refs: Ref[] = [];
  if (known) refs.push(...known);
  else {
    for (const m of personIn(tokens)) {
      const e = input.entity(m.id)!;
      const c = add(e.id, e.name, null, false);
      refs.push({
        key: c.key,
        start: tokens[m.start]!.start,
        end: tokens[m.end - 1]!.end,
        possessive: m.possessive,
      });
    }
  }
  if (!firstNames) return refs;
  const present = [...candidates.values()].filter((c) => c.present && c.first.length >= 2);
  if (present.length === 0) return refs;
  const covered = (t: Token) => refs.some((r) => t.start >= r.start && t.end <= r.end);
  for (const t of tokens) {
    const c0 = t.surface[0]!;
    if ((view.cased && c0 === c0.toLowerCase()) || covered(t)) continue;
    let matching = present.filter((c) => c.first === t.norm);
    if (matching.length === 0 && t.norm.length >= 4) {
      const key = phoneticKey(t.norm);
      matching = present.filter((c) => c.first.length >= 4 && c.firstKey === key && c.first[0] === t.norm[0]);
    }
    if (matching.length === 1)
      refs.push({ key: matching[0]!.key, start: t.start, end: t.end, possessive: t.possessive });
  }
  return refs.sort((a, b) => a.start - b.start);
}
