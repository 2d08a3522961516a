import type { Transaction } from '../state/state-store.ts';
import { type ArchivePart, type PartKind, type PodcastPart, utcDay } from './archive-parts.ts';
import type { ArchiveKey } from './archive-store.ts';

/*
 * The write side of the archive store: upserts of parts and podcasts, and the per-day build
 * bookkeeping, each run inside ArchiveStore.write's transaction.
 */

export interface EpisodeState {
  episode_id: string;
  complete: boolean;
  day: string | null;
  published_at: Date | null;
}

export const iso = (ms: number) => new Date(ms).toISOString();
export const ms = (t: Date | string) => new Date(t).getTime();

function compareKey(a: ArchiveKey, b: ArchiveKey): number {
  return (
    a.publishedMs - b.publishedMs || (a.episodeId < b.episodeId ? -1 : a.episodeId > b.episodeId ? 1 : 0)
  );
}

/** The newest part per (kind, episode): a later item of equal version wins (log order). */
export function latestParts(parts: ArchivePart[]): Map<PartKind, ArchivePart[]> {
  const byKind = new Map<PartKind, Map<string, ArchivePart>>();
  for (const part of parts) {
    const latest = byKind.get(part.kind) ?? new Map<string, ArchivePart>();
    const seen = latest.get(part.episodeId);
    if (!seen || seen.version <= part.version) latest.set(part.episodeId, part);
    byKind.set(part.kind, latest);
  }
  return new Map([...byKind].map(([kind, latest]) => [kind, [...latest.values()]]));
}

/** Upserts one kind of part; returns the episodes whose part changed. */
export async function upsertParts(tx: Transaction, kind: PartKind, parts: ArchivePart[]): Promise<string[]> {
  const ids = parts.map((p) => p.episodeId);
  const json = parts.map((p) => p.json);
  const versions = parts.map((p) => p.version);
  // Same version and same text: a replay, nothing to do. An older version never replaces a newer.
  const guard = `archive_episodes.${kind}_v IS NULL OR (archive_episodes.${kind}_v <= excluded.${kind}_v
    AND archive_episodes.${kind} IS DISTINCT FROM excluded.${kind})`;
  if (kind === 'episode') {
    const rows = await tx.query<{ episode_id: string }>(
      `INSERT INTO archive_episodes (episode_id, episode, episode_v, podcast_id, language, published_at, day)
       SELECT id, doc, v, podcast, lang, at::timestamptz, day::date
       FROM unnest($1::text[], $2::text[], $3::int8[], $4::text[], $5::text[], $6::text[], $7::text[])
         AS x(id, doc, v, podcast, lang, at, day)
       ON CONFLICT (episode_id) DO UPDATE SET episode = excluded.episode, episode_v = excluded.episode_v,
         podcast_id = excluded.podcast_id, language = excluded.language, published_at = excluded.published_at,
         day = excluded.day
       WHERE ${guard}
       RETURNING episode_id`,
      [
        ids,
        json,
        versions,
        parts.map((p) => p.facts!.podcastId),
        parts.map((p) => p.facts!.language),
        parts.map((p) => iso(p.facts!.publishedAt)),
        parts.map((p) => utcDay(p.facts!.publishedAt)),
      ],
    );
    return rows.map((r) => r.episode_id);
  }
  const rows = await tx.query<{ episode_id: string }>(
    `INSERT INTO archive_episodes (episode_id, ${kind}, ${kind}_v)
     SELECT id, doc, v FROM unnest($1::text[], $2::text[], $3::int8[]) AS x(id, doc, v)
     ON CONFLICT (episode_id) DO UPDATE SET ${kind} = excluded.${kind}, ${kind}_v = excluded.${kind}_v
     WHERE ${guard}
     RETURNING episode_id`,
    [ids, json, versions],
  );
  return rows.map((r) => r.episode_id);
}

