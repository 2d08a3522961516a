import type { BiasEvaluation, ChartSnapshotRow } from '../../schemas/generated/index.ts';
import { CATEGORIES } from '../../schemas/occupations.ts';
import type { Catalog, GenPodcast } from './catalog.ts';
import { hash32, type Rng } from './rng.ts';
import type { Lang } from './vocabulary/types.ts';

/**
 * Daily chart snapshots per ranking source, country and category ("all" plus each top-level
 * category), ranked by popularity plus a random walk so ranks move from day to day; and bias
 * evaluations per podcast.
 */
const DAY = 86_400_000;
const SOURCES = [
  {
    source: 'directory_x',
    chart_type: 'top_podcasts',
    url: (p: GenPodcast) => `https://directory.example/podcast/id${p.podcast.directory_id}`,
  },
  {
    source: 'audio_platform_y',
    chart_type: 'top_podcasts',
    url: (p: GenPodcast) => `https://audio-platform.example/show/${p.podcast.slug}`,
  },
];
const COUNTRIES: Record<Lang, string[]> = {
  en: ['us', 'gb'],
  fr: ['fr', 'ca'],
  de: ['de', 'at'],
  es: ['es', 'mx'],
};

export interface ChartInputs {
  catalog: Catalog;
  rng: Rng;
  asOf: number;
  days: number;
  /** published_at of each podcast's episodes, ascending, by podcast id. */
  releases: Map<string, number[]>;
}

function topCategory(p: GenPodcast): { slug: string; name: string } {
  const top = p.podcast.categories.find((c) => c.parent_slug === null) ?? p.podcast.categories[0];
  if (!top) return { slug: 'all', name: 'All Podcasts' };
  let slug = top.slug;
  while (CATEGORIES[slug]?.parent) slug = CATEGORIES[slug]!.parent!;
  return { slug, name: CATEGORIES[slug]?.name ?? top.name };
}

/** Yields one day of chart rows at a time, oldest day first. */
export function* chartDays(input: ChartInputs): Generator<ChartSnapshotRow[]> {
  const { catalog, asOf, days, releases } = input;
  const charting = catalog.podcasts.filter((p) => p.podcast.popularity !== null);
  const walks = new Map<string, number[]>();
  for (const p of charting) {
    for (const s of SOURCES) {
      const r = input.rng.fork('walk', p.podcast.id, s.source);
      const walk: number[] = [];
      let v = r.normal(0, 6);
      for (let d = 0; d < days; d++) {
        v = v * 0.9 + r.normal(0, 3);
        walk.push(v);
      }
      walks.set(`${p.podcast.id}/${s.source}`, walk);
    }
  }
  const previous = new Map<string, number>();
  for (let d = 0; d < days; d++) {
    const day = asOf - (days - 1 - d) * DAY;
    const capturedAt = day - DAY + 6 * 3_600_000;
    const rows: ChartSnapshotRow[] = [];
    for (const s of SOURCES) {
      for (const lang of Object.keys(COUNTRIES) as Lang[]) {
        const members = charting.filter((p) => p.lang === lang);
        if (members.length === 0) continue;
        for (const country of COUNTRIES[lang]) {
          const charts = new Map<string, { category: { slug: string; name: string }; shows: GenPodcast[] }>();
          charts.set('all', { category: { slug: 'all', name: 'All Podcasts' }, shows: members });
          for (const p of members) {
            const cat = topCategory(p);
            const entry = charts.get(cat.slug) ?? { category: cat, shows: [] };
            if (entry !== charts.get('all')) entry.shows.push(p);
            charts.set(cat.slug, entry);
          }
          for (const { category, shows } of charts.values()) {
            const scored = shows
              .map((p) => ({
                p,
                score:
                  p.podcast.popularity! +
                  walks.get(`${p.podcast.id}/${s.source}`)![d]! +
                  (hash32(country + p.podcast.id) % 7),
              }))
              .sort((a, b) => b.score - a.score || a.p.index - b.p.index);
            scored.forEach(({ p }, i) => {
              const rank = i + 1;
              const chartKey = `${s.source}/${country}/${category.slug}/${p.podcast.id}`;
              const prev = previous.get(chartKey) ?? null;
              previous.set(chartKey, rank);
              const released = (releases.get(p.podcast.id) ?? []).filter((t) => t <= capturedAt);
              const date = new Date(day - DAY).toISOString().slice(0, 10);
              const downloads = Math.round(200_000 / rank ** 0.8 + (hash32(chartKey) % 5000));
              rows.push({
                id: `chart_${s.source}_${s.chart_type}_${country}_${category.slug}_${date}_${rank}`,
                source: s.source,
                chart_type: s.chart_type,
                rank,
                previous_rank: prev,
                chart_total: scored.length,
                is_current: d === days - 1,
                captured_at: capturedAt,
                source_updated_at: capturedAt - 3_600_000,
                external_id: String(p.podcast.directory_id),
                external_url: s.url(p),
                country,
                growth_indicator: prev === null ? 'new' : rank < prev ? 'up' : rank > prev ? 'down' : 'flat',
                category: {
                  name: category.name,
                  slug: category.slug,
                  external_id: String(1300 + (hash32(category.slug) % 100)),
                  parent_slug: null,
                },
                channel_subscriber_count:
                  s.source === 'audio_platform_y' ? Math.round(downloads * 1.7) : null,
                view_count: s.source === 'audio_platform_y' ? Math.round(downloads * 4.2) : null,
                weekly_avg_downloads: downloads,
                reach_pct: Math.round((downloads / 100_000) * 100) / 100,
                show: {
                  name: p.podcast.title,
                  content_advisory_rating: p.podcast.content_advisory_rating,
                  description: p.podcast.description,
                  feed_url: p.podcast.feed_url,
                  genres: p.podcast.categories.map((c) => ({
                    external_id: String(1300 + (hash32(c.slug) % 100)),
                    name: c.name,
                  })),
                  image_url: p.podcast.image_url,
                  language: p.lang,
                  latest_release_date: released.at(-1) ?? null,
                  publisher: p.publisher.name,
                  total_episodes: released.length,
                },
                podcast_id: p.podcast.id,
              });
            });
          }
        }
      }
    }
    yield rows;
  }
}

