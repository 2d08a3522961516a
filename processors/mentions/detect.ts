import type {
  AdReads,
  EpisodePublished,
  MentionsDetected,
  Podcast,
  Transcript,
} from '../../schemas/generated/index.ts';
import { Disambiguator, type Placed, partOfAnotherName } from './disambiguate.ts';
import type { AliasEntry, AliasMatch, Gazetteer } from './gazetteer.ts';
import { cachedStem, LineView } from './line-view.ts';
import { type Token, tokenize } from './tokenize.ts';
import { mayBeVerb, usedAsVerb } from './verb-use.ts';

/**
 * Mention detection: links transcript lines to entities with the alias automaton.
 *
 * 1. Every line is tokenised and matched against the automaton (leftmost-longest, case rules;
 *    known variants and, for multi-word person names, phonetic matches included).
 * 2. A match naming one entity through a distinctive alias is accepted outright, unless a
 *    one-word alias of a person sits inside another capitalised name ("Rahul Gandhi") or a
 *    brand is said as a verb ("to Google him", verb-use.ts).
 * 3. Everything else — an alias that is also everyday language ("Apple", "Congress",
 *    "partition"), an alias several entities share, an all-caps alias in a line without
 *    capitals — is scored per candidate entity from its sentence, its neighbourhood, the
 *    neighbouring lines and the rest of the episode (disambiguate.ts). Two passes, so that
 *    confirmed mentions count as evidence for the rest.
 * 4. Lines inside ad reads (by line range, or by time when an ad read has no line range) are
 *    flagged `in_ad`.
 * 5. Each episode-entity pair is `on_target` when the entity is named in the episode title or
 *    description (the show's hosts excepted), is a credited guest, panelist or correspondent, or
 *    is mentioned on at least 3 lines outside ad reads; otherwise `incidental` (a passing
 *    mention, or one only in ads). Only accepted mentions count.
 *
 * Every mention keeps the text as written (`variant`), the catalog form that matched
 * (`matched`) and how (`match`: name, alias, …, variant, phonetic).
 */
export const DETECTOR_VERSION = 'alias-automaton-3';
export const ON_TARGET_MIN_LINES = 3;

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

interface Taken {
  line: number;
  match: AliasMatch;
  entityId: string;
  entry: AliasEntry;
}

