import { type Static, Type } from '@sinclair/typebox';
import type { RatingSnapshotRow } from '../../projections/analytics/rating-queries.ts';
import { ListEnvelope, offsetPage, pageQuery } from '../pagination.ts';
import { Timestamp } from '../schemas.ts';
import { notFound } from '../views/analytics.ts';
import { PodcastSummary, podcastSummary } from '../views/catalog.ts';
import { iso, resolveWindow } from '../windows.ts';
import type { ReadServices } from './advertising-reads.ts';
import { defineRead, type ReadOperation } from './read-operation.ts';

/**
 * `GET /v1/podcasts/{id}/ratings`: a podcast's listener ratings per platform and country — the
 * latest snapshot and the history over a window — from the rating snapshots the ingest format
 * carries (`rating_snapshot` records).
 */
const RatingsInput = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200, description: 'podcast slug, ID or numeric directory ID' }),
  platform: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 50,
      pattern: '^[a-z0-9_]+$',
      description: 'apple_podcasts, spotify, …',
    }),
  ),
  country: Type.Optional(
    Type.String({
      minLength: 2,
      maxLength: 2,
      pattern: '^[A-Za-z]{2}$',
      description: 'ISO 3166-1 alpha-2 country code',
    }),
  ),
  since: Type.Optional(
    Type.String({
      maxLength: 40,
      format: 'date',
      description: 'history from this day (YYYY-MM-DD, included); default 90 days before until',
    }),
  ),
  until: Type.Optional(
    Type.String({
      maxLength: 40,
      format: 'date',
      description: 'history up to this day (included); default today',
    }),
  ),
  ...pageQuery(),
});

const Point = Type.Object({ captured_at: Timestamp, average: Type.Number(), count: Type.Integer() });

const RatingRow = Type.Object({
  platform: Type.String(),
  country: Type.String(),
  average: Type.Number({ description: 'mean rating of the latest snapshot, 0-5' }),
  count: Type.Integer({ description: 'ratings given, as of the latest snapshot' }),
  captured_at: Timestamp,
  history: Type.Array(Point, { description: 'snapshots in the window, oldest first' }),
});

const RatingsOutput = Type.Object({
  ...ListEnvelope(RatingRow).properties,
  podcast: PodcastSummary,
  overall: Type.Object(
    {
      average: Type.Union([Type.Number(), Type.Null()], {
        description: 'latest averages of every platform and country, weighted by their counts',
      }),
      count: Type.Integer({ description: 'latest counts of every platform and country, summed' }),
    },
    { description: 'over every platform and country of the filter, whatever the page' },
  ),
});

export function ratingReads(s: ReadServices): ReadOperation[] {
  const { catalog, cursors } = s;
  return [
    defineRead({
      name: 'podcast_ratings',
      path: '/v1/podcasts/:id/ratings',
      pathParams: ['id'],
      tags: ['podcasts'],
      summary: 'Listener ratings of a podcast per platform and country, with history',
      input: RatingsInput,
      output: RatingsOutput,
      priceCents: 1,
      async run(q) {
        const podcast = await catalog.podcast(q.id);
        if (!podcast) throw notFound('path.id', 'no podcast has this slug, ID or directory ID', q.id);
        const window = resolveWindow(q, { defaultDays: 90 });
        const snaps = await s.reads.ratings.snapshots(podcast.id, {
          ...(q.platform !== undefined ? { platform: q.platform } : {}),
          ...(q.country !== undefined ? { country: q.country } : {}),
        });
        const groups = new Map<string, RatingSnapshotRow[]>();
        for (const r of snaps) {
          const key = `${r.platform}/${r.country}`;
          const list = groups.get(key) ?? [];
          list.push(r);
          groups.set(key, list);
        }
        const rows: Static<typeof RatingRow>[] = [...groups.values()].map((list) => {
          const latest = list.at(-1)!;
          return {
            platform: latest.platform,
            country: latest.country,
            average: latest.average,
            count: latest.count,
            captured_at: iso(latest.captured_ms),
            history: list
              .filter((r) => r.captured_ms >= window.start && r.captured_ms < window.end)
              .map((r) => ({ captured_at: iso(r.captured_ms), average: r.average, count: r.count })),
          };
        });
        rows.sort((a, b) => b.count - a.count || (a.platform + a.country < b.platform + b.country ? -1 : 1));
        const count = rows.reduce((n, r) => n + r.count, 0);
        const weighted = rows.reduce((n, r) => n + r.average * r.count, 0);
        const endpoint = `ratings:${podcast.id}:${q.platform ?? ''}:${q.country ?? ''}:${window.start}:${window.end}`;
        return {
          ...offsetPage(cursors, endpoint, rows, q.limit ?? 25, q.cursor),
          podcast: podcastSummary(podcast),
          overall: { average: count > 0 ? Math.round((weighted / count) * 1000) / 1000 : null, count },
        };
      },
    }),
  ];
}
