import type { AlertMatched } from '../../../schemas/generated/index.ts';
import { languageMatches, matchId } from '../model.ts';
import type { IndexedAlert } from './alert-index.ts';
import type { FactSpeaker, MatcherFacts } from './matcher-facts.ts';
import type { EpisodeRenderer } from './windows.ts';

/**
 * Pure rules that turn what is known about an episode into alert matches.
 *
 * ENTITY_MENTION: the alert fires when any of its entities is mentioned in the dialogue (ad
 * reads included). With several of its entities mentioned, the match is about the most relevant
 * one: on-target before incidental, then most mention lines, then the alert's own order.
 * `mention_count` and `mention_variants` are that entity's; `relevance` is the detector's.
 * Windows (windows.ts): each mention line with one line of context either side.
 *
 * PODCAST_SPEAKER: the alert fires when one of its entities is an identified speaker in one of
 * the alert's roles (default: every role but HOST). `mention_count` is the speaker's line count,
 * `roles` its roles, `relevance` on_target. Windows (windows.ts): the highlight clips of that
 * speaker, or else its first turns.
 *
 * `languages` gates both kinds (the episode's detected language).
 */
export function mentionLanguage(f: MatcherFacts): string {
  return f.mentions?.language ?? f.transcript_language ?? f.episode_language ?? '';
}

export function speakerLanguage(f: MatcherFacts): string {
  return f.speakers?.language ?? f.transcript_language ?? f.episode_language ?? '';
}

/** Ready for mention matching: transcript and mentions, and speakers unless their wait is over. */
export function mentionReady(f: MatcherFacts, now: number, speakerGraceMs: number): boolean {
  if (!f.has_lines || !f.mentions) return false;
  return f.speakers !== undefined || now - f.mentions.received_at >= speakerGraceMs;
}

export function speakerReady(f: MatcherFacts): boolean {
  return Boolean(f.has_lines && f.speakers);
}

export interface MatchContext {
  detectedAt: number;
  isBackfilled: boolean;
}

/** The mention match of one alert on one episode, or undefined when it does not fire. */
export function mentionMatch(
  entry: IndexedAlert,
  renderer: EpisodeRenderer,
  ctx: MatchContext,
): AlertMatched | undefined {
  const f = renderer.facts;
  const mentions = f.mentions;
  if (!mentions) return undefined;
  const { alert } = entry;
  if (!languageMatches(alert.filters.languages, mentionLanguage(f))) return undefined;
  let best: (typeof mentions.entities)[number] | undefined;
  for (const e of mentions.entities) {
    if (!entry.entities.has(e.entity_id) || e.mention_count <= 0) continue;
    if (!best || better(e, best, entry)) best = e;
  }
  if (!best) return undefined;
  return {
    id: matchId(alert.id, f.episode_id),
    alert_id: alert.id,
    project_id: alert.project_id,
    kind: 'ENTITY_MENTION',
    entity_type: entry.entities.get(best.entity_id)!,
    entity_id: best.entity_id,
    source_type: 'PODCAST_EPISODE',
    source_id: f.episode_id,
    podcast_id: mentions.podcast_id,
    published_at: mentions.published_at,
    detected_at: ctx.detectedAt,
    mention_count: best.mention_count,
    mention_variants: best.variants,
    relevance: best.relevance,
    roles: [],
    is_backfilled: ctx.isBackfilled,
    windows: renderer.mentionWindows(best.entity_id),
  };
}

function better(
  a: { entity_id: string; relevance: string; mention_count: number },
  b: { entity_id: string; relevance: string; mention_count: number },
  entry: IndexedAlert,
): boolean {
  if (a.relevance !== b.relevance) return a.relevance === 'on_target';
  if (a.mention_count !== b.mention_count) return a.mention_count > b.mention_count;
  return entry.order.get(a.entity_id)! < entry.order.get(b.entity_id)!;
}

/** The speaker match of one alert on one episode, or undefined when it does not fire. */
export function speakerMatch(
  entry: IndexedAlert,
  renderer: EpisodeRenderer,
  ctx: MatchContext,
): AlertMatched | undefined {
  const f = renderer.facts;
  const speakers = f.speakers;
  if (!speakers) return undefined;
  const { alert } = entry;
  if (!languageMatches(alert.filters.languages, speakerLanguage(f))) return undefined;
  // Per watched person: the labels they spoke under in an allowed role.
  const byPerson = new Map<string, FactSpeaker[]>();
  for (const s of speakers.list) {
    if (!s.person_id || !entry.entities.has(s.person_id) || !entry.speakerRoles.has(s.role)) continue;
    const list = byPerson.get(s.person_id) ?? [];
    list.push(s);
    byPerson.set(s.person_id, list);
  }
  let bestId: string | undefined;
  let bestLines = -1;
  for (const [id, list] of byPerson) {
    const lines = list.reduce((n, s) => n + s.line_count, 0);
    if (lines > bestLines || (lines === bestLines && entry.order.get(id)! < entry.order.get(bestId!)!)) {
      bestId = id;
      bestLines = lines;
    }
  }
  if (bestId === undefined) return undefined;
  const list = byPerson.get(bestId)!;
  return {
    id: matchId(alert.id, f.episode_id),
    alert_id: alert.id,
    project_id: alert.project_id,
    kind: 'PODCAST_SPEAKER',
    entity_type: entry.entities.get(bestId)!,
    entity_id: bestId,
    source_type: 'PODCAST_EPISODE',
    source_id: f.episode_id,
    podcast_id: speakers.podcast_id,
    published_at: speakers.published_at,
    detected_at: ctx.detectedAt,
    mention_count: bestLines,
    mention_variants: [],
    relevance: 'on_target',
    roles: [...new Set(list.map((s) => s.role))],
    is_backfilled: ctx.isBackfilled,
    windows: renderer.speakerWindows(new Set(list.map((s) => s.label))),
  };
}
