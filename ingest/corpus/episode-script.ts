import type { Catalog } from './catalog.ts';
import { ambiguousOf, entityId, type Participant } from './episode-cast.ts';
import type { Phrasing, Subject } from './episode-phrasing.ts';
import { ENTITY_SLOTS, join, type Piece, plain, render } from './episode-pieces.ts';
import type { Rng } from './rng.ts';
import type { ConceptDef, LanguagePack } from './vocabulary/types.ts';

/**
 * How long turns are. `short`: a turn is one or two sentences (the generator's original shape).
 * `realistic`: a guest's answer in an interview, and a speaker's turn on a concept in a discussion,
 * runs to a long-tailed length, as in real interviews — the median about 150 model tokens, about 4 in 100 past 1,000 (the longest 3,000) —
 * and a long answer (MONOLOGUE_TOKENS or more) ends with one sentence of another concept of the
 * topic: the planted tail, which only the end of the turn says.
 */
export type TurnLengths = 'short' | 'realistic';
const MEDIAN_TOKENS = 150;
const SIGMA = 1.1;
const MAX_TOKENS = 3000;
export const MONOLOGUE_TOKENS = 1000;

/** Model tokens of generated speech, estimated (about 1.3 per word). */
export function speechTokens(text: string): number {
  return Math.round(text.split(/\s+/).filter(Boolean).length * 1.3);
}

/** A long answer's planted tail: the concept only its last sentence expresses. */
export interface PlantedTail {
  concept: string;
  /** The sentence, as spoken. */
  text: string;
}

/** One line of a script: who says which piece. */
export interface ScriptLine {
  who: Participant;
  piece: Piece;
}

/**
 * Scripts of an episode's discussions before they are spoken: who talks after whom, interviews
 * and panels, and the entities planted in them (each focus entity on enough lines, each passing
 * one once or twice, ambiguous names in either sense).
 */
export class ScriptWriter {
  constructor(
    private readonly rng: Rng,
    private readonly pack: LanguagePack,
    private readonly catalog: Catalog,
    private readonly subject: Subject,
    private readonly phrasing: Phrasing,
    private readonly turns: TurnLengths = 'short',
  ) {}

  /** Tails planted at the end of long answers, by the answer's piece (see TurnLengths). */
  readonly tails = new Map<Piece, PlantedTail>();

  /**
   * A guest's answer of a long-tailed length about `concept`: sentences of that concept with the
   * show's fillers and asides, and, when it is long, one sentence of another concept last.
   */
  private longAnswer(concept: ConceptDef): Piece {
    const { rng, pack } = this;
    // Log-normal length (Box-Muller).
    const z = Math.sqrt(-2 * Math.log(1 - rng.float())) * Math.cos(2 * Math.PI * rng.float());
    const target = Math.min(MAX_TOKENS, Math.max(20, Math.round(MEDIAN_TOKENS * Math.exp(SIGMA * z))));
    let piece = this.phrasing.conceptPiece(concept);
    while (speechTokens(piece.text) < target) {
      const r = rng.float();
      let next = this.phrasing.conceptPiece(concept);
      if (r < 0.25) next = join(plain(this.phrasing.fresh(pack.fillers)), next);
      else if (r < 0.35) next = plain(this.phrasing.fresh(pack.banter));
      piece = join(piece, next);
    }
    if (target < MONOLOGUE_TOKENS) return piece;
    const others = this.subject.topic.concepts.filter(
      (c) => c.id !== concept.id && !piece.concepts.includes(c.id),
    );
    if (others.length === 0) return piece;
    const tail = this.phrasing.conceptPiece(rng.pick(others));
    const out = join(piece, tail);
    if (tail.concepts[0]) this.tails.set(out, { concept: tail.concepts[0], text: tail.text });
    return out;
  }

  nextSpeaker(people: Participant[], last: Participant): Participant {
    if (people.length === 1) return people[0]!;
    const others = people.filter((p) => p !== last);
    return this.rng.chance(0.85) ? this.rng.pick(others) : last;
  }

  discussion(n: number, people: Participant[], interview: boolean, handoffs = false): ScriptLine[] {
    const { rng, pack } = this;
    const script: ScriptLine[] = [];
    const host = people[0]!;
    let who = host;
    const concept = () => (rng.chance(0.4) ? this.subject.main : rng.pick(this.subject.topic.concepts));
    while (script.length < n) {
      if (interview) {
        const q = rng.chance(0.5)
          ? plain(this.phrasing.fresh(pack.questions))
          : this.phrasing.lead(this.phrasing.conceptPiece(concept()));
        script.push({ who: host, piece: q });
        const guest = people[1]!;
        if (this.turns === 'realistic') {
          if (script.length < n) script.push({ who: guest, piece: this.longAnswer(concept()) });
        } else {
          for (let k = rng.int(1, 3); k > 0 && script.length < n; k--) {
            let piece = this.phrasing.conceptPiece(concept());
            if (rng.chance(0.3)) piece = this.phrasing.lead(piece);
            if (rng.chance(0.2)) piece = this.phrasing.more(piece);
            script.push({ who: guest, piece });
          }
        }
        if (rng.chance(0.3) && script.length < n)
          script.push({ who: host, piece: plain(this.phrasing.fresh(pack.reactions)) });
        continue;
      }
      if (handoffs && rng.chance(0.12) && people.length > 2) {
        const target = rng.pick(people.slice(1).filter((p) => p !== who));
        if (target?.person) {
          script.push({
            who: host,
            piece: this.phrasing.tpl(rng.pick(pack.panelHandoff), { first: target.person.first }),
          });
          script.push({ who: target, piece: this.phrasing.conceptPiece(concept()) });
          who = target;
          continue;
        }
      }
      who = this.nextSpeaker(people, who);
      const r = rng.float();
      let piece: Piece;
      if (r < 0.6)
        piece =
          this.turns === 'realistic' ? this.longAnswer(concept()) : this.phrasing.conceptPiece(concept());
      else if (r < 0.78)
        piece = rng.chance(0.5)
          ? plain(this.phrasing.fresh(pack.reactions))
          : join(plain(this.phrasing.fresh(pack.reactions)), this.phrasing.conceptPiece(concept()));
      else if (r < 0.88 && who === host) piece = plain(this.phrasing.fresh(pack.questions));
      else piece = this.phrasing.lead(this.phrasing.conceptPiece(concept()));
      if (rng.chance(0.15)) piece = this.phrasing.more(piece);
      script.push({ who, piece });
    }
    return script;
  }

