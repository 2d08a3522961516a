import type { LineView } from './line-view.ts';
import type { Token } from './tokenize.ts';

/**
 * A brand said as a verb is not a mention of the company: "I urge you to Google him", "I'll have
 * to Google it to find out", "just google it". Speech does this with distinctive names too
 * ("Skype me", "Photoshop it"), so it is read for every one-word alias of something that is not a
 * person: right after "to", a modal, "just" or "please", and right before an object pronoun
 * that ends the phrase. "it" and "her" also begin clauses and noun phrases ("from Amazon to Google
 * it was a bloodbath", "sold to Google her startup"): after them, only the end of the sentence or a
 * word that continues a verb phrase ("to", "and", "up", "later"…) makes the name a verb.
 */
const VERB_SLOT = new Set('to can could would should will must might may please just'.split(' '));
const OBJECTS = new Set('him her them me us it'.split(' '));
const AMBIGUOUS_OBJECTS = new Set(['it', 'her']);
const PHRASE_GOES_ON = new Set('to and up out now later again first for yourself'.split(' '));

/** The cheap test, on tokens only: a verb slot before and an object pronoun after. */
export function mayBeVerb(tokens: Token[], start: number, end: number): boolean {
  if (end - start !== 1 || start === 0) return false;
  const obj = tokens[end];
  return (
    obj !== undefined && !obj.possessive && OBJECTS.has(obj.norm) && VERB_SLOT.has(tokens[start - 1]!.norm)
  );
}

export function usedAsVerb(view: LineView, start: number, end: number): boolean {
  const tokens = view.tokens;
  if (!mayBeVerb(tokens, start, end) || !view.adjacent(start) || !view.adjacent(end)) return false;
  if (!AMBIGUOUS_OBJECTS.has(tokens[end]!.norm)) return true;
  const after = tokens[end + 1];
  return after === undefined || !view.adjacent(end + 1) || PHRASE_GOES_ON.has(after.norm);
}
