import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SEED } from '../../ingest/corpus/demo.ts';
import type { EntityRelevanceTruth } from '../../ingest/corpus/episode.ts';
import { GROUND_TRUTH_FILES, generateCorpus, PRESETS, RECORD_FILES } from '../../ingest/corpus/generate.ts';
import type {
  AdReads,
  ChartSnapshotRow,
  EpisodePublished,
  Transcript,
} from '../../schemas/generated/index.ts';
import { tempDir } from '../support/temp-dir.ts';

/**
 * The demo corpus is dated up to the minute it is generated, so that a newcomer's first reads,
 * with their default windows, answer with data: the most-mentioned entities are mentioned in the
 * last 7 days (the default of the mention reads), sponsor trends (7 days against the 7 before, on
 * at least 3 podcasts) have a sponsor, and an episode came out within the last hour.
 */
const DAY = 86_400_000;
const AS_OF = Date.UTC(2026, 2, 10, 12, 34);

function records<T>(dir: string, file: string): T[] {
  return fs
    .readFileSync(path.join(dir, file), 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => (JSON.parse(l) as { data: T }).data);
}

describe('the demo corpus', () => {
  const tmp = tempDir('earshot-demo-corpus-');
  let dir: string;
  let episodes: Map<string, EpisodePublished>;
  const age = (episodeId: string) => AS_OF - episodes.get(episodeId)!.published_at;

  beforeAll(async () => {
    dir = path.join(tmp.dir, 'recent');
    await generateCorpus({ ...PRESETS.demo, seed: DEMO_SEED, out: dir, asOf: AS_OF });
    episodes = new Map(records<EpisodePublished>(dir, RECORD_FILES.episode).map((e) => [e.id, e]));
  });
  afterAll(() => tmp.remove());

  it('is deterministic for an as-of time, and says the same whatever its dates', async () => {
    const again = path.join(tmp.dir, 'again');
    await generateCorpus({ ...PRESETS.demo, seed: DEMO_SEED, out: again, asOf: AS_OF });
    for (const file of [...Object.values(RECORD_FILES), ...Object.values(GROUND_TRUTH_FILES)]) {
      expect(
        fs.readFileSync(path.join(again, file)).equals(fs.readFileSync(path.join(dir, file))),
        file,
      ).toBe(true);
    }
    // The schedule moves dates only: the spread schedule's transcripts say the same lines.
    const spread = path.join(tmp.dir, 'spread');
    await generateCorpus({ ...PRESETS.demo, schedule: 'spread', seed: DEMO_SEED, out: spread, asOf: AS_OF });
    const lines = (d: string) => records<Transcript>(d, RECORD_FILES.transcript).map((t) => t.lines);
    expect(lines(spread)).toEqual(lines(dir));
    expect(records<EpisodePublished>(spread, RECORD_FILES.episode).map((e) => e.published_at)).not.toEqual(
      [...episodes.values()].map((e) => e.published_at),
    );
  });

  it('comes out before the as-of time, more in the last 7 days than the 7 before, the newest 20 minutes old', () => {
    const ages = [...episodes.keys()].map(age);
    expect(Math.min(...ages)).toBe(20 * 60_000);
    expect(ages.every((a) => a > 0)).toBe(true);
    const last7 = ages.filter((a) => a < 7 * DAY).length;
    const previous7 = ages.filter((a) => a >= 7 * DAY && a < 14 * DAY).length;
    expect(last7).toBeGreaterThan(previous7);
    // None is about to leave a default window (7, 14, 30 days): answers hold for 6 hours.
    const edges = [7, 14, 30].map((d) => d * DAY);
    expect(ages.filter((a) => edges.some((edge) => a > edge - 6 * 3_600_000 && a <= edge))).toEqual([]);
    for (const t of records<Transcript>(dir, RECORD_FILES.transcript)) {
      expect(t.transcribed_at).toBeLessThanOrEqual(AS_OF);
    }
  });

  it('mentions its most-mentioned entities in the last 7 days, and some in the last hour', () => {
    const perEpisode = JSON.parse(
      `[${fs.readFileSync(path.join(dir, GROUND_TRUTH_FILES.episodeEntities), 'utf8').trim().split('\n').join(',')}]`,
    ) as { episode_id: string; entities: EntityRelevanceTruth[] }[];
    const lines30 = new Map<string, number>();
    const lines7 = new Map<string, number>();
    const lastHour = new Set<string>();
    for (const { episode_id, entities } of perEpisode) {
      const a = age(episode_id);
      for (const e of entities) {
        if (e.non_ad_lines === 0) continue;
        if (a < 30 * DAY) lines30.set(e.entity_id, (lines30.get(e.entity_id) ?? 0) + e.non_ad_lines);
        if (a < 7 * DAY) lines7.set(e.entity_id, (lines7.get(e.entity_id) ?? 0) + e.non_ad_lines);
        if (a < 3_600_000) lastHour.add(e.entity_id);
      }
    }
    // The ten most mentioned over `/v1/entities`' default 30 days, each in the mention reads' 7.
    const top = [...lines30].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).slice(0, 10);
    expect(top).toHaveLength(10);
    expect(top.filter(([id]) => !lines7.has(id))).toEqual([]);
    expect(lastHour.size).toBeGreaterThan(0);
  });

  it('has sponsors trending with the defaults: on 3 podcasts or more in 7 days, more ads than the 7 before', () => {
    const recent = new Map<string, { podcasts: Set<string>; ads: number }>();
    const before = new Map<string, number>();
    for (const r of records<AdReads>(dir, RECORD_FILES.ad_reads)) {
      const a = age(r.episode_id);
      for (const ad of r.ad_reads) {
        if (ad.is_network_promo) continue;
        const sponsor = ad.company_id ?? ad.sponsor_name;
        if (a < 7 * DAY) {
          const s = recent.get(sponsor) ?? { podcasts: new Set(), ads: 0 };
          s.podcasts.add(episodes.get(r.episode_id)!.podcast_id);
          s.ads++;
          recent.set(sponsor, s);
        } else if (a < 14 * DAY) before.set(sponsor, (before.get(sponsor) ?? 0) + 1);
      }
    }
    const trending = [...recent].filter(([id, s]) => s.podcasts.size >= 3 && s.ads > (before.get(id) ?? 0));
    expect(trending.length).toBeGreaterThanOrEqual(3);
  });

  it('charts up to the day before the as-of day', () => {
    const captured = records<ChartSnapshotRow>(dir, RECORD_FILES.chart_row).map((r) => r.captured_at);
    const startOfDay = Math.floor(AS_OF / DAY) * DAY;
    expect(Math.max(...captured)).toBe(startOfDay - DAY + 6 * 3_600_000);
  });
});
