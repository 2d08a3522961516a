import type { GenCompany, GenPerson, GenPodcast } from './catalog.ts';
import { type AnyEntity, entityId } from './episode-cast.ts';
import {
  ENTITY_SLOTS,
  type Fill,
  join,
  KEEP_CAPITAL,
  listNames,
  type Mark,
  type Piece,
  plain,
  render,
} from './episode-pieces.ts';
import type { Rng } from './rng.ts';
import type { AmbiguousDef } from './vocabulary/ambiguous.ts';
import type { ConceptDef, LanguagePack, TopicDef } from './vocabulary/types.ts';

/** What an episode is about: the generator moves to a second topic for its last discussion. */
export interface Subject {
  topic: TopicDef;
  /** The episode's main concept (its headline). */
  main: ConceptDef;
  /** Entities the episode discusses. */
  focus: AnyEntity[];
  /** Entities it names once or twice. */
  passing: AnyEntity[];
}

/**
 * The sentences of an episode: concept lines, templates and filler words in the show's language,
 * their slots filled with the episode's entities (names, brands, tickers, handles) and plain
 * values; the least used sentence is picked next.
 */
export class Phrasing {
  private readonly pack: LanguagePack;
  /** How often each sentence was used in this episode (the least used is picked next). */
  private readonly used = new Map<string, number>();
  /** Times a passing entity was used to fill a concept line's slot. */
  private readonly slotUses = new Map<string, number>();

  constructor(
    private readonly rng: Rng,
    private readonly show: GenPodcast,
    private readonly subject: Subject,
  ) {
    this.pack = show.pack;
  }

  personFill(p: GenPerson, form: 'full' | 'any' | 'handle'): Fill | null {
    if (form === 'handle') return p.handle ? { text: p.handle, entityId: p.entity.id } : null;
    let text = p.entity.name;
    if (form === 'any') {
      const r = this.rng.float();
      if (r < 0.2 && p.surnameAlias) text = p.surnameAlias;
      else if (r < 0.3 && p.nickname) text = p.nickname;
    }
    return { text, entityId: p.entity.id };
  }

  private companyFill(c: GenCompany, form: string | undefined): Fill | null {
    const facts = c.entity.company;
    if (form === 'ticker') {
      if (!facts?.ticker) return null;
      return { text: this.rng.chance(0.4) ? `$${facts.ticker}` : facts.ticker, entityId: c.entity.id };
    }
    if (form === 'domain') return facts?.domain ? { text: facts.domain, entityId: c.entity.id } : null;
    if (form === 'handle')
      return c.entity.handles[0] ? { text: c.entity.handles[0], entityId: c.entity.id } : null;
    if (c.ambiguous) return null;
    return { text: this.rng.chance(0.4) ? c.entity.name : c.brand, entityId: c.entity.id };
  }

  fillEntity(e: AnyEntity, form: string | undefined): Fill | null {
    if (e.type === 'company') return this.companyFill(e.c, form);
    if (e.type === 'person') return this.personFill(e.p, form === 'handle' ? 'handle' : 'any');
    if (form || e.t.ambiguous) return null;
    const { name, aliases, nicknames } = e.t.entity;
    const r = this.rng.float();
    const text =
      r < 0.25 && aliases[0]
        ? aliases[0]
        : r < 0.4 && nicknames[0]
          ? nicknames[0].replace(/^the /, '')
          : name;
    return { text, entityId: e.t.entity.id };
  }

  private matchesSlot(e: AnyEntity, slot: string): boolean {
    if (slot === 'entity') return true;
    if (slot === 'company') return e.type === 'company';
    if (slot === 'person') return e.type === 'person';
    return e.type === 'thing' && e.t.slot === slot;
  }

  /** Fills an entity slot of a concept line: a focus entity, else a passing one used < 2 times. */
  private slotEntity(slot: string, form: string | undefined): Fill | null {
    for (const e of this.rng.shuffle([...this.subject.focus])) {
      if (this.matchesSlot(e, slot)) {
        const f = this.fillEntity(e, form);
        if (f) return f;
      }
    }
    for (const e of this.rng.shuffle([...this.subject.passing])) {
      const id = entityId(e);
      if (this.matchesSlot(e, slot) && (this.slotUses.get(id) ?? 0) < 1) {
        const f = this.fillEntity(e, form);
        if (f) {
          this.slotUses.set(id, (this.slotUses.get(id) ?? 0) + 1);
          return f;
        }
      }
    }
    return null;
  }

