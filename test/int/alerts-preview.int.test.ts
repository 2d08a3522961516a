import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../processors/alerts/model.ts';
import { analyticsBiasReader } from '../../processors/alerts/reads/bias.ts';
import { migrateAnalytics } from '../../projections/analytics/analytics-store.ts';
import { ChdbAnalyticsStore } from '../../projections/analytics/chdb-analytics-store.ts';
import { TABLES } from '../../projections/analytics/tables.ts';
import { CATALOG, seedCatalog } from '../support/alerts.ts';
import { testApi } from '../support/api.ts';
import { tempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

type Api = Awaited<ReturnType<typeof testApi>>;

/** Previews count in the analytics store (chdb here); bias for match reads comes from it too. */
describe('alert previews', () => {
  const tmp = tempDir('earshot-preview-');
  let analytics: ChdbAnalyticsStore;
  let api: Api;
  const H = { 'x-api-key': '' };
  const now = Date.now();

  async function preview(body: Record<string, unknown>) {
    const res = await api.app.inject({
      method: 'POST',
      url: `/v1/projects/${api.projects.business}/alerts/preview`,
      headers: H,
      payload: body,
    });
    expect(res.statusCode, res.body).toBe(202);
    const started = res.json() as { preview_id: string; status: string };
    let done: Record<string, unknown> = {};
    await waitFor(async () => {
      const r = await api.app.inject({
        method: 'GET',
        url: `/v1/alerts/preview/${started.preview_id}`,
        headers: H,
      });
      done = r.json() as Record<string, unknown>;
      return done.status === 'COMPLETE' || done.status === 'FAILED';
    });
    return { started, done };
  }

  beforeAll(async () => {
    analytics = new ChdbAnalyticsStore(path.join(tmp.dir, 'chdb'));
    await migrateAnalytics(analytics);
    const ep = (id: string, ageDays: number, lang: string | null, podcast: string) => [
      id,
      `${id}-slug`,
      podcast,
      id,
      null,
      now - ageDays * DAY_MS,
      null,
      null,
      null,
      lang,
      '[]',
      now,
      1,
    ];
    await analytics.insert(
      'episodes',
      [...TABLES.episodes],
      [
        ep('ep_1', 1, 'en-US', CATALOG.popular.id),
        ep('ep_2', 2, 'fr-FR', CATALOG.small.id),
        ep('ep_3', 3, null, CATALOG.small.id),
        ep('ep_old', 9, 'en-US', CATALOG.popular.id),
      ],
    );
    await analytics.insert(
      'podcasts',
      ['id', 'slug', 'title', 'publisher_id', 'language', 'lang', 'category_slugs', 'version'],
      [
        [CATALOG.popular.id, CATALOG.popular.slug, 'p', '', 'en-US', 'en', [], 1],
        [CATALOG.small.id, CATALOG.small.slug, 's', '', 'fr-FR', 'fr', [], 1],
      ],
    );
    const mention = (ep: string, ageDays: number, lang: string, entity: string) => [
      entity,
      now - ageDays * DAY_MS,
      ep,
      CATALOG.popular.id,
      lang,
      2,
      0,
      'on_target',
      2,
      ['x'],
      1,
      0,
    ];
    await analytics.insert(
      'entity_episodes',
      [
        'entity_id',
        'published_at',
        'episode_id',
        'podcast_id',
        'lang',
        'lines',
        'ad_lines',
        'relevance',
        'mention_count',
        'variants',
        'version',
        'is_deleted',
      ],
      [
        mention('ep_1', 1, 'en-US', CATALOG.apple.id),
        mention('ep_2', 2, 'fr-FR', CATALOG.apple.id),
        mention('ep_2', 2, 'fr-FR', CATALOG.fed.id),
        mention('ep_old', 9, 'en-US', CATALOG.apple.id),
      ],
    );
    const speaker = (ep: string, ageDays: number, podcast: string, role: string) => [
      ep,
      'S2',
      podcast,
      now - ageDays * DAY_MS,
      CATALOG.marcus.id,
      'Marcus',
      role,
      5,
      '',
      null,
      1,
      1,
      0,
    ];
    await analytics.insert(
      'episode_speakers',
      [
        'episode_id',
        'label',
        'podcast_id',
        'published_at',
        'person_id',
        'name',
        'role',
        'line_count',
        'capacity',
        'in_field',
        'confidence',
        'version',
        'is_deleted',
      ],
      [
        speaker('ep_1', 1, CATALOG.popular.id, 'GUEST'),
        speaker('ep_2', 2, CATALOG.small.id, 'HOST'),
        speaker('ep_3', 3, CATALOG.small.id, 'PANELIST'),
      ],
    );
    await analytics.insert(
      'bias_evaluations',
      [
        'podcast_id',
        'evaluated_at',
        'id',
        'political_context',
        'is_political',
        'political_topic_percentage',
        'lean_score',
        'bias',
        'episodes_analyzed',
        'model',
        'version',
      ],
      [[CATALOG.popular.id, now - DAY_MS, 'bias_1', 'US', 1, 40, -0.4, 'LEAN_LEFT', 12, 'm', 1]],
    );
    api = await testApi({}, undefined, { analytics });
    H['x-api-key'] = api.keys.business!;
    await seedCatalog(api.state);
  });
  afterAll(async () => {
    await api?.close();
    await analytics?.close();
    tmp.remove();
  });

  it('counts the episodes of the previous 7 days, narrowed by languages', async () => {
    const apple = [{ entity_type: 'COMPANY', entity_id: 'apple' }];
    const all = await preview({ entities: apple });
    expect(all.started.status).toBe('PENDING');
    expect(all.done).toMatchObject({ status: 'COMPLETE', estimated_match_count: 2, error: null });
    const fr = await preview({ entities: apple, filters: { languages: ['fr'] } });
    expect(fr.done.estimated_match_count).toBe(1);
    expect(fr.started.preview_id).not.toBe(all.started.preview_id);
    const both = await preview({
      entities: [...apple, { entity_type: 'KNOWLEDGE_GRAPH_ENTITY', entity_id: CATALOG.fed.id }],
    });
    expect(both.done.estimated_match_count).toBe(2);
  });

  it('returns the same id and the cached count when only relevance or source_popularity change', async () => {
    const apple = [{ entity_type: 'COMPANY', entity_id: 'apple' }];
    const first = await preview({ entities: apple, filters: { languages: ['en'] } });
    const again = await preview({
      entities: apple,
      filters: { languages: ['en'], relevance: 'RELEVANT', source_popularity: 'POPULAR' },
    });
    expect(again.started.preview_id).toBe(first.started.preview_id);
    expect(again.started.status).toBe('COMPLETE');
    expect(again.done.estimated_match_count).toBe(1);
  });

  it('counts speaker previews by role and language (episode or podcast language)', async () => {
    const marcus = [{ entity_type: 'PERSON', entity_id: 'marcus-oyelaran' }];
    const guests = await preview({ kind: 'PODCAST_SPEAKER', entities: marcus });
    expect(guests.done.estimated_match_count).toBe(2); // ep_1 guest, ep_3 panelist; ep_2 hosted
    const withHosts = await preview({
      kind: 'PODCAST_SPEAKER',
      entities: marcus,
      filters: { speaker_roles: ['HOST', 'GUEST', 'PANELIST'], languages: ['fr'] },
    });
    expect(withHosts.done.estimated_match_count).toBe(2); // ep_2 (fr-FR) and ep_3 (podcast fr-FR)
  });

  it('keeps previews to their project', async () => {
    const mine = await preview({ entities: [{ entity_type: 'COMPANY', entity_id: 'apple' }] });
    const res = await api.app.inject({
      method: 'GET',
      url: `/v1/alerts/preview/${mine.started.preview_id}`,
      headers: { 'x-api-key': api.keys.enterprise! },
    });
    expect(res.statusCode).toBe(404);
  });

  it('reads the newest bias evaluation of podcasts', async () => {
    const bias = await analyticsBiasReader(analytics).biasOf([CATALOG.popular.id, CATALOG.small.id]);
    expect(bias.get(CATALOG.popular.id)).toEqual({
      bias: 'LEAN_LEFT',
      lean_score: -0.4,
      is_political: true,
      political_context: 'US',
      evaluated_at: new Date(now - DAY_MS).toISOString(),
    });
    expect(bias.has(CATALOG.small.id)).toBe(false);
  });
});
