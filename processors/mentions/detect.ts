import type {
  AdReads,
  EpisodePublished,
  MentionsDetected,
  Podcast,
  Transcript,
} from '../../schemas/generated/index.ts';
import type { AliasMatch, Gazetteer } from './gazetteer.ts';
import { stem, type Token, tokenize } from './tokenize.ts';

/**
 * Mention detection: links transcript lines to entities with the alias automaton.
 *
 * 1. Every line is tokenised and matched against the automaton (leftmost-longest, case rules).
 * 2. A match naming one entity through an unambiguous alias is accepted outright.
 * 3. A match through an ambiguous alias ("Apple" the company or the fruit), or one alias
 *    shared by several entities, is scored per candidate entity from context:
 *      +3   one of the entity's context terms in the same line,
 *      +1.5 in the line before or after by the same speaker (+0.75 by another speaker),
 *      +0.5 two lines away,
 *      +1   the entity is mentioned unambiguously (or confirmed) elsewhere in the episode,
 *      +0.5 the podcast's categories fit the entity's category,
 *      +2.5 base for an alias that is not itself a common word.
 *    A line with three or more content words and none of the entity's context terms is about
 *    something else ("Apple pie with vanilla ice cream…"): nearby lines and episode evidence
 *    cannot rescue it. The best candidate is accepted with a score of at least 2.5; ties are
 *    dropped. Two passes, so that confirmed mentions count as evidence for the rest.
 * 4. Lines inside ad reads (by line range, or by time when an ad read has no line range) are
 *    flagged `in_ad`.
 * 5. Each episode-entity pair is `on_target` when the entity is named in the episode title or
 *    description (the show's hosts excepted), is a credited guest, panelist or correspondent, or
 *    is mentioned on at least 3 lines outside ad reads; otherwise `incidental` (a passing
 *    mention, or one only in ads).
 */
export const DETECTOR_VERSION = 'alias-automaton-1';
export const ON_TARGET_MIN_LINES = 3;
const ACCEPT_SCORE = 2.5;

const SUBSTANTIVE_LINE = 3;
const FUNCTION_WORDS = new Set(
  (
    'the a an and or but is are was were be been being it its this that these those to of in on at for with by ' +
    'from as again did do does done has have had so just really very too also not no yes i you he she we they ' +
    'me him her us them my your his our their what which who how why when where there here then than now all ' +
    'some any more most much many one can could would should will about up out over into like well oh yeah ' +
    "okay right i’m it’s that’s i'm it's that's get got go going still even"
  ).split(' '),
);

/** Words of a line that carry content, outside the matched alias. */
function contentWords(tokens: Token[], match: AliasMatch): number {
  let n = 0;
  tokens.forEach((t, i) => {
    if (i >= match.start && i < match.end) return;
    if (t.norm.length >= 3 && !FUNCTION_WORDS.has(t.norm) && !/^\d/.test(t.norm)) n++;
  });
  return n;
}

type Mention = MentionsDetected['mentions'][number];
export type FoundMention = Omit<Mention, 'in_ad'>;

export interface EpisodeFacts {
  episode: Pick<EpisodePublished, 'id' | 'podcast_id' | 'published_at' | 'title' | 'description' | 'people'>;
  /** Category slugs of the podcast (empty when unknown). */
  podcastCategories: string[];
  /** Person entity ids of the podcast's regular hosts. */
  hostIds: string[];
  adReads: AdReads['ad_reads'];
}

/** The facts of `episode`, from its podcast (when known) and its ad reads. */
export function episodeFacts(
  episode: EpisodeFacts['episode'],
  podcast: Pick<Podcast, 'categories' | 'hosts'> | undefined,
  adReads: AdReads['ad_reads'],
): EpisodeFacts {
  return {
    episode,
    podcastCategories: podcast?.categories.map((c) => c.slug) ?? [],
    hostIds: podcast?.hosts ?? [],
    adReads,
  };
}

/** Which podcast categories fit an entity category (beyond the same slug). */
const CATEGORY_FIT: Record<string, string[]> = {
  technology: ['technology', 'tech-news', 'business', 'investing', 'entrepreneurship'],
  consumer: ['business', 'investing', 'entrepreneurship'],
  automotive: ['business', 'investing', 'technology', 'tech-news'],
  transport: ['business', 'investing', 'economics'],
  finance: ['business', 'economics', 'investing'],
  energy: ['business', 'investing', 'environment', 'science'],
  health: ['health', 'medicine', 'business'],
  media: ['arts', 'tv-film', 'music', 'business'],
  astronomy: ['science', 'space', 'education'],
};