  valueFill(slot: string): string | null {
    const { rng, pack } = this;
    switch (slot) {
      case 'city':
        return rng.pick(pack.cities);
      case 'num':
        return rng.pick(pack.numberWords);
      case 'pct':
        return pack.percent(rng.pick(['2.5', '3', '3.7', '4.1', '5', '6.2', '8']));
      case 'money':
        return pack.money(rng.pick(pack.numberWords.slice(0, 6)));
      case 'weekday':
        return rng.pick(pack.weekdays);
      case 'show':
        return this.show.podcast.title;
      default:
        return null;
    }
  }

  /** Renders a template whose slots are given (people) or plain values. */
  tpl(template: string, given: Record<string, Fill | string | null>): Piece {
    const piece = render(template, (slot) => (slot in given ? given[slot]! : this.valueFill(slot)));
    if (!piece) throw new Error(`template could not be filled: ${template}`);
    return piece;
  }

  tplMulti(template: string, names: string[], ids: string[]): Piece {
    const lang = this.show.lang;
    const piece = render(template, (slot) => (slot === 'panelists' ? '\u0000' : this.valueFill(slot)))!;
    const [before, after] = piece.text.split('\u0000') as [string, string];
    const joined = listNames(names, lang);
    const marks: Mark[] = [];
    let offset = before.length;
    for (let i = 0; i < names.length; i++) {
      const at = joined.indexOf(names[i]!, offset - before.length) + before.length;
      marks.push({
        start: at,
        end: at + names[i]!.length,
        entityId: ids[i]!,
        sense: 'entity',
        ambiguous: false,
      });
      offset = at + names[i]!.length;
    }
    return { text: before + joined + after, marks, concepts: [] };
  }

  guestSlots(p: GenPerson): Record<string, Fill | string | null> {
    const employer: Fill =
      'company' in p.employer
        ? { text: p.employer.company.entity.name, entityId: p.employer.company.entity.id }
        : { text: p.employer.institution };
    return { guest: this.personFill(p, 'full'), title: p.occupation.title[this.show.lang], employer };
  }

  /** A line expressing a concept, entity slots filled from the episode's entities when possible. */
  conceptPiece(concept: ConceptDef): Piece {
    for (const line of this.leastUsed(concept.lines)) {
      const piece = render(line, (slot, form) =>
        ENTITY_SLOTS.has(slot) ? this.slotEntity(slot, form) : this.valueFill(slot),
      );
      if (piece) {
        this.used.set(line, (this.used.get(line) ?? 0) + 1);
        piece.concepts = [concept.id];
        return piece;
      }
    }
    return plain(this.fresh(this.pack.reactions));
  }

  /** A second sentence on the same idea ("… Another hike, and the markets shrugged it off."). */
  more(piece: Piece): Piece {
    const concept = this.subject.topic.concepts.find((c) => c.id === piece.concepts[0]);
    return concept ? join(piece, this.conceptPiece(concept)) : piece;
  }

  /** The items in order of how rarely this episode used them (ties in random order). */
  private leastUsed(items: readonly string[]): string[] {
    const shuffled = this.rng.shuffle([...items]);
    return shuffled.sort((a, b) => (this.used.get(a) ?? 0) - (this.used.get(b) ?? 0));
  }

  /** One of the least used items; counts the use. */
  fresh(items: readonly string[]): string {
    const item = this.leastUsed(items)[0]!;
    this.used.set(item, (this.used.get(item) ?? 0) + 1);
    return item;
  }

  /** A filler word before a sentence ("Honestly, the Fed hiked again."). */
  lead(piece: Piece): Piece {
    const filler = plain(this.fresh(this.pack.fillers));
    const startsWithName = piece.marks.some((m) => m.start === 0);
    const first = /^\p{Lu}\p{Ll}*(?=[\s,.;:!?]|$)/u.exec(piece.text)?.[0];
    if (!startsWithName && first && this.show.lang !== 'de' && !KEEP_CAPITAL.has(first)) {
      piece = { ...piece, text: piece.text[0]!.toLowerCase() + piece.text.slice(1) };
    }
    return join(filler, piece);
  }

  ambiguousPiece(amb: AmbiguousDef, id: string, template: string, sense: 'entity' | 'other'): Piece {
    return this.tpl(template, {
      X: { text: amb.surface, entityId: id, sense, ambiguous: true },
      x: { text: amb.surface.toLowerCase(), entityId: id, sense, ambiguous: true },
      N: { text: amb.nicknames[0] ?? amb.surface, entityId: id, sense, ambiguous: true },
    });
  }
}