const CONTEXT: Record<Lang, BiasEvaluation['political_context'][]> = {
  en: ['US', 'US', 'US', 'UK', 'CANADA', 'AUSTRALIA'],
  fr: ['EU', 'CANADA'],
  de: ['EU'],
  es: ['EU', 'OTHER'],
};

/** One or two bias evaluations per podcast. */
export function biasEvaluations(catalog: Catalog, rng: Rng, asOf: number): BiasEvaluation[] {
  const out: BiasEvaluation[] = [];
  for (const p of catalog.podcasts) {
    const r = rng.fork('bias', p.podcast.id);
    const political =
      p.topics.includes('politics') ||
      p.podcast.categories.some((c) => c.slug === 'news' || c.slug === 'politics');
    const context = r.pick(CONTEXT[p.lang]);
    const lean = political ? r.normal(0, 0.45, -1, 1) : null;
    const evaluations = r.chance(0.3) ? 2 : 1;
    for (let k = 0; k < evaluations; k++) {
      const evaluatedAt = asOf - (k === 0 ? r.int(1, 20) : r.int(40, 90)) * DAY;
      const leanScore =
        lean === null ? null : Math.round(Math.max(-1, Math.min(1, lean + r.normal(0, 0.05))) * 100) / 100;
      out.push({
        id: `bias_${p.podcast.id}_${new Date(evaluatedAt).toISOString().slice(0, 10)}`,
        podcast_id: p.podcast.id,
        evaluated_at: evaluatedAt,
        political_context: context,
        is_political: political,
        political_topic_percentage: political ? Math.round(r.between(25, 90)) : Math.round(r.between(0, 12)),
        lean_score: leanScore,
        bias:
          leanScore === null
            ? null
            : leanScore < -0.6
              ? 'LEFT'
              : leanScore < -0.2
                ? 'LEAN_LEFT'
                : leanScore <= 0.2
                  ? 'CENTER'
                  : leanScore <= 0.6
                    ? 'LEAN_RIGHT'
                    : 'RIGHT',
        episodes_analyzed: r.int(5, 40),
        model: 'bias-eval-2025-10',
      });
    }
  }
  return out;
}
