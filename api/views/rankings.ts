import { type Static, Type } from '@sinclair/typebox';
import type { ChartRow } from '../../projections/analytics/chart-queries.ts';
import type { PodcastRow, PublisherRow } from '../../projections/catalog/catalog-reader.ts';
import { nullable, Timestamp } from '../schemas.ts';
import { iso } from '../windows.ts';

const BestRank = Type.Object({
  captured_at: Timestamp,
  chart_type: Type.String(),
  rank: Type.Integer(),
  source: Type.String(),
  category_slug: Type.String(),
  country: Type.String(),
});

/** A chart appearance of a podcast, as the rankings read and `include=rankings` show it. */
export const RankingRecord = Type.Object({
  id: Type.String(),
  source: Type.String({ description: 'ranking source, e.g. a podcast directory' }),
  chart_type: Type.String({ description: 'top_podcasts, …' }),
  rank: Type.Integer(),
  previous_rank: nullable(Type.Integer()),
  chart_total: Type.Integer(),
  is_current: Type.Boolean({ description: 'part of the newest capture of its chart' }),
  captured_at: Timestamp,
  source_updated_at: nullable(Timestamp),
  external_id: Type.String(),
  external_url: nullable(Type.String()),
  country: Type.String(),
  growth_indicator: nullable(Type.String()),
  category: Type.Object({
    name: Type.String(),
    slug: Type.String(),
    external_id: nullable(Type.String()),
    parent_slug: nullable(Type.String()),
  }),
  channel_subscriber_count: nullable(Type.Number()),
  view_count: nullable(Type.Number()),
  weekly_avg_downloads: nullable(Type.Number()),
  reach_pct: nullable(Type.Number()),
  show: Type.Object({
    name: Type.String(),
    content_advisory_rating: nullable(Type.String()),
    description: nullable(Type.String()),
    feed_url: nullable(Type.String()),
    genres: Type.Array(Type.Object({ external_id: Type.String(), name: Type.String() })),
    image_url: nullable(Type.String()),
    language: nullable(Type.String()),
    latest_release_date: nullable(Timestamp),
    publisher: nullable(Type.String()),
    total_episodes: nullable(Type.Integer()),
  }),
  podcast: nullable(
    Type.Object({
      id: Type.String(),
      title: Type.String(),
      slug: Type.String(),
      image_url: nullable(Type.String()),
      popularity: nullable(Type.Number()),
      publisher: nullable(Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String() })),
      best_rank: nullable(BestRank),
    }),
  ),
});

interface ShowJson {
  name: string;
  content_advisory_rating: string | null;
  description: string | null;
  feed_url: string | null;
  genres: { external_id: string; name: string }[];
  image_url: string | null;
  language: string | null;
  latest_release_date: number | null;
  publisher: string | null;
  total_episodes: number | null;
}

/** Ranking records of chart rows; each podcast's best live rank is taken from `all`. */
export function rankingRecords(
  rows: ChartRow[],
  all: ChartRow[],
  podcasts: Map<string, PodcastRow>,
  publishers: Map<string, PublisherRow>,
): Static<typeof RankingRecord>[] {
  const best = new Map<string, ChartRow>();
  for (const r of all) {
    const seen = best.get(r.podcast_id);
    if (!seen || r.rank < seen.rank || (r.rank === seen.rank && r.captured_ms > seen.captured_ms))
      best.set(r.podcast_id, r);
  }
  return rows.map((r) => {
    const show = JSON.parse(r.show) as ShowJson;
    const p = podcasts.get(r.podcast_id);
    const pub = p?.publisher_id ? publishers.get(p.publisher_id) : undefined;
    const b = best.get(r.podcast_id);
    return {
      id: r.id,
      source: r.source,
      chart_type: r.chart_type,
      rank: r.rank,
      previous_rank: r.previous_rank,
      chart_total: r.chart_total,
      is_current: true,
      captured_at: iso(r.captured_ms),
      source_updated_at: r.source_updated_ms === null ? null : iso(r.source_updated_ms),
      external_id: r.external_id,
      external_url: r.external_url,
      country: r.country,
      growth_indicator: r.growth_indicator,
      category: {
        name: r.category_name,
        slug: r.category_slug,
        external_id: r.category_external_id,
        parent_slug: r.category_parent_slug,
      },
      channel_subscriber_count: r.channel_subscriber_count,
      view_count: r.view_count,
      weekly_avg_downloads: r.weekly_avg_downloads,
      reach_pct: r.reach_pct,
      show: {
        name: show.name,
        content_advisory_rating: show.content_advisory_rating,
        description: show.description,
        feed_url: show.feed_url,
        genres: show.genres ?? [],
        image_url: show.image_url,
        language: show.language,
        latest_release_date: show.latest_release_date === null ? null : iso(show.latest_release_date),
        publisher: show.publisher,
        total_episodes: show.total_episodes,
      },
      podcast: p
        ? {
            id: p.id,
            title: p.title,
            slug: p.slug,
            image_url: p.image_url,
            popularity: p.popularity,
            publisher: pub ? { id: pub.id, name: pub.name, slug: pub.slug } : null,
            best_rank: b
              ? {
                  captured_at: iso(b.captured_ms),
                  chart_type: b.chart_type,
                  rank: b.rank,
                  source: b.source,
                  category_slug: b.category_slug,
                  country: b.country,
                }
              : null,
          }
        : null,
    };
  });
}
