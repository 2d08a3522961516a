import type { Entity } from '../../schemas/generated/index.ts';
import { stem, type Token, tokenize } from './tokenize.ts';

/**
 * The alias automaton: a trie over normalised tokens, compiled from the entity catalog. Every
 * name an entity is known by (name, aliases, nicknames, ticker and `$ticker`, domain, @handles)
 * is one path; a node where a path ends holds the aliases ending there. Matching walks the trie
 * from each token and keeps the longest alias whose case rule holds (leftmost-longest), so
 * "Delta Air Lines" wins over "Delta" and word boundaries come from the tokeniser.
 *
 * Case rules:
 * - tickers, and short all-caps aliases (up to 5 letters, e.g. "IBM"), match only as written:
 *   `AAPL` and `$AAPL`, never `aapl`;
 * - a one-word name of an entity whose name is also an ordinary word (it has `context_terms`,
 *   e.g. "Apple", "Jaguar") matches capitalised and is marked ambiguous, to be confirmed from
 *   context by the detector; in a line with no capitals at all (speech-to-text without casing)
 *   it is also offered in lowercase, flagged, and then needs context in its own line;
 * - every other name, domain and handle matches in any case and without accents.
 *
 * The automaton is updated in place when an entity changes (`add` replaces, `remove` deletes).
 */
export type CaseMode = 'insensitive' | 'capitalized' | 'exact';
export type AliasKind = 'name' | 'alias' | 'nickname' | 'ticker' | 'domain' | 'handle';

export interface AliasEntry {
  entityId: string;
  surfaces: string[];
  caseMode: CaseMode;
  kind: AliasKind;
  /** The alias is also an ordinary word: needs confirmation from context. */
  ambiguous: boolean;
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
  /** An ambiguous word written in lowercase (speech-to-text without casing): needs context in its own line. */
  lowercase?: boolean;
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

/** The parts of an entity the automaton needs. */
export type GazetteerEntity = Pick<
  Entity,
  'id' | 'kind' | 'name' | 'aliases' | 'nicknames' | 'handles' | 'context_terms' | 'company' | 'category'
>;

export class Gazetteer {
  private readonly root = new Map<string, TrieNode>();
  private readonly entities = new Map<string, { profile: EntityProfile; nodes: TrieNode[] }>();
  private aliasCount = 0;

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
    const seen = new Set<string>();
    const put = (text: string, kind: AliasKind, forcedMode?: CaseMode) => {
      const tokens = tokenize(text);
      if (tokens.length === 0) return;
      const surfaces = tokens.map((t) => t.surface);
      const single = tokens.length === 1;
      const word = surfaces[0]!;
      let caseMode: CaseMode = forcedMode ?? 'insensitive';
      let ambiguous = false;
      if (!forcedMode) {
        if (single && /^\p{Lu}{1,5}$/u.test(word)) caseMode = 'exact';
        else if (single && contextual && /^\p{L}+$/u.test(word)) {
          caseMode = 'capitalized';
          ambiguous = true;
        }
      }
      const key = `${caseMode}:${tokens.map((t) => t.norm).join(' ')}`;
      if (seen.has(key)) return;
      seen.add(key);
      let map = this.root;
      let node: TrieNode | undefined;
      for (const t of tokens) {
        node = map.get(t.norm);
        if (!node) {
          node = {};
          map.set(t.norm, node);
        }
        map = node.next ??= new Map();
      }
      node!.out ??= [];
      node!.out.push({ entityId: entity.id, surfaces, caseMode, kind, ambiguous });
      nodes.push(node!);
      this.aliasCount++;
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
    for (const h of entity.handles) put(h.startsWith('@') ? h : `@${h}`, 'handle', 'insensitive');
    if (entity.company?.domain) put(entity.company.domain, 'domain', 'insensitive');
    if (entity.company?.ticker) {
      const ticker = entity.company.ticker.replace(/^\$/, '');
      put(ticker, 'ticker', 'exact');
      put(`$${ticker}`, 'ticker', 'exact');
    }
    this.entities.set(entity.id, {
      nodes,
      profile: {
        id: entity.id,
        kind: entity.kind,
        name: entity.name,
        categorySlug: entity.category.slug,
        context: entity.context_terms.map((t) => tokenize(t).map((tok) => stem(tok.norm))),
      },
    });
  }

  remove(entityId: string): void {
    const held = this.entities.get(entityId);
    if (!held) return;
    for (const node of held.nodes) {
      if (!node.out) continue;
      const before = node.out.length;
      node.out = node.out.filter((e) => e.entityId !== entityId);
      this.aliasCount -= before - node.out.length;
      if (node.out.length === 0) node.out = undefined;
    }
    this.entities.delete(entityId);
  }

  /** Leftmost-longest alias matches whose case rule holds. */
  match(tokens: Token[]): AliasMatch[] {
    const out: AliasMatch[] = [];
    const n = tokens.length;
    let i = 0;
    while (i < n) {
      const first = this.root.get(tokens[i]!.norm);
      if (!first) {
        i++;
        continue;
      }
      let node: TrieNode = first;
      let best: AliasMatch | undefined;
      const candidates: { end: number; out: AliasEntry[] }[] = [];
      let j = i;
      for (;;) {
        if (node.out) candidates.push({ end: j + 1, out: node.out });
        if (tokens[j]!.possessive || j + 1 >= n) break;
        const next: TrieNode | undefined = node.next?.get(tokens[j + 1]!.norm);
        if (!next) break;
        node = next;
        j++;
      }
      for (let k = candidates.length - 1; k >= 0 && !best; k--) {
        const c = candidates[k]!;
        const entries = c.out.filter((e) => caseHolds(e, tokens, i));
        if (entries.length > 0) best = { start: i, end: c.end, entries };
      }
      if (!best) {
        // An all-lowercase line may still name a company: keep ambiguous words as weak candidates.
        for (let k = candidates.length - 1; k >= 0 && !best; k--) {
          const c = candidates[k]!;
          const entries = c.out.filter((e) => e.caseMode === 'capitalized');
          if (entries.length > 0 && lowercaseLine(tokens))
            best = { start: i, end: c.end, entries, lowercase: true };
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
    const surface = tokens[start + k]!.surface;
    if (entry.caseMode === 'exact') {
      if (surface !== entry.surfaces[k]) return false;
    } else {
      const first = surface[0]!;
      if (first === first.toLowerCase()) return false;
    }
  }
  return true;
}