function fits(entityCategory: string, podcastCategories: string[]): boolean {
  const fit = CATEGORY_FIT[entityCategory] ?? [entityCategory];
  return podcastCategories.some((c) => c === entityCategory || fit.includes(c));
}

interface Pending {
  line: number;
  match: AliasMatch;
}

/** Finds the mentions of one transcript (without ad flags). Pure. */
export function findMentions(
  transcript: Transcript,
  facts: EpisodeFacts,
  gazetteer: Gazetteer,
): FoundMention[] {
  const lines = transcript.lines;
  const tokens: Token[][] = new Array(lines.length);
  const accepted: { line: number; match: AliasMatch; entityId: string }[] = [];
  const pending: Pending[] = [];
  const evidence = new Set<string>();

  for (let i = 0; i < lines.length; i++) {
    const toks = tokenize(lines[i]!.text);
    tokens[i] = toks;
    for (const match of gazetteer.match(toks)) {
      const ids = new Set(match.entries.map((e) => e.entityId));
      if (ids.size === 1 && !match.lowercase && !match.entries.some((e) => e.ambiguous)) {
        const entityId = match.entries[0]!.entityId;
        accepted.push({ line: i, match, entityId });
        evidence.add(entityId);
      } else {
        pending.push({ line: i, match });
      }
    }
  }

  if (pending.length > 0) {
    const stems = new Map<number, string>();
    const stemsOf = (i: number): string => {
      let s = stems.get(i);
      if (s === undefined) {
        s = ` ${tokens[i]!.map((t) => stem(t.norm)).join(' ')} `;
        stems.set(i, s);
      }
      return s;
    };
    const hasContext = (entityId: string, i: number): boolean => {
      if (i < 0 || i >= lines.length) return false;
      const profile = gazetteer.profile(entityId);
      if (!profile || profile.context.length === 0) return false;
      const text = stemsOf(i);
      return profile.context.some((term) => text.includes(` ${term.join(' ')} `));
    };
    const score = (entityId: string, line: number, ambiguous: boolean, match: AliasMatch): number => {
      let s = ambiguous ? 0 : ACCEPT_SCORE;
      if (hasContext(entityId, line)) s += 3;
      else if (match.lowercase || (ambiguous && contentWords(tokens[line]!, match) >= SUBSTANTIVE_LINE))
        return s;
      const speaker = lines[line]!.speaker;
      let near = 0;
      for (const j of [line - 1, line + 1]) {
        if (hasContext(entityId, j)) near = Math.max(near, lines[j]!.speaker === speaker ? 1.5 : 0.75);
      }
      s += near;
      if (hasContext(entityId, line - 2) || hasContext(entityId, line + 2)) s += 0.5;
      if (evidence.has(entityId)) s += 1;
      const profile = gazetteer.profile(entityId);
      if (profile && fits(profile.categorySlug, facts.podcastCategories)) s += 0.5;
      return s;
    };
    let open = pending;
    for (let pass = 0; pass < 2 && open.length > 0; pass++) {
      const still: Pending[] = [];
      const confirmed: string[] = [];
      for (const p of open) {
        const byEntity = new Map<string, boolean>();
        for (const e of p.match.entries)
          byEntity.set(e.entityId, (byEntity.get(e.entityId) ?? true) && e.ambiguous);
        let best: string | undefined;
        let bestScore = -1;
        let tie = false;
        for (const [entityId, ambiguous] of byEntity) {
          const s = score(entityId, p.line, ambiguous, p.match);
          if (s > bestScore) {
            best = entityId;
            bestScore = s;
            tie = false;
          } else if (s === bestScore) {
            tie = true;
          }
        }
        if (best && bestScore >= ACCEPT_SCORE && !tie) {
          accepted.push({ line: p.line, match: p.match, entityId: best });
          confirmed.push(best);
        } else {
          still.push(p);
        }
      }
      for (const id of confirmed) evidence.add(id);
      if (confirmed.length === 0) break;
      open = still;
    }
  }

  accepted.sort((a, b) => a.line - b.line || a.match.start - b.match.start);
  return accepted.map(({ line, match, entityId }) => {
    const l = lines[line]!;
    const toks = tokens[line]!;
    const charStart = toks[match.start]!.start;
    const charEnd = toks[match.end - 1]!.end;
    return {
      entity_id: entityId,
      line_number: l.number,
      speaker: l.speaker,
      start_seconds: l.start_seconds,
      end_seconds: l.end_seconds,
      variant: l.text.slice(charStart, charEnd),
      char_start: charStart,
      char_end: charEnd,
    };
  });
}