/** Finds the mentions of one transcript (without ad flags). Pure. */
export function findMentions(
  transcript: Transcript,
  facts: EpisodeFacts,
  gazetteer: Gazetteer,
): FoundMention[] {
  const lines = transcript.lines;
  const tokens: Token[][] = new Array(lines.length);
  const accepted: Taken[] = [];
  const pending: { line: number; match: AliasMatch }[] = [];
  const views = new Map<number, LineView>();
  const view = (i: number): LineView => {
    let v = views.get(i);
    if (!v) {
      v = new LineView(lines[i]!.text, tokens[i]!);
      views.set(i, v);
    }
    return v;
  };

  // The hot path: most matches name one entity through a distinctive alias.
  for (let i = 0; i < lines.length; i++) {
    const toks = tokenize(lines[i]!.text);
    tokens[i] = toks;
    const matches = gazetteer.match(toks, lines[i]!.text);
    for (let k = 0; k < matches.length; k++) {
      const match = matches[k]!;
      const entry = match.entries[0]!;
      let clear = !match.lowercase;
      for (let e = 0; e < match.entries.length && clear; e++) {
        const x = match.entries[e]!;
        if (x.ambiguous || x.entityId !== entry.entityId) clear = false;
      }
      if (!clear) {
        pending.push({ line: i, match });
        continue;
      }
      if (partOfAnotherName(toks, match, entry.person, view, i)) continue;
      if (
        !entry.person &&
        mayBeVerb(toks, match.start, match.end) &&
        usedAsVerb(view(i), match.start, match.end)
      )
        continue;
      accepted.push({ line: i, match, entityId: entry.entityId, entry });
    }
  }

  if (pending.length > 0) {
    // Lines per entity named unambiguously or confirmed (counted in line order, so a line counts
    // once), and what is placed on a line (collected when a line is first asked about).
    const confirmed = new Map<string, number>();
    const lastLine = new Map<string, number>();
    const extra: Taken[] = [];
    const count = (t: Taken) => {
      if (lastLine.get(t.entityId) === t.line) return;
      lastLine.set(t.entityId, t.line);
      confirmed.set(t.entityId, (confirmed.get(t.entityId) ?? 0) + 1);
    };
    for (const t of accepted) count(t);
    const extraLines = new Set<string>();
    const take = (t: Taken) => {
      extra.push(t);
      if (placedByLine) place(t);
      const key = `${t.entityId}|${t.line}`;
      if (extraLines.has(key) || accepted.some((a) => a.line === t.line && a.entityId === t.entityId)) return;
      extraLines.add(key);
      confirmed.set(t.entityId, (confirmed.get(t.entityId) ?? 0) + 1);
    };
    let placedByLine: Map<number, Placed[]> | undefined;
    const place = (t: Taken) => {
      const p = {
        start: t.match.start,
        end: t.match.end,
        entityId: t.entityId,
        first: tokens[t.line]![t.match.start]!.norm,
      };
      const list = placedByLine!.get(t.line);
      if (list) list.push(p);
      else placedByLine!.set(t.line, [p]);
    };
    const placed = (line: number): Placed[] => {
      if (!placedByLine) {
        placedByLine = new Map();
        for (const t of accepted) place(t);
        for (const t of extra) place(t);
      }
      return placedByLine.get(line) ?? [];
    };
    let episodeStems: Map<string, number> | undefined;
    const judge = new Disambiguator(gazetteer, {
      lines,
      view,
      confirmedLines: (id) => confirmed.get(id) ?? 0,
      placed,
      podcastCategories: facts.podcastCategories,
      episodeStems: () => {
        if (!episodeStems) {
          const counts = new Map<string, number>();
          for (const toks of tokens) for (const t of toks) counts.set(t.norm, (counts.get(t.norm) ?? 0) + 1);
          episodeStems = new Map();
          for (const [norm, n] of counts) {
            const st = cachedStem(norm);
            episodeStems.set(st, (episodeStems.get(st) ?? 0) + n);
          }
        }
        return episodeStems;
      },
    });
    let open = pending.filter((p) => {
      const person = p.match.entries.every((e) => e.person);
      return !partOfAnotherName(tokens[p.line]!, p.match, person, view, p.line);
    });
    // Two passes: what the first confirms is evidence for the second, where an episode about an
    // entity may also vouch for a mention with nothing around it.
    for (let pass = 0; pass < 2 && open.length > 0; pass++) {
      const still: typeof open = [];
      const now: Taken[] = [];
      for (const p of open) {
        const got = judge.resolve(p.line, p.match, pass);
        if (got) now.push({ line: p.line, match: p.match, ...got });
        else still.push(p);
      }
      for (const t of now) take(t);
      open = still;
    }
    accepted.push(...extra);
  }

  accepted.sort((a, b) => a.line - b.line || a.match.start - b.match.start);
  return accepted.map(({ line, match, entityId, entry }) => {
    const l = lines[line]!;
    const toks = tokens[line]!;
    const charStart = match.part?.start ?? toks[match.start]!.start;
    const charEnd = match.part?.end ?? toks[match.end - 1]!.end;
    return {
      entity_id: entityId,
      line_number: l.number,
      speaker: l.speaker,
      start_seconds: l.start_seconds,
      end_seconds: l.end_seconds,
      variant: l.text.slice(charStart, charEnd),
      char_start: charStart,
      char_end: charEnd,
      matched: entry.form,
      match: match.phonetic ? 'phonetic' : entry.kind,
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
  const mentions: Mention[] = found.map((m) => ({
    entity_id: m.entity_id,
    line_number: m.line_number,
    speaker: m.speaker,
    start_seconds: m.start_seconds,
    end_seconds: m.end_seconds,
    variant: m.variant,
    char_start: m.char_start,
    char_end: m.char_end,
    in_ad: adLines.has(m.line_number),
    matched: m.matched,
    match: m.match,
  }));

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
