/**
 * Pieces of an episode's speech: text with the entity names planted in it (marks) and the
 * concepts it expresses, rendered from templates with `{slot}` or `{slot:form}` holes.
 */

export interface Mark {
  start: number;
  end: number;
  entityId: string;
  sense: 'entity' | 'other';
  ambiguous: boolean;
}

export interface Piece {
  text: string;
  marks: Mark[];
  concepts: string[];
}

export interface Fill {
  text: string;
  entityId?: string;
  sense?: 'entity' | 'other';
  ambiguous?: boolean;
}

const SLOT = /\{(\w+)(?::(\w+))?\}/g;
/** Slots an entity of the episode fills (the others take plain values). */
export const ENTITY_SLOTS = new Set([
  'company',
  'person',
  'team',
  'law',
  'drug',
  'mission',
  'product',
  'film',
  'event',
  'entity',
]);
/** Words that keep their capital after a filler word ("Honestly, Mars …"). */
export const KEEP_CAPITAL = new Set([
  'I',
  'Arctic',
  'Mars',
  'Senate',
  'Wall',
  'Fed',
  'OPEC',
  'CRISPR',
  'Alps',
  'March',
  'September',
]);

export function render(
  template: string,
  fill: (slot: string, form: string | undefined) => Fill | string | null,
): Piece | null {
  let text = '';
  const marks: Mark[] = [];
  let last = 0;
  SLOT.lastIndex = 0;
  for (let m = SLOT.exec(template); m !== null; m = SLOT.exec(template)) {
    text += template.slice(last, m.index);
    const f = fill(m[1]!, m[2]);
    if (f === null) return null;
    const value = typeof f === 'string' ? { text: f } : f;
    if (value.entityId) {
      marks.push({
        start: text.length,
        end: text.length + value.text.length,
        entityId: value.entityId,
        sense: value.sense ?? 'entity',
        ambiguous: value.ambiguous ?? false,
      });
    }
    text += value.text;
    last = m.index + m[0].length;
  }
  text += template.slice(last);
  return { text, marks, concepts: [] };
}

export function join(a: Piece, b: Piece): Piece {
  const offset = a.text.length + 1;
  return {
    text: `${a.text} ${b.text}`,
    marks: [...a.marks, ...b.marks.map((m) => ({ ...m, start: m.start + offset, end: m.end + offset }))],
    concepts: [...new Set([...a.concepts, ...b.concepts])],
  };
}

export function plain(text: string): Piece {
  return { text, marks: [], concepts: [] };
}

export function capitalize(s: string): string {
  return s.length > 0 ? s[0]!.toUpperCase() + s.slice(1) : s;
}

export function listNames(names: string[], lang: string): string {
  const and = lang === 'fr' ? 'et' : lang === 'de' ? 'und' : lang === 'es' ? 'y' : 'and';
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} ${and} ${names.at(-1)}`;
}
