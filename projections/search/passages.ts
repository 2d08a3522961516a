import { createHash } from 'node:crypto';

/**
 * Passages: the units semantic search embeds, built from the diarized lines of one segment.
 *
 * Real speaker turns run from a word to thousands of tokens, and a sentence-embedding model reads
 * a fixed number of tokens (all-MiniLM-L6-v2: 256); embedding whole turns hid the end of every
 * long one. Passages are sized for the model instead:
 *
 * - each line is cut into sentences (Unicode sentence boundaries, `Intl.Segmenter`); a sentence
 *   longer than a passage is cut between words;
 * - the pieces are packed, in order, into passages of at most PASSAGE_TOKENS estimated tokens, so
 *   several short lines share a passage and a long turn spans several;
 * - each passage after the first of its segment starts with the last pieces of the one before (up
 *   to OVERLAP_TOKENS), so a thought cut at a boundary is whole in one of the two.
 *
 * A passage remembers the lines it covers (`number` … `last_number`). Each line that shares its
 * passages with other lines is also embedded on its own (a line passage, below), so a hit on a
 * passage of several lines is shown as those of its lines whose own passage ranks too. Tokens are estimated from the text, without the model (the projector keys passages
 * before any model is loaded): the estimate counts a word piece per started run of
 * LETTERS_PER_TOKEN letters and one per punctuation mark or ideograph, which is at or above what
 * BERT's WordPiece gives for English speech, so a passage stays under the model's limit.
 */
export const PASSAGE_TOKENS = 128;
export const OVERLAP_TOKENS = 32;
const LETTERS_PER_TOKEN = 6;

/** Version of the passage recipe; part of every vector key so a change re-embeds. */
const RECIPE = `p${PASSAGE_TOKENS}o${OVERLAP_TOKENS}`;

const PIECES =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]|[\p{L}\p{M}\p{N}]+|[^\s\p{L}\p{M}\p{N}]/gu;

/** Estimated model tokens of `text` (see above). */
export function estimateTokens(text: string): number {
  let n = 0;
  for (const m of text.matchAll(PIECES)) {
    const piece = m[0];
    n += piece.length === 1 ? 1 : Math.ceil(piece.length / LETTERS_PER_TOKEN);
  }
  return n;
}

export interface PassageLine {
  number: number;
  text: string;
}

export interface Passage {
  /** First and last line the passage covers. */
  number: number;
  last_number: number;
  /** Ordinal of the passage among those starting at `number` (0, 1, …). */
  part: number;
  text: string;
  tokens: number;
}

interface Piece {
  line: number;
  text: string;
  tokens: number;
}

const sentences = new Intl.Segmenter(undefined, { granularity: 'sentence' });

/** A line's sentences, each cut between words when longer than a passage. */
function piecesOf(line: PassageLine): Piece[] {
  const out: Piece[] = [];
  for (const { segment } of sentences.segment(line.text)) {
    const text = segment.trim();
    if (!text) continue;
    const tokens = estimateTokens(text);
    if (tokens <= PASSAGE_TOKENS) {
      out.push({ line: line.number, text, tokens });
      continue;
    }
    let words: string[] = [];
    let count = 0;
    for (const word of text.split(/\s+/)) {
      const t = estimateTokens(word);
      if (count + t > PASSAGE_TOKENS && words.length > 0) {
        out.push({ line: line.number, text: words.join(' '), tokens: count });
        words = [];
        count = 0;
      }
      words.push(word);
      count += t;
    }
    if (words.length > 0) out.push({ line: line.number, text: words.join(' '), tokens: count });
  }
  return out;
}

/**
 * The passages of one segment's lines (in line order), then the **line passages**: each line that
 * only shares passages with other lines is also packed on its own (a short line is one passage of
 * its text), so a hit on a passage of several lines can be shown as the lines that carry the
 * match — those whose own passage also ranks — rather than all of them. Passages starting in one
 * line are numbered (`part`) in the order they come.
 */
export function buildPassages(lines: PassageLine[]): Passage[] {
  const sorted = [...lines].sort((a, b) => a.number - b.number);
  const out = pack(sorted.flatMap(piecesOf));
  const alone = new Set(out.filter((p) => p.number === p.last_number).map((p) => p.number));
  const parts = new Map<number, number>();
  for (const p of out) parts.set(p.number, p.part + 1);
  for (const line of sorted) {
    if (alone.has(line.number) || !out.some((p) => p.number <= line.number && p.last_number >= line.number))
      continue;
    for (const p of pack(piecesOf(line))) {
      const part = parts.get(line.number) ?? 0;
      parts.set(line.number, part + 1);
      out.push({ ...p, part });
    }
  }
  return out;
}

/** Packs pieces, in order, into passages of at most PASSAGE_TOKENS with overlap. */
function pack(pieces: Piece[]): Passage[] {
  const out: Passage[] = [];
  let current: Piece[] = [];
  let tokens = 0;
  /** Whether `current` holds a piece not yet in any passage. */
  let fresh = false;
  const close = () => {
    const number = current[0]!.line;
    const previous = out.at(-1);
    out.push({
      number,
      last_number: current.at(-1)!.line,
      part: previous?.number === number ? previous.part + 1 : 0,
      text: current.map((p) => p.text).join(' '),
      tokens,
    });
    // The overlap: the last pieces, up to OVERLAP_TOKENS.
    const keep: Piece[] = [];
    let kept = 0;
    for (let i = current.length - 1; i > 0; i--) {
      if (kept + current[i]!.tokens > OVERLAP_TOKENS) break;
      keep.unshift(current[i]!);
      kept += current[i]!.tokens;
    }
    current = keep;
    tokens = kept;
    fresh = false;
  };
  for (const piece of pieces) {
    if (fresh && tokens + piece.tokens > PASSAGE_TOKENS) close();
    // An overlap that leaves no room for the next piece is dropped.
    while (current.length > 0 && tokens + piece.tokens > PASSAGE_TOKENS) tokens -= current.shift()!.tokens;
    current.push(piece);
    tokens += piece.tokens;
    fresh = true;
  }
  if (fresh) close();
  return out;
}

/** The key a passage's vector is stored under: the recipe and the text (the model is the index's). */
export function passageVectorKey(text: string): string {
  return `p:${createHash('sha1').update(`${RECIPE}\u0000${text}`).digest('base64url')}`;
}