/** Upserts podcast summaries; returns the podcasts that changed. */
export async function upsertPodcasts(tx: Transaction, podcasts: PodcastPart[]): Promise<string[]> {
  const latest = new Map<string, PodcastPart>();
  for (const p of podcasts) {
    const seen = latest.get(p.podcastId);
    if (!seen || seen.version <= p.version) latest.set(p.podcastId, p);
  }
  const list = [...latest.values()];
  const rows = await tx.query<{ podcast_id: string }>(
    `INSERT INTO archive_podcasts (podcast_id, summary, publisher_id, language, version)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int8[])
     ON CONFLICT (podcast_id) DO UPDATE SET summary = excluded.summary, publisher_id = excluded.publisher_id,
       language = excluded.language, version = excluded.version
     WHERE archive_podcasts.version <= excluded.version
       AND (archive_podcasts.summary, archive_podcasts.publisher_id, archive_podcasts.language)
         IS DISTINCT FROM (excluded.summary, excluded.publisher_id, excluded.language)
     RETURNING podcast_id`,
    [
      list.map((p) => p.podcastId),
      list.map((p) => p.json),
      list.map((p) => p.publisherId),
      list.map((p) => p.language),
      list.map((p) => p.version),
    ],
  );
  return rows.map((r) => r.podcast_id);
}

export async function states(tx: Transaction, ids: string[]): Promise<Map<string, EpisodeState>> {
  const rows = await tx.query<EpisodeState>(
    `SELECT episode_id, complete, day::text AS day, published_at FROM archive_episodes
     WHERE episode_id = ANY($1::text[])`,
    [ids],
  );
  return new Map(rows.map((r) => [r.episode_id, r]));
}

const nextBuild = async (tx: Transaction) =>
  Number((await tx.query<{ n: number }>("SELECT nextval('archive_build_seq') AS n"))[0]!.n);

/**
 * Brings the touched days up to date: their counts and last positions from the table; a new
 * generation when an episode left the day or moved in it, or landed before its last position
 * (a late episode: a cursor issued before it would miss it); a new change stamp always. A day
 * left without episodes is removed.
 */
export async function updateDays(
  tx: Transaction,
  orderChanged: Set<string>,
  added: Map<string, ArchiveKey[]>,
  touched: Set<string>,
): Promise<void> {
  const days = [...touched];
  if (days.length === 0) return;
  const prior = new Map(
    (
      await tx.query<{ day: string; generation: number; last_published_at: Date; last_episode_id: string }>(
        `SELECT day::text AS day, generation, last_published_at, last_episode_id FROM archive_days
         WHERE day = ANY($1::date[])`,
        [days],
      )
    ).map((r) => [r.day, r]),
  );
  const now = new Map(
    (
      await tx.query<{ day: string; episodes: number; last_published_at: Date; last_episode_id: string }>(
        `SELECT DISTINCT ON (day) day::text AS day, count(*) OVER (PARTITION BY day)::int AS episodes,
           published_at AS last_published_at, episode_id AS last_episode_id
         FROM archive_episodes WHERE complete AND day = ANY($1::date[])
         ORDER BY day, published_at DESC, episode_id DESC`,
        [days],
      )
    ).map((r) => [r.day, r]),
  );
  for (const day of days) {
    const before = prior.get(day);
    const after = now.get(day);
    if (!after) {
      if (before) await tx.query('DELETE FROM archive_days WHERE day = $1::date', [day]);
      continue;
    }
    let late = false;
    if (before) {
      const last = { publishedMs: ms(before.last_published_at), episodeId: before.last_episode_id };
      late = (added.get(day) ?? []).some((k) => compareKey(k, last) < 0);
    }
    const stamp = await nextBuild(tx);
    const generation = !before || late || orderChanged.has(day) ? stamp : before.generation;
    await tx.query(
      `INSERT INTO archive_days (day, generation, changed, episodes, last_published_at, last_episode_id)
       VALUES ($1::date, $2, $3, $4, $5, $6)
       ON CONFLICT (day) DO UPDATE SET generation = excluded.generation, changed = excluded.changed,
         episodes = excluded.episodes, last_published_at = excluded.last_published_at,
         last_episode_id = excluded.last_episode_id`,
      [day, generation, stamp, after.episodes, after.last_published_at, after.last_episode_id],
    );
  }
}
