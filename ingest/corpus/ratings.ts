import type { RatingSnapshot } from '../../schemas/generated/index.ts';
import type { Catalog } from './catalog.ts';
import type { Rng } from './rng.ts';
import type { Lang } from './vocabulary/types.ts';

/**
 * Listener ratings: per podcast, each platform it is rated on in each of its countries, one
 * snapshot a week over the 8 weeks up to the reference day — the count only grows, the average
 * drifts a little around the show's level.
 */
const DAY = 86_400_000;
const WEEKS = 8;
const PLATFORMS = ['apple_podcasts', 'spotify'] as const;
const COUNTRIES: Record<Lang, string[]> = {
  en: ['US', 'GB', 'CA', 'AU'],
  fr: ['FR', 'CA', 'BE'],
  de: ['DE', 'AT', 'CH'],
  es: ['ES', 'MX', 'AR'],
};

export function ratingSnapshots(catalog: Catalog, rng: Rng, asOf: number): RatingSnapshot[] {
  const out: RatingSnapshot[] = [];
  const day = Math.floor(asOf / DAY) * DAY;
  for (const p of catalog.podcasts) {
    const r = rng.fork('ratings', p.podcast.id);
    const level = r.normal(4.3, 0.35, 2.5, 5);
    const countries = COUNTRIES[p.lang].slice(0, r.int(1, COUNTRIES[p.lang].length));
    for (const platform of PLATFORMS) {
      if (platform === 'spotify' && r.chance(0.25)) continue; // not rated there
      for (const country of countries) {
        let count = r.int(20, 4000);
        let average = level + r.normal(0, 0.1);
        for (let w = WEEKS - 1; w >= 0; w--) {
          const capturedAt = day - w * 7 * DAY;
          count += r.int(0, 60);
          average = Math.max(1, Math.min(5, average + r.normal(0, 0.03)));
          out.push({
            id: `rt_${p.podcast.id}_${platform}_${country}_${new Date(capturedAt).toISOString().slice(0, 10)}`,
            podcast_id: p.podcast.id,
            platform,
            country,
            captured_at: capturedAt,
            average: Math.round(average * 100) / 100,
            count,
          });
        }
      }
    }
  }
  return out;
}
