import type { AnalyticsStore } from '../../../projections/analytics/analytics-store.ts';
import type { PodcastBias } from '../presentation/match-document.ts';

/**
 * Political bias of podcasts, for the `podcast_bias` of a match's episode block: read from the
 * analytics store's `bias_evaluations`, and cached for the senders.
 */
export interface PodcastBiasReader {
  biasOf(podcastIds: string[]): Promise<Map<string, PodcastBias>>;
}

/** The newest bias evaluation of each podcast. */
export function analyticsBiasReader(store: AnalyticsStore): PodcastBiasReader {
  return {
    async biasOf(podcastIds) {
      if (podcastIds.length === 0) return new Map();
      const rows = await store.query<{
        podcast_id: string;
        bias: string | null;
        lean_score: number | null;
        is_political: number;
        political_context: string;
        latest_at: string;
      }>(
        `SELECT podcast_id, argMax(bias, evaluated_at) AS bias, argMax(lean_score, evaluated_at) AS lean_score,
           argMax(is_political, evaluated_at) AS is_political,
           argMax(political_context, evaluated_at) AS political_context, max(evaluated_at) AS latest_at
         FROM bias_evaluations FINAL WHERE podcast_id IN {ids:Array(String)} GROUP BY podcast_id`,
        { ids: podcastIds },
      );
      return new Map(
        rows.map((r) => [
          r.podcast_id,
          {
            bias: r.bias as PodcastBias['bias'],
            lean_score: r.lean_score,
            is_political: Boolean(Number(r.is_political)),
            political_context: String(r.political_context),
            evaluated_at: new Date(`${String(r.latest_at).replace(' ', 'T')}Z`).toISOString(),
          },
        ]),
      );
    },
  };
}

/**
 * A bias reader that keeps each podcast's answer for `ttlMs` (bias evaluations change rarely;
 * the senders ask for every batch of deliveries). Podcasts without an evaluation are cached too.
 */
export function cachedBiasReader(
  reader: PodcastBiasReader,
  ttlMs = 60_000,
  now = Date.now,
): PodcastBiasReader {
  const cache = new Map<string, { at: number; bias: PodcastBias | undefined }>();
  return {
    async biasOf(podcastIds) {
      const t = now();
      const out = new Map<string, PodcastBias>();
      const missing: string[] = [];
      for (const id of new Set(podcastIds)) {
        const hit = cache.get(id);
        if (hit && t - hit.at < ttlMs) {
          if (hit.bias) out.set(id, hit.bias);
        } else missing.push(id);
      }
      if (missing.length === 0) return out;
      const fresh = await reader.biasOf(missing);
      if (cache.size > 50_000) cache.clear();
      for (const id of missing) {
        const bias = fresh.get(id);
        cache.set(id, { at: t, bias });
        if (bias) out.set(id, bias);
      }
      return out;
    },
  };
}
