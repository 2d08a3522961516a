import { foldAccents } from '../../schemas/text-folding.ts';

/**
 * Tokenisation shared by the alias automaton, the detector and the corpus generator's checks.
 *
 * A token is a run of letters and digits, joined by `.`, `-`, `&` or an apostrophe when they
 * sit between two letters or digits, with an optional leading `@` (handle), `$` (cashtag) or
 * `#`. So `apple.com`, `Coca-Cola`, `AT&T`, `@Apple` and `$AAPL` are single tokens, and word
 * boundaries fall out of tokenisation: `Applebee` never matches `Apple`. A possessive `'s` /
 * `’s` is cut off the token (and flagged), a French elision (`l’`, `d’`, `qu’`) is skipped.
 */
export interface Token {
  /** The token as written, without possessive or elision. */
  surface: string;
  /** Case- and accent-folded form used for lookups. */
  norm: string;
  start: number;
  end: number;
  possessive: boolean;
}

const TOKEN = /[@$#]?[\p{L}\p{N}]+(?:[.'’\-&][\p{L}\p{N}]+)*/gu;
const ELISION = /^(?:[ldjnmtsc]|qu)['’](?=[\p{L}])/iu;
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m !== null; m = TOKEN.exec(text)) {
    let surface = m[0];
    let start = m.index;
    let possessive = false;
    const n = surface.length;
    if (n > 2 && (surface[n - 1] === 's' || surface[n - 1] === 'S')) {
      const apos = surface[n - 2];
      if (apos === "'" || apos === '’') {
        surface = surface.slice(0, n - 2);
        possessive = true;
      }
    }
    // An elision has its apostrophe second or third ("l’", "qu’"): most tokens skip the regex.
    const a1 = surface.charCodeAt(1);
    const a2 = surface.charCodeAt(2);
    const elision = a1 === 39 || a1 === 0x2019 || a2 === 39 || a2 === 0x2019 ? ELISION.exec(surface) : null;
    if (elision && surface.length > elision[0].length + 1) {
      surface = surface.slice(elision[0].length);
      start += elision[0].length;
    }
    let norm = foldAccents(surface);
    if (norm.startsWith('www.') && norm.length > 4) norm = norm.slice(4);
    out.push({ surface, norm, start, end: start + surface.length, possessive });
  }
  return out;
}

/** Light stemming for context matching: folds plurals and common verb endings. */
export function stem(word: string): string {
  let w = foldAccents(word);
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  else if (w.length > 4 && w.endsWith('es') && !w.endsWith('ses')) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  if (w.length > 4 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}
