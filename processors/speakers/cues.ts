import type { SpeakersIdentified } from '../../schemas/generated/index.ts';
import { functionWord, ordinaryWord } from '../mentions/lexicon.ts';
import type { LineView } from '../mentions/line-view.ts';

/**
 * What one line says about who is speaking, read sentence by sentence. A name only counts where
 * the sentence puts it in a speaking part:
 *
 * - self-introduction: "I'm Dana Whitfield", "this is Dana Whitfield", "Dana here", "je suis…",
 *   "ich bin…", "soy…" → this line's label is that person;
 * - hand-off: the first name after a cue in the same sentence — "my guest today is…", "joining
 *   me is…", "please welcome your host…", "let's go to…", "our correspondent…", "here's what…
 *   said", a panel introduction → the next speaker (a name later in the sentence, or in another
 *   sentence, is just a name);
 * - address: a name set off by commas at the start or end of a sentence ("Marcus, what do you
 *   make of it?", "Thanks for having me, Dana") → the next speaker when the sentence asks or hands
 *   over at the end of the turn, the previous one when it thanks or answers at its start; the
 *   speaker of the line is not the person addressed;
 * - a call-in: "Maria from Chicago, you're on the air" → the next speaker is a caller, named when
 *   the word is a name (capitalised, not an everyday word such as "And" or "So").
 *
 * Speech-to-text cuts turns a few words late or early: a line that starts in lower case begins
 * with the end of the previous speaker's sentence, and that sentence is read as theirs.
 */
type Role = SpeakersIdentified['speakers'][number]['role'];

export interface Ref {
  /** Candidate key (see identify.ts). */
  key: string;
  start: number;
  end: number;
  possessive: boolean;
}

export type Cue =
  | { kind: 'self'; key: string }
  | {
      kind: 'handoff';
      key: string;
      hint: Role;
      to: 'next' | 'this';
      /** Weak: inside a turn that goes on, where the person need not speak next ("my guest X had said"). */
      weak: boolean;
    }
  | {
      kind: 'address';
      key: string;
      toward: 'next' | 'prev' | 'next-weak';
      /** Said by this line's speaker (who is then not the person), or spilled over from the previous one. */
      by: 'this' | 'previous' | 'unsure';
    }
  | { kind: 'panel'; keys: string[]; hint: Role }
  /** Named in passing ("as Gideon said"): whoever speaks the line is someone else. */
  | { kind: 'mention'; key: string }
  | { kind: 'caller'; name: string };

const SELF =
  /(?:^|[\s,.!?¡¿])(?:i['’]m|i am|my name is|je suis|je m['’]appelle|ich bin|mein name ist|soy|me llamo|(?:follow|find|reach) me (?:on [\p{L}]+ )?at)[\s,]*$/iu;