  /** A moderator brings every panelist in by name at least once ("Let's start with you, Marcus."). */
  ensureHandoffs(script: ScriptLine[], host: Participant, panel: Participant[]): void {
    for (const p of panel) {
      const first = p.person!.first;
      if (script.some((s) => s.who === host && s.piece.text.includes(first))) continue;
      const handoff = this.phrasing.tpl(this.rng.pick(this.pack.panelHandoff), { first });
      const at = this.rng.int(0, Math.max(0, Math.floor(script.length / 2)));
      script.splice(
        at,
        0,
        { who: host, piece: handoff },
        { who: p, piece: this.phrasing.conceptPiece(this.subject.main) },
      );
    }
  }

  private insertAt(script: ScriptLine[], items: ScriptLine[]): void {
    const at = script.length === 0 ? 0 : this.rng.int(1, script.length);
    script.splice(at, 0, ...items);
  }

  private countInScript(script: ScriptLine[], id: string): number {
    return script.filter((s) => s.piece.marks.some((m) => m.entityId === id && m.sense === 'entity')).length;
  }

  /** Makes sure each focus entity is discussed on at least `min` lines of the script. */
  plantFocus(script: ScriptLine[], people: Participant[], min: number): void {
    const { rng, pack } = this;
    for (const e of this.subject.focus) {
      const id = entityId(e);
      let have = this.countInScript(script, id);
      for (let guard = 0; have < min && guard < 20; guard++) {
        const who = rng.pick(people);
        const amb = ambiguousOf(e);
        if (amb && rng.chance(0.7)) {
          const sense = rng.pick(amb.entitySense);
          const [a, b] = Array.isArray(sense) ? sense : [sense, null];
          const items = [{ who, piece: this.phrasing.ambiguousPiece(amb, id, a, 'entity') }];
          if (b) items.push({ who, piece: { ...plain(b), concepts: [] } });
          // Now and then the same speaker drifts to the ordinary sense right after ("Apple pie, anyone?").
          else if (rng.chance(0.2))
            items.push({
              who,
              piece: this.phrasing.ambiguousPiece(amb, id, rng.pick(amb.otherSense), 'other'),
            });
          this.insertAt(script, items);
          have++;
          continue;
        }
        const templates =
          e.type === 'company'
            ? pack.focus.company
            : e.type === 'person'
              ? pack.focus.person
              : pack.focus.thing;
        for (const t of rng.shuffle([...templates])) {
          const piece = render(t, (slot, form) =>
            ENTITY_SLOTS.has(slot) ? this.phrasing.fillEntity(e, form) : this.phrasing.valueFill(slot),
          );
          if (piece) {
            this.insertAt(script, [{ who, piece }]);
            have++;
            break;
          }
        }
      }
    }
  }

  /** Names each passing entity once (sometimes twice) in the script. */
  plantPassing(script: ScriptLine[], people: Participant[]): void {
    const { rng, pack } = this;
    for (const e of this.subject.passing) {
      const id = entityId(e);
      const times = rng.chance(0.2) ? 2 : 1;
      for (let k = this.countInScript(script, id); k < times; k++) {
        const who = rng.pick(people);
        const amb = ambiguousOf(e);
        if (amb) {
          const single = amb.entitySense.filter(
            (s): s is string => typeof s === 'string' && s.includes('{X}'),
          );
          this.insertAt(script, [
            { who, piece: this.phrasing.ambiguousPiece(amb, id, rng.pick(single), 'entity') },
          ]);
          break;
        }
        const piece = render(rng.pick(pack.passing), (slot, form) =>
          ENTITY_SLOTS.has(slot) ? this.phrasing.fillEntity(e, form) : this.phrasing.valueFill(slot),
        );
        if (piece) this.insertAt(script, [{ who, piece }]);
      }
    }
  }

  /** A line using an ambiguous name in its ordinary sense. */
  insertOtherSense(script: ScriptLine[], people: Participant[], where: string): void {
    const all = [...this.catalog.ambiguousCompanies, ...this.catalog.ambiguousThings];
    const fitting = all.filter((a) => a.ambiguous!.otherTopics.includes(where as never));
    if (fitting.length === 0) return;
    const a = this.rng.pick(fitting);
    const piece = this.phrasing.ambiguousPiece(
      a.ambiguous!,
      a.entity.id,
      this.rng.pick(a.ambiguous!.otherSense),
      'other',
    );
    this.insertAt(script, [{ who: this.rng.pick(people), piece }]);
  }
}
