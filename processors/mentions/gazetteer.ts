import type { Entity } from '../../schemas/generated/index.ts';
import { foldAccents as fold } from '../../schemas/text-folding.ts';
import { everydayWord, functionWord, ordinaryWord } from './lexicon.ts';
import { phoneticKey } from './phonetic.ts';
import { stem, type Token, tokenize } from './tokenize.ts';

/**
 * The alias automaton: a trie over normalised tokens, compiled from the entity catalog. Every
 * name an entity is known by (name, aliases, nicknames, ticker and `$ticker`, domain, @handles,
 * known variants) is one path; a node where a path ends holds the aliases ending there. Matching
 * walks the trie from each token and keeps the longest alias whose case rule holds
 * (leftmost-longest), so "Delta Air Lines" wins over "Delta" and word boundaries come from the
 * tokeniser.
 *
 * Case rules:
 * - tickers, and short all-caps aliases (up to 5 letters, e.g. "IBM"), match only as written
 *   (`AAPL` and `$AAPL`, never `aapl`), except in a line written without any capitals, where
 *   one of three letters or more is offered in lower case as an ambiguous candidate;
 * - everything else matches in any case and without accents.
 *
 * Ambiguity is decided per alias: an alias of an entity that has `context_terms` is ambiguous
 * when it is an everyday word ("Apple", "Meta", "Congress", "emergency"; see lexicon.ts), an
 * article and an everyday word ("The Hindu", "the Partition"), or made only of ordinary
 * lower-case words ("me too"). Its matches need confirmation from context (disambiguate.ts).
 * The entity's other aliases ("Facebook", "Indian National Congress") are distinctive.
 *
 * Phonetic matching (optional, on by default): a multi-word person name also matches when every
 * token sounds like the name's (phonetic.ts) and at least one is spelled exactly ("Pawan
 * Srinath" for Pavan Srinath).
 *
 * The automaton is updated in place when an entity changes (`add` replaces, `remove` deletes).
 */
export type CaseMode = 'insensitive' | 'exact';
export type AliasKind = 'name' | 'alias' | 'nickname' | 'ticker' | 'domain' | 'handle' | 'variant';

export interface AliasEntry {
  entityId: string;
  /** The catalog text this path came from ("Apple", "Amit Verma"). */
  form: string;
  surfaces: string[];
  norms: string[];
  caseMode: CaseMode;
  kind: AliasKind;
  /** The alias is also everyday language: needs confirmation from context. */
  ambiguous: boolean;
  /** The entity is a person. */
  person: boolean;
}

export interface EntityProfile {
  id: string;
  kind: Entity['kind'];
  name: string;
  categorySlug: string;
  /** Context terms as stem sequences. */
  context: string[][];
}

export interface AliasMatch {
  /** Token span [start, end). */
  start: number;
  end: number;
  entries: AliasEntry[];
  /** An all-caps alias written in lower case in a line without capitals: needs context. */
  lowercase?: boolean;
  /** Matched by sound, not spelling (multi-word person names). */
  phonetic?: boolean;
  /** Character range inside the token, for a name inside a joined word ("anti-Congress"). */
  part?: { start: number; end: number };
}

interface TrieNode {
  next?: Map<string, TrieNode>;
  out?: AliasEntry[];
}

const CORPORATE_SUFFIXES = new Set([
  'inc',
  'corp',
  'corporation',
  'ltd',
  'llc',
  'plc',
  'ag',
  'sa',
  'gmbh',
  'co',
  'company',
  'group',
  'holdings',
  'se',
  'nv',
]);
const ARTICLES = new Set(['the', 'le', 'la', 'les', 'der', 'die', 'das', 'el', 'los', 'las']);

/** The parts of an entity the automaton needs. */
export type GazetteerEntity = Pick<
  Entity,
  'id' | 'kind' | 'name' | 'aliases' | 'nicknames' | 'handles' | 'context_terms' | 'company' | 'category'
> &
  Partial<Pick<Entity, 'variants'>>;

export interface GazetteerOptions {
  /** Match multi-word person names by sound (default true). */
  phonetic?: boolean;
}

/**
 * Whether an alias of an entity that needs context is itself ordinary language. A person's
 * surname is not made ambiguous by being famous ("Gandhi" is said often): only by being an
 * ordinary word; other people of that name are told apart where the name is written
 * ("Rahul Gandhi", disambiguate.ts).
 */
function ambiguousAlias(tokens: Token[], person: boolean): boolean {
  const content = tokens.length > 1 && ARTICLES.has(tokens[0]!.norm) ? tokens.slice(1) : tokens;
  if (content.length === 1) {
    const word = content[0]!;
    if (!/^\p{L}+$/u.test(word.surface)) return false;
    return person ? ordinaryWord(word.norm) : everydayWord(word.norm);
  }
  return content.every((t) => ordinaryWord(t.norm));
}