/** A name that ends its clause. */
const CLAUSE_END = /^\s*(?:$|[,.!?…;:"”]|and\b|here\b|speaking\b|from\b|with\b|et\b|und\b|y\b)/iu;
/** "if I am…", "as if I were…": not an introduction. */
const CONDITIONAL = /\b(?:if|suppose|imagine|pretend|say)\b[^.?!]*$/iu;
/** "This is Dana Whitfield" introduces the speaker only at the start of a sentence. */
const SELF_OPENING = /^[\s"“]*(?:(?:hi|hello|hey)[\s,]+)?(?:and\s+)?this is\s*$/iu;
const SELF_AFTER = /^\s+(?:here|speaking|ici|hier|aquí)\b/iu;
const THANKS =
  /^[\s¡"“]*(?:thanks|thank you|many thanks|merci|danke|vielen dank|gracias|muchas gracias|great question|good question|good point)\b/iu;
const HOST_HANDOFF =
  /(please welcome (?:back )?(?:your|our) host|your host (?:is|for today)|here['’]s your host)/iu;
const GUEST_HANDOFF =
  /(joining (?:me|us)(?: today| now| this week| again)?(?: in the studio)?(?: (?:is|are))?|my (?:first |second |third |next )?guests? (?:today |this week |on the show )?(?:is|are)|with me (?:in the studio|today|here) (?:is|are)|(?:delighted|pleased|happy|thrilled) to (?:welcome|have)|please welcome|avec moi aujourd|mon invitée?|nous recevons|heute zu gast|mein gast|bei mir im studio|me acompaña|mi invitad[oa]|tenemos con nosotros)/iu;
const CORRESPONDENT_HANDOFF =
  /(correspondent|let['’]s go (?:over )?to|joined by|reporting from|correspondant|on retrouve|en direct de|wir schalten|korrespondent|corresponsal|conectamos con|nos vamos a)/iu;
const SOUNDBITE_HANDOFF =
  /(here['’]s what|take a listen to|this is what|listen to how|écoutons ce qu|voici ce qu|hören wir|so hat sich|escuchemos lo que|esto es lo que)/iu;
const PANEL_LIST =
  /(on the panel|around the table|our panel|autour de la table|sur le plateau|in unserer runde|mit dabei sind|en la mesa|nos acompañan)/iu;
const CALLER =
  /(take a call|caller|on the line|on the air|auditeur|un appel|à l['’]antenne|anrufer|in der leitung|una llamada|al teléfono)/iu;
const CALLER_NAME = /(\p{Lu}\p{Ll}+),? (?:from|in|de|depuis|aus|desde)\s/gu;
/** The same in a line written without capitals. */
const CALLER_NAME_LOWER = /(\p{Ll}{2,}),? (?:from|in|de|depuis|aus|desde)\s/gu;
/** A greeting or thanks right before a name closing a sentence, with no comma between. */
const GREETING_END = /\b(?:welcome(?: back)?(?: to the show)?|hi|hey|hello|thanks|thank you|bye)\s*$/iu;
/** How far after a hand-off cue the name it hands over to may start (characters). */
const HANDOFF_REACH = 30;
/** An opening that acknowledges what was just said. */
const ACK =
  /^[\s"“]*(?:yes|yeah|yep|right|exactly|absolutely|sure|indeed|true|no|oh|ah|hmm|great|good|fair|okay|ok)\b/iu;
/** A sentence that hands the turn over. */
const HANDS_OVER =
  /\b(?:turn to you|over to you|come to you|bring you in|let me ask|i want to ask|tell (?:me|us)|what do you|how do you|do you|would you|can you|could you|your (?:take|view|thoughts))\b/iu;
/** Tokens from the start (end) of a line that count as its opening (closing). */
const OPENING = 40;
const CLOSING = 80;
/** Words that may stand before a name that is addressed at the start of a sentence. */
const OPENERS = new Set(
  'so and but well now okay ok yes yeah oh hi hey hello right mr mrs ms dr dear professor thanks thank you alright'.split(
    ' ',
  ),
);

/** The cues of one line. `refs` are the people named in it, in order. */
export function readCues(view: LineView, refs: Ref[]): Cue[] {
  const cues: Cue[] = [];
  const text = view.text;
  const tokens = view.tokens;
  if (tokens.length === 0) return cues;
  const lastSentence = view.sentence(tokens.length - 1);
  const spills = /^\s*\p{Ll}/u.test(text);
  /** Words after a character offset of the line. */
  const wordsAfter = (offset: number) => tokens.length - tokens.findIndex((t) => t.end > offset);
  /** In the last sentences, or words, of the turn (a turn without punctuation is one sentence). */
  const atClose = (s: number, offset: number) =>
    wordsAfter(offset) <= CLOSING || (s >= lastSentence - 2 && lastSentence >= 2);
  /** The turn ends with a question. */
  const asks = /\?\s*["”]?\s*$/.test(text);

  for (let s = 0; s <= lastSentence; s++) {
    const [from, to] = view.sentenceRange(s);
    if (from >= to) continue;
    const sFrom = tokens[from]!.start;
    const sTo = tokens[to - 1]!.end;
    const sentence = text.slice(sFrom, sTo + 1);
    const inside = refs.filter((r) => r.start >= sFrom && r.end <= sTo);
    const spilled = s === 0 && spills && s < lastSentence;

    if (CALLER.test(sentence) && inside.length === 0) {
      const re = view.cased ? CALLER_NAME : CALLER_NAME_LOWER;
      re.lastIndex = 0;
      let name: string | null = null;
      for (let m = re.exec(sentence); m !== null; m = re.exec(sentence)) {
        const word = m[1]!.toLowerCase();
        if (!functionWord(word) && !ordinaryWord(word)) {
          name = m[1]!;
          break;
        }
      }
      // Only a named caller: "my reputation is on the line" introduces nobody.
      if (name) cues.push({ kind: 'caller', name });
      continue;
    }
    if (inside.length === 0) continue;
    if (inside.length >= 2 && PANEL_LIST.test(sentence)) {
      cues.push({ kind: 'panel', keys: inside.map((r) => r.key), hint: 'PANELIST' });
      continue;
    }
    // A hand-off names the first person after its cue, in the same sentence.
    let handedOff: Ref | undefined;
    const introduced = new Set<Ref>();
    for (const [re, hint] of [
      [SOUNDBITE_HANDOFF, 'SOUNDBITE_SPEAKER'],
      [HOST_HANDOFF, 'HOST'],
      [GUEST_HANDOFF, 'GUEST'],
      [CORRESPONDENT_HANDOFF, 'CORRESPONDENT'],
    ] as const) {
      const m = re.exec(sentence);
      if (!m) continue;
      const cueEnd = sFrom + m.index + m[0].length;
      const first = inside.find((r) => r.start >= cueEnd - 1);
      // The name the cue hands over to comes right after it ("my guest today is X", "let's go to X").
      if (first && !first.possessive && first.start - cueEnd <= HANDOFF_REACH) {
        handedOff = first;
        // "My guests today are Pavan Srinath and Karthik Shashidhar": an introduction of several
        // people says they are in the room, not who speaks next.
        const group = inside.filter((r) => r.start >= first.start && !r.possessive);
        if (hint === 'GUEST' && group.length > 1) {
          if (!spilled) cues.push({ kind: 'panel', keys: group.map((r) => r.key), hint: 'GUEST' });
          for (const r of group.slice(1)) introduced.add(r);
          break;
        }
        // "Please welcome your host, …" opening a line that goes on: the announcer's words
        // spilled onto the host's turn.
        const ownFirst = s === (spills ? 1 : 0);
        const to = hint === 'HOST' && ownFirst && s < lastSentence ? 'this' : 'next';
        const weak = to === 'next' && !atClose(s, first.start);
        if (!spilled) cues.push({ kind: 'handoff', key: first.key, hint, to, weak });
      }
      break;
    }
    for (const r of inside) {
      if (r === handedOff || introduced.has(r)) continue;
      const before = text.slice(sFrom, r.start);
      const after = text.slice(r.end, sTo + 1);
      if (r.possessive) continue;
      // A self-introduction opens or closes a turn, and the name ends its clause: "I'm Dana
      // Whitfield." — not "I am Amitabh Bachchan fan", not "if I am Ambedkar" mid-turn.
      const introduces =
        (SELF.test(before) && !CONDITIONAL.test(before) && CLAUSE_END.test(after)) ||
        (SELF_OPENING.test(before) && CLAUSE_END.test(after)) ||
        (/^\s*$/.test(before) && SELF_AFTER.test(after));
      const opens = s === (spills ? 1 : 0) || tokens.length - wordsAfter(r.start) <= OPENING;
      if (!spilled && introduces && (opens || atClose(s, r.start))) {
        cues.push({ kind: 'self', key: r.key });
        continue;
      }
      const opening = addressedAtStart(before, after);
      // "…, Dana." or, where the transcriber left out the comma, "welcome to the show Devika".
      const closing = (/,\s*$/.test(before) || GREETING_END.test(before)) && /^\s*[.?!…]?\s*$/.test(after);
      const thanked = THANKS.test(before) && /^[\s,]*[.?!…]?\s*$/.test(after);
      // "my question for you, Chuck, was this": set off by commas inside the sentence, after "you".
      const aside = /\byou,\s*$/iu.test(before) && /^\s*,/.test(after);
      if (!opening && !closing && !thanked && !aside) {
        if (!spilled) cues.push({ kind: 'mention', key: r.key });
        continue;
      }
      // The turn's opening and closing are where people address whoever speaks before and after;
      // in between, a merged turn may hold other voices. An opening that acknowledges ("Thanks,
      // Amit", "Yes, Shruti") answers the previous speaker; one that hands over ("Prem, let me
      // turn to you"), in a turn that ends asking, calls on the next.
      const opensTurn = s === (spills ? 1 : 0) || tokens.length - wordsAfter(r.start) <= OPENING;
      const closesTurn = atClose(s, r.start);
      const acknowledges = THANKS.test(sentence) || ACK.test(sentence);
      if (spilled) {
        // The previous speaker's words: they address whoever speaks this line.
        cues.push({ kind: 'address', key: r.key, toward: 'next', by: 'previous' });
      } else if (opensTurn && acknowledges) {
        cues.push({ kind: 'address', key: r.key, toward: 'prev', by: 'this' });
      } else if (closesTurn || (opensTurn && (asks || HANDS_OVER.test(sentence)))) {
        cues.push({ kind: 'address', key: r.key, toward: 'next', by: 'this' });
      } else if (opensTurn) {
        cues.push({ kind: 'address', key: r.key, toward: 'prev', by: 'this' });
      } else {
        cues.push({ kind: 'address', key: r.key, toward: 'next-weak', by: 'unsure' });
      }
    }
  }
  // Only the last hand-off of a turn hands it over; earlier ones happened inside it (a merged turn).
  const handoffs = cues.filter((c) => c.kind === 'handoff' && c.to === 'next' && !c.weak);
  for (const c of handoffs.slice(0, -1)) if (c.kind === 'handoff') c.weak = true;
  return cues;
}

/** "Marcus, …", "So Alex, …", "Mr. Tharoor, welcome…": a name set off at the start of a sentence. */
function addressedAtStart(before: string, after: string): boolean {
  // "Devika." alone, "Marcus, …", or without the comma "Nidhi you suggested…".
  if (!/^\s*(?:[,?!]|\.?\s*$|you\b)/iu.test(after)) return false;
  const words = before
    .toLowerCase()
    .split(/[^\p{L}']+/u)
    .filter((w) => w.length > 0);
  return words.length <= 3 && words.every((w) => OPENERS.has(w));
}
