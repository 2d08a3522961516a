import type { StateStore, Transaction } from '../state/state-store.ts';
import {
  type ArchiveItem,
  type ArchivePart,
  type PartKind,
  type PodcastPart,
  REQUIRED_PARTS,
  utcDay,
} from './archive-parts.ts';

/**
 * The episode archive in the state store (migration 010; PGlite embedded, PostgreSQL when
 * `DATABASE_URL` is set, so every API instance reads the same rows):
 *
 * - `archive_podcasts`: the podcast summary each record embeds, and its publisher and language;
 * - `archive_episodes`: each episode's parts; `complete` once its episode, transcript, mentions,
 *   speakers and podcast are all there;
 * - `archive_days`: per UTC publication day, the build generation (changes when the day's order
 *   changes other than by appending at its end), a change stamp, the count and the last position;
 * - `archive_live`: the order in which episodes became complete (the live stream's positions).
 *
 * Writes run in one transaction under an advisory lock, so writers (several projector members or
 * processes) are serialised: a live sequence number becomes visible only after every smaller one,
 * and a day's "late" test sees every episode written before it.
 */
const ARCHIVE_LOCK = 7_423_509;

/** The state store's tables the archive projector writes. */
export const ARCHIVE_TABLES = [
  'archive_podcasts',
  'archive_episodes',
  'archive_days',
  'archive_live',
] as const;

/** A position in publication order: the instant (epoch ms) and the episode id. */
export interface ArchiveKey {
  publishedMs: number;
  episodeId: string;
}

export interface ArchiveDay {
  /** `YYYY-MM-DD` */
  day: string;
  generation: number;
  changed: number;
  episodes: number;
}

/** The columns of an episode a record is assembled from (heavy parts only when asked for). */
export interface ArchiveRecordRow {
  episode_id: string;
  podcast_id: string;
  day: string;
  published_ms: number;
  episode: string;
  /** The podcast summary (JSON). */
  podcast: string;
  /** The podcast's language (the record's when the episode has none). */
  podcast_language: string;
  mentions: string;
  speakers: string;
  transcript?: string | null;
  segments?: string | null;
  clips?: string | null;
}

export type HeavyPart = 'transcript' | 'segments' | 'clips';

/** An episode of the live order, with what the live stream filters by. */
export interface LiveEntry {
  seq: number;
  episode_id: string;
  podcast_id: string;
  publisher_id: string | null;
  /** The episode's language, else its podcast's (BCP-47). */
  language: string;
  ready_ms: number;
}

export interface WriteReport {
  /** Episodes whose parts changed. */
  changed: number;
  /** Episodes that became complete in this write. */
  completed: number;
  /** Of those, how many joined the live order (the others were announced before a rebuild). */
  announced: number;
}

interface EpisodeState {
  episode_id: string;
  complete: boolean;
  day: string | null;
  published_at: Date | null;
}

const iso = (ms: number) => new Date(ms).toISOString();
const ms = (t: Date | string) => new Date(t).getTime();

function compareKey(a: ArchiveKey, b: ArchiveKey): number {
  return (
    a.publishedMs - b.publishedMs || (a.episodeId < b.episodeId ? -1 : a.episodeId > b.episodeId ? 1 : 0)
  );
}

