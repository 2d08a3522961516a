import type { StateStore, Transaction } from '../state/state-store.ts';
import { type ArchiveItem, type ArchivePart, type PodcastPart, REQUIRED_PARTS } from './archive-parts.ts';
import { iso, latestParts, ms, states, updateDays, upsertParts, upsertPodcasts } from './archive-writes.ts';

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