/**
 * A context term as stems. A term that is a function word ("us" for the United States) counts
 * only as written in capitals ("US"): it is kept as its surface behind a marker.
 */
export const EXACT_TERM = '\u0000';
function contextTerm(term: string): string[] | undefined {
  const toks = tokenize(term);
  if (toks.length === 0) return undefined;
  if (toks.length === 1 && functionWord(toks[0]!.norm)) return [EXACT_TERM + toks[0]!.surface.toUpperCase()];
  return toks.map((t) => stem(t.norm));
}

export class Gazetteer {
  private readonly root = new Map<string, TrieNode>();
  /** Multi-word person names by the phonetic keys of their tokens. */
  private readonly phoneticRoot = new Map<string, TrieNode>();
  private readonly keys = new Map<string, string>();
  /**
   * Words of the names matched by sound, with how many names use each: a phonetic match needs
   * one of its first two words spelled exactly.
   */
  private readonly nameWords = new Map<string, number>();
  private readonly entities = new Map<
    string,
    { profile: EntityProfile; nodes: TrieNode[]; phoneticNodes: TrieNode[]; nameWords: string[] }
  >();
  private readonly phonetic: boolean;
  private aliasCount = 0;

  constructor(options: GazetteerOptions = {}) {
    this.phonetic = options.phonetic ?? true;
  }

  get entityCount(): number {
    return this.entities.size;
  }

  /** Number of alias paths compiled (ticker and `$ticker` count as two). */
  get size(): number {
    return this.aliasCount;
  }

  profile(entityId: string): EntityProfile | undefined {
    return this.entities.get(entityId)?.profile;
  }

