/**
 * A phonetic key for name tokens, for the ways speech-to-text misspells names it has not seen:
 * "Pawan" for Pavan, "Verma" for Varma, "Kartik" for Karthik, "Ramesh" for Ramez, "Pooja" for
 * Puja. The key keeps the first letter and the consonant skeleton, with consonants that sound
 * alike (or that transcribers swap) folded together: v/w, s/z/sh, t/th, d/dh, k/c/q/kh/ck,
 * b/bh, g/gh, j/jh, f/ph; an `h` after a consonant, doubled letters and inner vowels go.
 *
 * Used only for whole multi-word person names with at least one token spelled exactly (see
 * Gazetteer), never for a single word.
 */
const FOLD: Record<string, string> = {
  w: 'v',
  z: 's',
  q: 'k',
  c: 'k',
  x: 'k',
  y: 'i',
};
const VOWEL = /[aeiou]/;

export function phoneticKey(norm: string): string {
  let w = norm.replace(/[^a-z]/g, '');
  if (w.length === 0) return '';
  w = w
    .replace(/ph/g, 'f')
    .replace(/ck/g, 'k')
    .replace(/(sh|ch)/g, 's')
    .replace(/([bcdgjkpt])h/g, '$1');
  let out = w[0]!;
  let last = FOLD[out] ?? out;
  for (let i = 1; i < w.length; i++) {
    const ch = w[i]!;
    if (ch === 'h' || VOWEL.test(ch)) {
      if (VOWEL.test(ch)) last = '';
      continue;
    }
    const f = FOLD[ch] ?? ch;
    if (f === 'i') {
      last = '';
      continue;
    }
    if (f !== last) out += f;
    last = f;
  }
  const first = out[0]!;
  return (VOWEL.test(first) ? 'a' : (FOLD[first] ?? first)) + out.slice(1);
}
