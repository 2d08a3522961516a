/**
 * How text is folded before it is compared, in one place. Each variant is used where its rule is
 * part of a contract, so they differ on purpose:
 *
 * - `foldAccents`: names in speech (the alias automaton, speaker identification, the corpus
 *   generator's vocabulary checks);
 * - `foldToAscii`: domains in entity search (words of search text go through the search
 *   analyser, `projections/search/text-analysis.ts`, which keeps the marks of Indic scripts);
 * - `slug`: slugs of organizations and projects, and occupation terms;
 * - `nameSlug`: slugs of podcasts, episodes and catalog names (feeds and the corpus generator).
 */

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * Lower case, canonical decomposition (NFD) with the combining marks dropped (é → e, ü → u), and a
 * typographic apostrophe made straight. Letters without a decomposition stay as they are (ß, æ, ø).
 */
export function foldAccents(text: string): string {
  const lower = text.toLowerCase();
  if (PRINTABLE_ASCII.test(lower)) return lower;
  return lower
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(/’/g, "'");
}

const LETTERS_TO_ASCII: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ł: 'l',
  ı: 'i',
};

/**
 * Lower case, compatibility decomposition (NFKD: ﬁ → fi, ² → 2) with the combining marks dropped,
 * and the Latin letters that have no decomposition spelled in ASCII (ß → ss, æ → ae, ø → o).
 * Letters of other scripts stay as they are.
 */
export function foldToAscii(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[ßæœøđðþłı]/g, (c) => LETTERS_TO_ASCII[c] ?? c);
}

/**
 * Compatibility decomposition with the combining accents (U+0300-U+036F) dropped, lower case, and
 * every run of characters other than a-z and 0-9 made one hyphen, none at either end:
 * `Économie & Marchés` → `economie-marches`. May be empty.
 */
export function slug(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** `slug` of a name or title with its apostrophes dropped first (`O’Brien` → `obrien`, not `o-brien`). */
export function nameSlug(text: string): string {
  return slug(text.replace(/['’]/g, ''));
}