  /** Adds an entity, replacing any earlier version of it. */
  add(entity: GazetteerEntity): void {
    this.remove(entity.id);
    const contextual = entity.context_terms.length > 0;
    const nodes: TrieNode[] = [];
    const phoneticNodes: TrieNode[] = [];
    const nameWords: string[] = [];
    const seen = new Set<string>();
    const person = entity.kind === 'PERSON';
    const put = (text: string, kind: AliasKind, forcedMode?: CaseMode) => {
      const tokens = tokenize(text);
      if (tokens.length === 0) return;
      const surfaces = tokens.map((t) => t.surface);
      const norms = tokens.map((t) => t.norm);
      const single = tokens.length === 1;
      let caseMode: CaseMode = forcedMode ?? 'insensitive';
      if (!forcedMode && single && /^\p{Lu}{1,5}$/u.test(surfaces[0]!)) caseMode = 'exact';
      const ambiguous =
        !forcedMode && caseMode === 'insensitive' && contextual && ambiguousAlias(tokens, person);
      const key = `${caseMode}:${norms.join(' ')}`;
      if (seen.has(key)) return;
      seen.add(key);
      const entry: AliasEntry = {
        entityId: entity.id,
        form: text.trim(),
        surfaces,
        norms,
        caseMode,
        kind,
        ambiguous,
        person,
      };
      nodes.push(insert(this.root, norms, entry));
      this.aliasCount++;
      if (this.phonetic && person && tokens.length > 1 && kind !== 'handle') {
        const codes = norms.map((n) => phoneticKey(n));
        // Short first names ("Theo" is `t`) are fine as long as the whole name says enough.
        if (codes.every((c) => c.length > 0) && codes.join('').length >= 4) {
          phoneticNodes.push(insert(this.phoneticRoot, codes, entry));
          for (const w of norms.slice(0, 2)) this.nameWords.set(w, (this.nameWords.get(w) ?? 0) + 1);
          nameWords.push(...norms.slice(0, 2));
        }
      }
    };
    const name = entity.name.replace(/\s*\([^)]*\)\s*/g, ' ').trim();
    put(name, 'name');
    const nameTokens = tokenize(name);
    const last = nameTokens.at(-1);
    if (nameTokens.length > 1 && last && CORPORATE_SUFFIXES.has(last.norm)) {
      put(name.slice(0, last.start).replace(/[\s,]+$/, ''), 'alias');
    }
    for (const a of entity.aliases) put(a, 'alias');
    for (const n of entity.nicknames) put(n, 'nickname');
    // "the Ridge Boys" is also said without the article.
    for (const a of [...entity.aliases, ...entity.nicknames]) {
      const m = /^the\s+(.+\s.+)$/i.exec(a.trim());
      if (m) put(m[1]!, entity.aliases.includes(a) ? 'alias' : 'nickname');
    }
    for (const v of entity.variants ?? []) put(v, 'variant');
    for (const h of entity.handles) put(h.startsWith('@') ? h : `@${h}`, 'handle', 'insensitive');
    if (entity.company?.domain) put(entity.company.domain, 'domain', 'insensitive');
    if (entity.company?.ticker) {
      const ticker = entity.company.ticker.replace(/^\$/, '');
      put(ticker, 'ticker', 'exact');
      put(`$${ticker}`, 'ticker', 'exact');
    }
    this.entities.set(entity.id, {
      nodes,
      phoneticNodes,
      nameWords,
      profile: {
        id: entity.id,
        kind: entity.kind,
        name: entity.name,
        categorySlug: entity.category.slug,
        context: entity.context_terms.map(contextTerm).filter((t) => t !== undefined),
      },
    });
  }

  remove(entityId: string): void {
    const held = this.entities.get(entityId);
    if (!held) return;
    for (const node of held.nodes) this.aliasCount -= drop(node, entityId);
    for (const node of held.phoneticNodes) drop(node, entityId);
    for (const w of held.nameWords) {
      const left = (this.nameWords.get(w) ?? 1) - 1;
      if (left > 0) this.nameWords.set(w, left);
      else this.nameWords.delete(w);
    }
    this.entities.delete(entityId);
  }

  /**
   * Leftmost-longest alias matches whose case rule holds. `text`, the line the tokens come from,
   * lets the automaton skip looking inside joined words when the line has none.
   */
  match(tokens: Token[], text?: string): AliasMatch[] {
    const out: AliasMatch[] = [];
    const n = tokens.length;
    const root = this.root;
    const phonetic = this.phoneticRoot.size > 0;
    const joins = text === undefined || JOINED.test(text);
    let lowerLine: boolean | undefined;
    let i = 0;
    while (i < n) {
      const token = tokens[i]!;
      const first = root.get(token.norm);
      let best: AliasMatch | undefined;
      if (first !== undefined) {
        const candidates = walk(first, tokens, i);
        for (let k = candidates.length - 1; k >= 0 && !best; k--) {
          const c = candidates[k]!;
          const entries = c.out.filter((e) => caseHolds(e, tokens, i));
          if (entries.length > 0) best = { start: i, end: c.end, entries };
        }
        if (!best) {
          // A line without capitals may still name "BJP": all-caps aliases of three letters or
          // more are offered in lower case, to be confirmed from context.
          lowerLine ??= lowercaseLine(tokens);
          for (let k = candidates.length - 1; k >= 0 && !best && lowerLine; k--) {
            const c = candidates[k]!;
            const entries = c.out.filter((e) => e.caseMode === 'exact' && e.surfaces[0]!.length >= 3);
            if (entries.length > 0) best = { start: i, end: c.end, entries, lowercase: true };
          }
        }
        // "the partition of Bengal": a longer alias starting after the article wins.
        if (best && best.end - best.start > 1 && ARTICLES.has(token.norm) && this.longerAfter(tokens, best))
          best = undefined;
      }
      if (!best) {
        // A name inside a joined word, or a person's name by sound (two name-like words in a row:
        // capitalised, unless the line has no capitals at all; one of them spelled right).
        const norm = token.norm;
        if (joins && first === undefined && norm.length > 4 && joined(norm)) best = this.matchPart(token, i);
        if (!best && phonetic && i + 1 < n) {
          const next = tokens[i + 1]!;
          if (!capitalised(token)) lowerLine ??= lowercaseLine(tokens);
          const named = capitalised(token) ? capitalised(next) : lowerLine;
          if (named && (this.nameWords.has(norm) || this.nameWords.has(next.norm)))
            best = this.matchPhonetic(tokens, i);
        }
      }
      if (best) {
        out.push(best);
        i = best.end;
      } else {
        i++;
      }
    }
    return out;
  }

  /** Whether an alias starting right after `best`'s article runs past it. */
  private longerAfter(tokens: Token[], best: AliasMatch): boolean {
    if (!best.entries.every((e) => ARTICLES.has(e.norms[0]!))) return false;
    const after = this.root.get(tokens[best.start + 1]!.norm);
    if (!after) return false;
    return walk(after, tokens, best.start + 1).some(
      (c) => c.end > best.end && c.out.some((e) => caseHolds(e, tokens, best.start + 1)),
    );
  }

  /**
   * A one-word alias inside a word joined by hyphens or dots that is no alias itself:
   * "Netflix-loving", "anti-Congress", "indiancut.substack.com".
   */
  private matchPart(token: Token, i: number): AliasMatch | undefined {
    const re = /[^.-]+/g;
    for (let m = re.exec(token.surface); m !== null; m = re.exec(token.surface)) {
      if (m[0].length < 2 || (m.index === 0 && m[0].length === token.surface.length)) continue;
      const node = this.root.get(fold(m[0]));
      const entries = node?.out?.filter(
        (e) => e.norms.length === 1 && (e.caseMode === 'insensitive' || e.surfaces[0] === m![0]),
      );
      if (entries && entries.length > 0) {
        const start = token.start + m.index;
        return { start: i, end: i + 1, entries, part: { start, end: start + m[0].length } };
      }
    }
    return undefined;
  }

  /** A multi-word person name by sound, at least one token spelled exactly. */
  private matchPhonetic(tokens: Token[], i: number): AliasMatch | undefined {
    const t = tokens[i]!;
    if (t.norm.length < 2 || t.possessive) return undefined;
    let node = this.phoneticRoot.get(this.key(t.norm));
    if (!node) return undefined;
    const candidates: { end: number; out: AliasEntry[] }[] = [];
    for (let j = i; ; ) {
      if (node.out) candidates.push({ end: j + 1, out: node.out });
      if (tokens[j]!.possessive || j + 1 >= tokens.length || !node.next) break;
      const next: TrieNode | undefined = node.next.get(this.key(tokens[j + 1]!.norm));
      if (!next) break;
      node = next;
      j++;
    }
    for (let k = candidates.length - 1; k >= 0; k--) {
      const c = candidates[k]!;
      const entries = c.out.filter((e) => e.norms.some((norm, j) => j < 2 && tokens[i + j]!.norm === norm));
      if (entries.length > 0) return { start: i, end: c.end, entries, phonetic: true };
    }
    return undefined;
  }

  private key(norm: string): string {
    let k = this.keys.get(norm);
    if (k === undefined) {
      k = phoneticKey(norm);
      if (this.keys.size > 200_000) this.keys.clear();
      this.keys.set(norm, k);
    }
    return k;
  }
}