/** Line numbers inside ad reads: by line range, or by time overlap when the range is unknown. */
export function adLineSet(transcript: Transcript, adReads: AdReads['ad_reads']): Set<number> {
  const set = new Set<number>();
  for (const ad of adReads) {
    if (ad.first_line !== null && ad.last_line !== null) {
      for (let n = ad.first_line; n <= ad.last_line; n++) set.add(n);
    } else {
      for (const l of transcript.lines) {
        if (l.start_seconds < ad.end_seconds && l.end_seconds > ad.start_seconds) set.add(l.number);
      }
    }
  }
  return set;
}

/** Entity ids named in a text (title, description, a credited name); no context needed. */
export function entitiesNamedIn(text: string | null, gazetteer: Gazetteer): Set<string> {
  const out = new Set<string>();
  if (!text) return out;
  for (const m of gazetteer.match(tokenize(text))) for (const e of m.entries) out.add(e.entityId);
  return out;
}

/** Adds ad flags and per-entity relevance to found mentions. Pure. */
export function finalizeMentions(
  transcript: Transcript,
  found: FoundMention[],
  facts: EpisodeFacts,
  gazetteer: Gazetteer,
  detectedAt: number,
): MentionsDetected {
  const adLines = adLineSet(transcript, facts.adReads);
  const mentions: Mention[] = found.map((m) => ({ ...m, in_ad: adLines.has(m.line_number) }));

  const hosts = new Set(facts.hostIds);
  for (const p of facts.episode.people) {
    if (p.role.toLowerCase() === 'host') for (const id of entitiesNamedIn(p.name, gazetteer)) hosts.add(id);
  }
  const featured = new Set<string>([
    ...entitiesNamedIn(facts.episode.title, gazetteer),
    ...entitiesNamedIn(facts.episode.description, gazetteer),
  ]);
  const credited = new Set<string>();
  for (const p of facts.episode.people) {
    const role = p.role.toLowerCase();
    if (role === 'guest' || role === 'panelist' || role === 'correspondent') {
      for (const id of entitiesNamedIn(p.name, gazetteer)) credited.add(id);
    }
  }

  const byEntity = new Map<string, { count: number; variants: string[]; lines: Set<number> }>();
  for (const m of mentions) {
    let e = byEntity.get(m.entity_id);
    if (!e) {
      e = { count: 0, variants: [], lines: new Set() };
      byEntity.set(m.entity_id, e);
    }
    e.count++;
    if (!e.variants.includes(m.variant)) e.variants.push(m.variant);
    if (!m.in_ad) e.lines.add(m.line_number);
  }
  const entities = [...byEntity].map(([entityId, e]) => ({
    entity_id: entityId,
    relevance: ((featured.has(entityId) && !hosts.has(entityId)) ||
    credited.has(entityId) ||
    e.lines.size >= ON_TARGET_MIN_LINES
      ? 'on_target'
      : 'incidental') as 'on_target' | 'incidental',
    mention_count: e.count,
    variants: e.variants,
  }));

  return {
    episode_id: transcript.episode_id,
    podcast_id: facts.episode.podcast_id,
    published_at: facts.episode.published_at,
    language: transcript.language,
    detector_version: DETECTOR_VERSION,
    mentions,
    entities,
    detected_at: detectedAt,
  };
}

export function detectMentions(
  transcript: Transcript,
  facts: EpisodeFacts,
  gazetteer: Gazetteer,
  detectedAt: number,
): MentionsDetected {
  return finalizeMentions(
    transcript,
    findMentions(transcript, facts, gazetteer),
    facts,
    gazetteer,
    detectedAt,
  );
}