/** The newest part per (kind, episode): a later item of equal version wins (log order). */
function latestParts(parts: ArchivePart[]): Map<PartKind, ArchivePart[]> {
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
async function upsertParts(tx: Transaction, kind: PartKind, parts: ArchivePart[]): Promise<string[]> {
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
async function upsertPodcasts(tx: Transaction, podcasts: PodcastPart[]): Promise<string[]> {
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

async function states(tx: Transaction, ids: string[]): Promise<Map<string, EpisodeState>> {
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
async function updateDays(
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

const HEAVY_COLUMNS: Record<HeavyPart, string> = {
  transcript: 'transcript',
  segments: 'segments',
  clips: 'clips',
};

/** Columns of `archive_episodes e JOIN archive_podcasts p` a record is assembled from. */
function recordColumns(heavy: Iterable<HeavyPart>): string {
  const extra = [...new Set(heavy)].map((p) => `, e.${HEAVY_COLUMNS[p]}`).join('');
  return `e.episode_id, e.podcast_id, e.day::text AS day, e.published_at, e.episode, p.summary AS podcast,
    p.language AS podcast_language, e.mentions, e.speakers${extra}`;
}

const RECORDS = 'archive_episodes e JOIN archive_podcasts p ON p.podcast_id = e.podcast_id';

function recordRow(r: ArchiveRecordRow & { published_at: Date }): ArchiveRecordRow {
  const { published_at, ...rest } = r;
  return { ...rest, published_ms: ms(published_at) };
}

export class ArchiveStore {
  constructor(private readonly state: StateStore) {}

  /**
   * Writes a batch of parts idempotently: a part replaces an older or equal version with other
   * content, never a newer one. Episodes that become complete join their day and, unless they
   * were announced before (a rebuild), the live order, in the order of the batch.
   */
  async write(items: ArchiveItem[]): Promise<WriteReport> {
    if (items.length === 0) return { changed: 0, completed: 0, announced: 0 };
    const parts = items.filter((i): i is ArchivePart => i.kind !== 'podcast');
    const podcasts = items.filter((i): i is PodcastPart => i.kind === 'podcast');
    return this.state.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [ARCHIVE_LOCK]);
      const changedPodcasts = podcasts.length > 0 ? await upsertPodcasts(tx, podcasts) : [];
      // A podcast that changed changes the records of its episodes, and may complete some.
      const ofPodcasts =
        changedPodcasts.length > 0
          ? (
              await tx.query<{ episode_id: string }>(
                'SELECT episode_id FROM archive_episodes WHERE podcast_id = ANY($1::text[])',
                [changedPodcasts],
              )
            ).map((r) => r.episode_id)
          : [];
      const ids = [...new Set([...parts.map((p) => p.episodeId), ...ofPodcasts])];
      const before = await states(tx, ids);
      const changedIds = new Set<string>(ofPodcasts);
      for (const [kind, latest] of latestParts(parts)) {
        for (const id of await upsertParts(tx, kind, latest)) changedIds.add(id);
      }
      if (changedIds.size === 0) return { changed: 0, completed: 0, announced: 0 };
      const changed = [...changedIds];
      const required = REQUIRED_PARTS.map((k) => `${k}_v IS NOT NULL`).join(' AND ');
      await tx.query(
        `UPDATE archive_episodes SET complete = true
         WHERE episode_id = ANY($1::text[]) AND NOT complete AND ${required}
           AND EXISTS (SELECT 1 FROM archive_podcasts p WHERE p.podcast_id = archive_episodes.podcast_id)`,
        [changed],
      );
      const after = await states(tx, changed);

      const orderChanged = new Set<string>();
      const added = new Map<string, ArchiveKey[]>();
      const touched = new Set<string>();
      const completed: string[] = [];
      for (const id of changed) {
        const now = after.get(id);
        if (!now?.complete || !now.day || !now.published_at) continue;
        const was = before.get(id);
        const key = { publishedMs: ms(now.published_at), episodeId: id };
        touched.add(now.day);
        if (!was?.complete) {
          completed.push(id);
          added.set(now.day, [...(added.get(now.day) ?? []), key]);
        } else if (was.day !== now.day || ms(was.published_at!) !== key.publishedMs) {
          // Moved: its old day and its new one are reordered.
          orderChanged.add(was.day!);
          orderChanged.add(now.day);
          touched.add(was.day!);
        }
      }
      await updateDays(tx, orderChanged, added, touched);

      // The live order: in the order of the batch, each episode at its last part (the one that
      // completed it; a partition's records arrive in log order).
      let announced = 0;
      if (completed.length > 0) {
        const last = new Map<string, number>();
        for (const [i, p] of parts.entries()) last.set(p.episodeId, i);
        // Episodes completed by their podcast's arrival come after those of the batch's parts.
        for (const id of ofPodcasts) if (!last.has(id)) last.set(id, parts.length + last.size);
        const order = [...last].sort((a, b) => a[1] - b[1]).map(([id]) => id);
        const done = new Set(completed);
        const known = new Set(
          (
            await tx.query<{ episode_id: string }>(
              'SELECT episode_id FROM archive_live WHERE episode_id = ANY($1::text[])',
              [completed],
            )
          ).map((r) => r.episode_id),
        );
        const fresh = order.filter((id) => done.has(id) && !known.has(id));
        if (fresh.length > 0) {
          // A function scan yields the array in order, and nextval is taken row by row.
          await tx.query(
            `INSERT INTO archive_live (seq, episode_id)
             SELECT nextval('archive_live_seq'), id FROM unnest($1::text[]) AS t(id)`,
            [fresh],
          );
          announced = fresh.length;
        }
      }
      return { changed: changed.length, completed: completed.length, announced };
    });
  }

  /**
   * Empties the archive (episodes and days) for a rebuild. The live order stays: what was
   * announced is not announced again, and the live stream waits at an episode until its record
   * is written again. Generations come from a sequence that is not reset, so every day rebuilt
   * gets a new one and every replay cursor issued before is stale.
   */
  async clear(): Promise<string> {
    await this.state.exec('TRUNCATE archive_episodes, archive_days, archive_podcasts');
    return 'emptied archive_episodes, archive_days, archive_podcasts (the live order is kept)';
  }

  /** Answers while the store does (the projector's probe). */
  async probe(): Promise<void> {
    await this.state.query('SELECT 1');
  }

  // ── reads ──────────────────────────────────────────────────────────────────────────────

  /** The days from `from` to `to` (inclusive, `YYYY-MM-DD`) that hold episodes, in order. */
  /**
   * Distinct podcasts with a complete episode published in `from`-`to` (UTC days, inclusive):
   * over the whole span and per day (days without one are absent).
   */
  async podcasts(from: string, to: string): Promise<{ total: number; byDay: Map<string, number> }> {
    const rows = await this.state.query<{ day: string | null; podcasts: number }>(
      `SELECT day::text AS day, count(DISTINCT podcast_id)::int AS podcasts FROM archive_episodes
       WHERE complete AND day BETWEEN $1::date AND $2::date
       GROUP BY GROUPING SETS ((day), ())`,
      [from, to],
    );
    const byDay = new Map<string, number>();
    let total = 0;
    for (const r of rows) {
      if (r.day === null) total = Number(r.podcasts);
      else byDay.set(r.day, Number(r.podcasts));
    }
    return { total, byDay };
  }

  async days(from: string, to: string, db: Transaction | StateStore = this.state): Promise<ArchiveDay[]> {
    const rows = await db.query<ArchiveDay>(
      `SELECT day::text AS day, generation, changed, episodes FROM archive_days
       WHERE day BETWEEN $1::date AND $2::date ORDER BY day`,
      [from, to],
    );
    return rows.map((r) => ({ ...r, generation: Number(r.generation), changed: Number(r.changed) }));
  }

  /**
   * Complete episodes of the days `from`..`to` after `after`, in publication order, with the days'
   * generations read in the same snapshot (so a page and the generations it is checked against
   * agree).
   */
  async page(options: {
    from: string;
    to: string;
    after?: ArchiveKey;
    limit: number;
    heavy: Iterable<HeavyPart>;
  }): Promise<{ rows: ArchiveRecordRow[]; days: ArchiveDay[] }> {
    return this.state.transaction(async (tx) => {
      await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
      const days = await this.days(options.from, options.to, tx);
      const params: unknown[] = [options.from, options.to, options.limit];
      let where = 'e.complete AND e.day BETWEEN $1::date AND $2::date';
      if (options.after) {
        params.push(iso(options.after.publishedMs), options.after.episodeId);
        where += ' AND (e.published_at, e.episode_id) > ($4::timestamptz, $5)';
      }
      const rows = await tx.query<ArchiveRecordRow & { published_at: Date }>(
        `SELECT ${recordColumns(options.heavy)} FROM ${RECORDS} WHERE ${where}
         ORDER BY e.day, e.published_at, e.episode_id LIMIT $3`,
        params,
      );
      return { rows: rows.map(recordRow), days };
    });
  }

  /** Complete episodes by id (the live stream's records), in no particular order. */
  async records(ids: string[], heavy: Iterable<HeavyPart>): Promise<ArchiveRecordRow[]> {
    if (ids.length === 0) return [];
    const rows = await this.state.query<ArchiveRecordRow & { published_at: Date }>(
      `SELECT ${recordColumns(heavy)} FROM ${RECORDS} WHERE e.complete AND e.episode_id = ANY($1::text[])`,
      [ids],
    );
    return rows.map(recordRow);
  }

  /** The highest live position handed out (0: none). */
  async liveHead(): Promise<number> {
    const [row] = await this.state.query<{ seq: number | null }>('SELECT max(seq) AS seq FROM archive_live');
    return Number(row?.seq ?? 0);
  }

  /**
   * Live entries after `seq`, in order, up to the first whose record is not complete (being
   * rebuilt): `held` then says the stream must wait there.
   */
  async liveAfter(seq: number, limit: number): Promise<{ entries: LiveEntry[]; held: boolean }> {
    const rows = await this.state.query<{
      seq: number;
      episode_id: string;
      podcast_id: string | null;
      publisher_id: string | null;
      language: string | null;
      ready_at: Date;
      complete: boolean | null;
    }>(
      `SELECT l.seq, l.episode_id, e.podcast_id, p.publisher_id, coalesce(e.language, p.language) AS language,
         l.ready_at, e.complete
       FROM archive_live l
         LEFT JOIN archive_episodes e ON e.episode_id = l.episode_id
         LEFT JOIN archive_podcasts p ON p.podcast_id = e.podcast_id
       WHERE l.seq > $1 ORDER BY l.seq LIMIT $2`,
      [seq, limit],
    );
    const entries: LiveEntry[] = [];
    for (const r of rows) {
      if (!r.complete) return { entries, held: true };
      entries.push({
        seq: Number(r.seq),
        episode_id: r.episode_id,
        podcast_id: r.podcast_id!,
        publisher_id: r.publisher_id,
        language: r.language ?? '',
        ready_ms: ms(r.ready_at),
      });
    }
    return { entries, held: false };
  }

  /** The first live position after `seq` and when it became ready, if any. */
  async liveNext(seq: number): Promise<{ seq: number; ready_ms: number } | undefined> {
    const [row] = await this.state.query<{ seq: number; ready_at: Date }>(
      'SELECT seq, ready_at FROM archive_live WHERE seq > $1 ORDER BY seq LIMIT 1',
      [seq],
    );
    return row ? { seq: Number(row.seq), ready_ms: ms(row.ready_at) } : undefined;
  }

  /** The oldest live position that became ready at or after `sinceMs` (undefined: none). */
  async liveOldestSince(sinceMs: number): Promise<number | undefined> {
    const [row] = await this.state.query<{ seq: number | null }>(
      'SELECT min(seq) AS seq FROM archive_live WHERE ready_at >= $1::timestamptz',
      [iso(sinceMs)],
    );
    return row?.seq === null || row?.seq === undefined ? undefined : Number(row.seq);
  }
}
