import { createHash } from 'node:crypto';
import type { AnalyticsStore } from '../../../projections/analytics/analytics-store.ts';
import type { StateStore } from '../../../projections/state/state-store.ts';
import type { AlertKind } from '../../../schemas/event-enums.ts';
import { BACKFILL_DAYS, DAY_MS, speakerRolesOf } from '../model.ts';

/**
 * Alert previews: an estimate of how many episodes an alert would have matched over the
 * backfill window (the previous 7 days), counted in the analytics store.
 *
 * The preview id derives from what changes the count — project, kind, entities, `languages`
 * and the effective `speaker_roles` — so asking again with the same ones returns the same id
 * and, while it is fresh (CACHE_MS), the cached count; toggling `relevance` or
 * `source_popularity` changes neither (the estimate is an upper bound under RELEVANT).
 *
 * States: PENDING (recorded) → RUNNING (counting) → COMPLETE (with `estimated_match_count`) or
 * FAILED (with `error`). A stale COMPLETE or FAILED preview, or one stuck RUNNING for longer
 * than STUCK_MS (its process stopped), is counted again under the same id.
 */
export const PREVIEW_CACHE_MS = 10 * 60_000;
const STUCK_MS = 2 * 60_000;

export interface PreviewQuery {
  kind: AlertKind;
  entityIds: string[];
  languages: string[];
  speakerRoles: string[];
  since: number;
  until: number;
}

export interface MatchCounter {
  /** Episodes in [since, until) that an alert with these count-affecting settings would match. */
  count(q: PreviewQuery): Promise<number>;
}

export type PreviewStatus = 'PENDING' | 'RUNNING' | 'COMPLETE' | 'FAILED';

export interface PreviewRow {
  id: string;
  project_id: string;
  request: { kind: AlertKind; entity_ids: string[]; languages: string[]; speaker_roles: string[] };
  status: PreviewStatus;
  estimated_match_count: number | null;
  window_start: Date | string | null;
  window_end: Date | string | null;
  error: string | null;
  created_at: Date | string;
  started_at: Date | string | null;
  completed_at: Date | string | null;
}

export function previewId(
  projectId: string,
  kind: AlertKind,
  entityIds: string[],
  languages: string[] | undefined,
  speakerRoles: string[] | undefined,
): string {
  const key = {
    p: projectId,
    k: kind,
    e: [...new Set(entityIds)].sort(),
    l: [...new Set((languages ?? []).map((l) => l.toLowerCase()))].sort(),
    r:
      kind === 'PODCAST_SPEAKER'
        ? [...new Set(speakerRolesOf({ speaker_roles: speakerRoles as never }))].sort()
        : [],
  };
  return `prv_${createHash('sha256').update(JSON.stringify(key)).digest('hex').slice(0, 24)}`;
}

export class AlertPreviews {
  constructor(
    private readonly state: StateStore,
    private readonly counter: MatchCounter,
    private readonly clock: () => number = Date.now,
  ) {}

  async get(id: string): Promise<PreviewRow | undefined> {
    const [row] = await this.state.query<PreviewRow>('SELECT * FROM alert_previews WHERE id = $1', [id]);
    return row;
  }

  /**
   * Returns the preview for these settings, starting a count when there is no fresh one. The
   * count runs in the background; `settled` resolves when it is done (tests wait on it).
   */
  async start(
    projectId: string,
    kind: AlertKind,
    entityIds: string[],
    languages: string[] | undefined,
    speakerRoles: string[] | undefined,
  ): Promise<{ preview: PreviewRow; settled: Promise<void> }> {
    const id = previewId(projectId, kind, entityIds, languages, speakerRoles);
    const now = this.clock();
    const existing = await this.get(id);
    if (existing && !this.needsRun(existing, now)) return { preview: existing, settled: Promise.resolve() };
    const request = {
      kind,
      entity_ids: [...new Set(entityIds)].sort(),
      languages: [...new Set((languages ?? []).map((l) => l.toLowerCase()))].sort(),
      speaker_roles:
        kind === 'PODCAST_SPEAKER' ? [...speakerRolesOf({ speaker_roles: speakerRoles as never })] : [],
    };
    const since = now - BACKFILL_DAYS * DAY_MS;
    const [row] = await this.state.query<PreviewRow>(
      `INSERT INTO alert_previews (id, project_id, request, status, window_start, window_end, created_at)
       VALUES ($1, $2, $3::jsonb, 'PENDING', $4, $5, $6)
       ON CONFLICT (id) DO UPDATE SET status = 'PENDING', window_start = excluded.window_start,
         window_end = excluded.window_end, error = NULL, started_at = NULL
       RETURNING *`,
      [id, projectId, JSON.stringify(request), new Date(since), new Date(now), new Date(now)],
    );
    const settled = this.run(row!, { ...request, since, until: now });
    return { preview: row!, settled };
  }