function insert(root: Map<string, TrieNode>, keys: string[], entry: AliasEntry): TrieNode {
  let map = root;
  let node: TrieNode | undefined;
  for (const k of keys) {
    node = map.get(k);
    if (!node) {
      node = {};
      map.set(k, node);
    }
    map = node.next ??= new Map();
  }
  node!.out ??= [];
  node!.out.push(entry);
  return node!;
}

/** Removes an entity's entries from a node; returns how many went. */
function drop(node: TrieNode, entityId: string): number {
  if (!node.out) return 0;
  const before = node.out.length;
  node.out = node.out.filter((e) => e.entityId !== entityId);
  const removed = before - node.out.length;
  if (node.out.length === 0) node.out = undefined;
  return removed;
}

/** Every alias ending along the path from token i (shortest first). */
function walk(first: TrieNode, tokens: Token[], i: number): { end: number; out: AliasEntry[] }[] {
  const candidates: { end: number; out: AliasEntry[] }[] = [];
  let node = first;
  let j = i;
  for (;;) {
    if (node.out) candidates.push({ end: j + 1, out: node.out });
    if (tokens[j]!.possessive || j + 1 >= tokens.length || !node.next) break;
    const next = node.next.get(tokens[j + 1]!.norm);
    if (!next) break;
    node = next;
    j++;
  }
  return candidates;
}

/** A line with a word joined by a hyphen or a dot. */
const JOINED = /[\p{L}\p{N}][.-][\p{L}\p{N}]/u;

/** A word joined by a hyphen or a dot ("anti-Congress", "substack.com"). */
function joined(norm: string): boolean {
  for (let k = 1; k < norm.length; k++) {
    const c = norm.charCodeAt(k);
    if (c === 45 || c === 46) return true;
  }
  return false;
}

/** The token starts with a capital letter. */
function capitalised(t: Token): boolean {
  const c = t.surface.charCodeAt(0);
  if (c < 128) return c >= 65 && c <= 90;
  const first = t.surface[0]!;
  return first !== first.toLowerCase();
}

/** A line written without capitals (no token starts with an upper-case letter). */
function lowercaseLine(tokens: Token[]): boolean {
  for (const t of tokens) {
    const c = t.surface[0]!;
    if (c !== c.toLowerCase()) return false;
  }
  return true;
}

function caseHolds(entry: AliasEntry, tokens: Token[], start: number): boolean {
  if (entry.caseMode === 'insensitive') return true;
  for (let k = 0; k < entry.surfaces.length; k++) {
    if (tokens[start + k]!.surface !== entry.surfaces[k]) return false;
  }
  return true;
}