  private needsRun(row: PreviewRow, now: number): boolean {
    if (row.status === 'PENDING' || row.status === 'RUNNING') {
      const since = new Date(row.started_at ?? row.created_at).getTime();
      return now - since > STUCK_MS;
    }
    return now - new Date(row.completed_at ?? row.created_at).getTime() > PREVIEW_CACHE_MS;
  }

  private async run(
    row: PreviewRow,
    q: {
      kind: AlertKind;
      entity_ids: string[];
      languages: string[];
      speaker_roles: string[];
      since: number;
      until: number;
    },
  ): Promise<void> {
    try {
      await this.state.query(`UPDATE alert_previews SET status = 'RUNNING', started_at = $2 WHERE id = $1`, [
        row.id,
        new Date(this.clock()),
      ]);
      const n = await this.counter.count({
        kind: q.kind,
        entityIds: q.entity_ids,
        languages: q.languages,
        speakerRoles: q.speaker_roles,
        since: q.since,
        until: q.until,
      });
      await this.state.query(
        `UPDATE alert_previews SET status = 'COMPLETE', estimated_match_count = $2, error = NULL, completed_at = $3
         WHERE id = $1`,
        [row.id, n, new Date(this.clock())],
      );
    } catch (err) {
      await this.state
        .query(`UPDATE alert_previews SET status = 'FAILED', error = $2, completed_at = $3 WHERE id = $1`, [
          row.id,
          'the count could not be computed; try again later',
          new Date(this.clock()),
        ])
        .catch(() => undefined);
      void err;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Counting in the analytics store (tables of schemas/clickhouse).

const LANGUAGE_MATCH = (column: string) =>
  `(length({langs:Array(String)}) = 0 OR arrayExists(t -> lower(${column}) = t OR startsWith(lower(${column}), concat(t, '-')), {langs:Array(String)}))`;

/** Counts distinct episodes: mentions of the entities (entity_episodes) or their speaking turns (episode_speakers). */
export function analyticsMatchCounter(store: AnalyticsStore): MatchCounter {
  return {
    async count(q) {
      const params = {
        ids: q.entityIds,
        langs: q.languages,
        roles: q.speakerRoles,
        since: q.since,
        until: q.until,
      };
      const window =
        'published_at >= fromUnixTimestamp64Milli({since:Int64}) AND published_at < fromUnixTimestamp64Milli({until:Int64})';
      const sql =
        q.kind === 'ENTITY_MENTION'
          ? `SELECT uniqExact(episode_id) AS n FROM entity_episodes FINAL
             WHERE entity_id IN {ids:Array(String)} AND ${window} AND lines > 0 AND ${LANGUAGE_MATCH('lang')}`
          : `SELECT uniqExact(s.episode_id) AS n
             FROM (SELECT episode_id, podcast_id FROM episode_speakers FINAL
                   WHERE person_id IN {ids:Array(String)} AND role IN {roles:Array(String)} AND ${window}) AS s
             LEFT JOIN (SELECT id, language FROM episodes FINAL) AS e ON e.id = s.episode_id
             LEFT JOIN (SELECT id, language FROM podcasts FINAL) AS p ON p.id = s.podcast_id
             WHERE ${LANGUAGE_MATCH("if(e.language IS NULL OR e.language = '', p.language, e.language)")}`;
      const [row] = await store.query<{ n: number | string }>(sql, params);
      return Number(row?.n ?? 0);
    },
  };
}
