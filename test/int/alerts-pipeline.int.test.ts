import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../infra/logger.ts';
import { AlertIndex } from '../../processors/alerts/matching/alert-index.ts';
import { DAY_MS, periodStart } from '../../processors/alerts/model.ts';
import { AlertsRuntime } from '../../processors/alerts/runtime.ts';
import { ConsumerRunner } from '../../processors/consumer-runner.ts';
import { catalogProjector } from '../../projections/catalog/catalog-projector.ts';
import { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { CATALOG, episodeEvents, seedCatalog, verifiedEmail } from '../support/alerts.ts';
import { testApi } from '../support/api.ts';
import { embeddedBackbone } from '../support/backbone.ts';
import { tempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

type Api = Awaited<ReturnType<typeof testApi>>;
type Backbone = Awaited<ReturnType<typeof embeddedBackbone>>;

/**
 * The alert pipeline end to end on embedded engines: episode events → matcher → alerts.matched
 * → planner → deliveries.requested → projections → the REST reads.
 */
describe.each([
  { facts: 'LMDB under the data dir', factsInStateStore: false },
  { facts: 'the state store (several matcher processes)', factsInStateStore: true },
])('alert pipeline, matcher facts in $facts', ({ factsInStateStore }) => {
  let api: Api;
  let app: FastifyInstance;
  let bb: Backbone;
  let rt: AlertsRuntime;
  let runners: ConsumerRunner<unknown, unknown>[];
  let hook: string;
  let hookUrl: string;
  const tmp = tempDir('earshot-alerts-');
  const H = { 'x-api-key': '' };
  const project = () => api.projects.business!;

  async function createAlert(body: Record<string, unknown>): Promise<{ id: string }> {
    const res = await app.inject({
      method: 'POST',
      url: `/v1/projects/${project()}/alerts`,
      headers: H,
      payload: {
        title: 'Test alert',
        entities: [{ entity_type: 'COMPANY', entity_id: 'apple' }],
        notifications: [{ type: 'WEBHOOK', webhook_connection_id: hook }],
        ...body,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const alert = res.json() as { id: string };
    // The matcher knows the alert (and has backfilled it) once its index has refreshed.
    await waitFor(async () => rt.index.get(alert.id) !== undefined || body.is_active === false, {
      what: 'alert indexed',
    });
    await rt.index.refresh();
    return alert;
  }

  async function ingest(
    events: ReturnType<typeof episodeEvents>,
    order = ['episode', 'transcript', 'clips', 'speakers', 'mentions'],
  ) {
    const id = events.episode.id;
    const send = {
      episode: () => bb.producer.send(TOPICS.episodes, [{ key: id, value: events.episode }]),
      transcript: () => bb.producer.send(TOPICS.transcripts, [{ key: id, value: events.transcript }]),
      clips: () => bb.producer.send(TOPICS.clips, [{ key: id, value: events.clips }]),
      speakers: () => bb.producer.send(TOPICS.speakers, [{ key: id, value: events.speakers }]),
      mentions: () => bb.producer.send(TOPICS.mentions, [{ key: id, value: events.mentions }]),
    } as Record<string, () => Promise<unknown>>;
    for (const kind of order) await send[kind]!();
  }

  const matchRows = (alertId: string) =>
    api.state.query<{ id: string; episode_id: string; is_backfilled: boolean }>(
      'SELECT id, episode_id, is_backfilled FROM alert_matches WHERE alert_id = $1 ORDER BY episode_id',
      [alertId],
    );
  /** Matches of episodes processed after the alert was created (earlier tests' episodes are backfilled). */
  const liveRows = async (alertId: string) => (await matchRows(alertId)).filter((m) => !m.is_backfilled);
  const deliveryRows = (alertId: string) =>
    api.state.query<{ id: string; match_ids: string[]; cadence: string; window_start: Date | null }>(
      'SELECT id, match_ids, cadence, window_start FROM deliveries WHERE alert_id = $1 ORDER BY requested_at',
      [alertId],
    );
  const waitMatches = (alertId: string, n: number) =>
    waitFor(async () => (await matchRows(alertId)).length >= n, { what: `${n} matches of ${alertId}` });
  const waitDeliveries = (alertId: string, n: number) =>
    waitFor(async () => (await deliveryRows(alertId)).length >= n, { what: `${n} deliveries of ${alertId}` });
  /** Everything produced so far has gone through every step. */
  const settle = () =>
    waitFor(
      async () => {
        for (const r of runners) if ((await r.lag()).some((p) => p.lag > 0)) return false;
        return true;
      },
      { what: 'pipeline caught up' },
    );
  const get = async (url: string) => {
    const res = await app.inject({ method: 'GET', url, headers: H });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Record<string, unknown>;
  };

  beforeAll(async () => {
    api = await testApi();
    app = api.app;
    H['x-api-key'] = api.keys.business!;
    await seedCatalog(api.state);
    hookUrl = 'https://hooks.acme.example/earshot';
    hook = (await api.delivery.webhooks.create({ projectId: project(), url: hookUrl })).connection.id;
    bb = await embeddedBackbone();
    rt = new AlertsRuntime({
      state: api.state,
      catalog: new CatalogReader(api.state),
      producer: bb.producer,
      logger: silentLogger(),
      dir: tmp.dir,
      factsInStateStore,
      indexPollMs: 50,
      speakerGraceMs: 300,
    });
    const catalog = { role: 'projectors', definition: catalogProjector(api.state) };
    runners = [...rt.steps(), catalog].map(
      (s) =>
        new ConsumerRunner(s.definition, bb.log, bb.producer, silentLogger(), {
          maxBatchItems: 500,
          maxBatchWaitMs: 20,
        }),
    );
    for (const r of runners) await r.start();
    for (const t of rt.tasks()) if (t.name === 'alert-matcher') await t.start();
  });
  afterAll(async () => {
    for (const r of runners ?? []) await r.stop();
    for (const t of rt?.tasks() ?? []) await t.stop();
    await bb?.close();
    await api?.close();
    tmp.remove();
  });

  it('matches a mention, plans a realtime delivery and serves matches, deliveries and the landing', async () => {
    const alert = await createAlert({ title: 'Apple realtime' });
    await ingest(
      episodeEvents({
        id: 'ep_rt1',
        podcastId: CATALOG.popular.id,
        publishedAt: Date.now() - 3_600_000,
        mentioned: [{ entityId: CATALOG.apple.id, relevance: 'on_target', lines: [3, 5] }],
        guest: { personId: CATALOG.marcus.id },
        hostId: CATALOG.dana.id,
      }),
    );
    await waitDeliveries(alert.id, 1);
    await waitMatches(alert.id, 1);
    const [match] = await matchRows(alert.id);
    expect(await matchRows(alert.id)).toEqual([
      expect.objectContaining({ episode_id: 'ep_rt1', is_backfilled: false }),
    ]);

    const list = await get(`/v1/alerts/${alert.id}/matches`);
    expect(list.has_more).toBe(false);
    const item = (list.data as Record<string, unknown>[])[0]!;
    expect(item).not.toHaveProperty('episode');
    expect(item).toMatchObject({
      id: match!.id,
      alert_id: alert.id,
      monitor_id: alert.id,
      kind: 'ENTITY_MENTION',
      entity_type: 'COMPANY',
      entity_id: CATALOG.apple.id,
      source_type: 'PODCAST_EPISODE',
      source_id: 'ep_rt1',
      mention_count: 2,
      mention_variants: ['Apple'],
      relevance: 'on_target',
      is_backfilled: false,
    });
    expect(item).not.toHaveProperty('roles');
    // Lines 2-6 around the mentions on lines 3 and 5, merged into one window; names from speakers.
    const windows = item.windows as {
      lines: { speaker: string; role: string; is_mention: boolean }[];
      clip_url: string;
    }[];
    expect(windows).toHaveLength(1);
    expect(windows[0]!.lines.map((l) => l.is_mention)).toEqual([false, true, false, true, false]);
    expect(windows[0]!.lines[1]).toMatchObject({ speaker: 'Marcus Oyelaran', role: 'GUEST' });
    expect(windows[0]!.lines[0]).toMatchObject({ speaker: 'Dana Whitfield', role: 'HOST' });
    expect(windows[0]!.clip_url).toBe('https://cdn.example/ep_rt1.mp3#t=6,36');

    const single = await get(`/v1/alerts/matches/${match!.id}`);
    expect(single.episode).toEqual({
      title: 'Episode ep_rt1',
      slug: 'ep_rt1-slug',
      published_at: expect.any(String),
      podcast_id: CATALOG.popular.id,
      podcast_title: CATALOG.popular.title,
      podcast_slug: CATALOG.popular.slug,
      podcast_image_url: 'https://img.example/p.jpg',
      podcast_popularity_badge: 'Very Popular',
      podcast_popularity: 97.4,
      podcast_bias: null,
    });
    const [delivery] = await deliveryRows(alert.id);
    expect(delivery!.match_ids).toEqual([match!.id]);
    expect(single.deliveries).toEqual([
      { id: delivery!.id, cadence: 'REALTIME', created_at: expect.any(String) },
    ]);

    const deliveries = await get(`/v1/alerts/${alert.id}/deliveries`);
    expect(deliveries.data).toEqual([
      {
        id: delivery!.id,
        alert_id: alert.id,
        cadence: 'REALTIME',
        status: 'PENDING',
        window_start: null,
        window_end: null,
        match_count: 1,
        channels: [
          {
            type: 'WEBHOOK',
            webhook_connection_id: hook,
            status: 'PENDING',
            attempts: 0,
            status_code: null,
            error: null,
            last_attempt_at: null,
          },
        ],
        created_at: expect.any(String),
        url: `http://127.0.0.1:8080/dashboard/deliveries/${delivery!.id}`,
      },
    ]);

    // A sender reports the outcome: the webhook channel (reported by its url) is delivered.
    await bb.producer.send(TOPICS.deliveriesDelivered, [
      {
        key: delivery!.id,
        value: {
          delivery_id: delivery!.id,
          alert_id: alert.id,
          channel_type: 'WEBHOOK',
          destination: hookUrl,
          attempts: 2,
          delivered_at: Date.now(),
        },
      },
    ]);
    await settle();
    const landing = await get(`/v1/alerts/deliveries/${delivery!.id}`);
    expect(landing).toMatchObject({ id: delivery!.id, status: 'DELIVERED', matches_has_more: false });
    expect((landing.channels as { status: string; attempts: number }[])[0]).toMatchObject({
      status: 'DELIVERED',
      attempts: 2,
    });
    expect(landing).not.toHaveProperty('matches_cursor');
    expect((landing.matches as Record<string, unknown>[])[0]).toEqual(single);
  });

  it('sends one delivery to every channel of the alert, each channel requested on its own', async () => {
    await verifiedEmail(api.state, api.org.id, 'desk@acme.example');
    const alert = await createAlert({
      title: 'Two channels',
      entities: [{ entity_type: 'PERSON', entity_id: CATALOG.dana.id }],
      notifications: [
        { type: 'WEBHOOK', webhook_connection_id: hook },
        { type: 'EMAIL', email: 'desk@acme.example' },
      ],
    });
    await ingest(
      episodeEvents({
        id: 'ep_two_channels',
        podcastId: CATALOG.popular.id,
        publishedAt: Date.now(),
        mentioned: [{ entityId: CATALOG.dana.id }],
      }),
    );
    await waitDeliveries(alert.id, 1);
    await settle();
    const [delivery] = (await get(`/v1/alerts/${alert.id}/deliveries`)).data as {
      id: string;
      channels: { type: string }[];
    }[];
    expect(delivery!.channels.map((c) => c.type).sort()).toEqual(['EMAIL', 'WEBHOOK']);
    const requested = await api.state.query<{ channel_key: string }>(
      'SELECT channel_key FROM delivery_channels WHERE delivery_id = $1 ORDER BY channel_key',
      [delivery!.id],
    );
    expect(requested.map((r) => r.channel_key)).toEqual(['EMAIL:desk@acme.example', `WEBHOOK:${hook}`]);
  });

  it('handles the episode topics arriving in any order, and matches once', async () => {
    const alert = await createAlert({ title: 'Apple any order' });
    await ingest(
      episodeEvents({
        id: 'ep_order',
        podcastId: CATALOG.popular.id,
        publishedAt: Date.now(),
        mentioned: [{ entityId: CATALOG.apple.id }],
      }),
      ['mentions', 'clips', 'speakers', 'transcript', 'episode'],
    );
    await waitMatches(alert.id, 1);
    // The same events again (a replay upstream) add nothing.
    await ingest(
      episodeEvents({
        id: 'ep_order',
        podcastId: CATALOG.popular.id,
        publishedAt: Date.now(),
        mentioned: [{ entityId: CATALOG.apple.id }],
      }),
    );
    await settle();
    expect((await liveRows(alert.id)).map((m) => m.episode_id)).toEqual(['ep_order']);
    expect(await deliveryRows(alert.id)).toHaveLength(1);
  });

  it('waits a moment for speakers, then matches without them', async () => {
    const alert = await createAlert({ title: 'Apple, no speakers' });
    const events = episodeEvents({
      id: 'ep_nospk',
      podcastId: CATALOG.popular.id,
      publishedAt: Date.now(),
      mentioned: [{ entityId: CATALOG.apple.id }],
    });
    await ingest(events, ['episode', 'transcript', 'mentions']);
    await waitFor(async () => (await liveRows(alert.id)).length === 1, { what: 'match without speakers' });
    const [m] = await liveRows(alert.id);
    expect(m!.episode_id).toBe('ep_nospk');
    const doc = await get(`/v1/alerts/matches/${m!.id}`);
    const lines = (doc.windows as { lines: { speaker: string }[] }[])[0]!.lines;
    expect(lines.map((l) => l.speaker)).toContain('SPEAKER_2');
  });

  it('backfills the previous 7 days on creation, never delivering backfilled matches', async () => {
    const now = Date.now();
    for (const [id, age] of [
      ['ep_bf_recent', 3 * DAY_MS],
      ['ep_bf_old', 10 * DAY_MS],
    ] as const) {
      await ingest(
        episodeEvents({
          id,
          podcastId: CATALOG.popular.id,
          publishedAt: now - age,
          mentioned: [{ entityId: CATALOG.fed.id }],
        }),
      );
    }
    await settle();
    const alert = await createAlert({
      title: 'Fed watch',
      entities: [{ entity_type: 'KNOWLEDGE_GRAPH_ENTITY', entity_id: 'federal-reserve' }],
    });
    await waitMatches(alert.id, 1);
    await settle();
    expect(await matchRows(alert.id)).toEqual([
      expect.objectContaining({ episode_id: 'ep_bf_recent', is_backfilled: true }),
    ]);
    expect(await deliveryRows(alert.id)).toEqual([]);
    // A new episode after creation is an ordinary match and is delivered.
    await ingest(
      episodeEvents({
        id: 'ep_bf_new',
        podcastId: CATALOG.popular.id,
        publishedAt: now,
        mentioned: [{ entityId: CATALOG.fed.id }],
      }),
    );
    // The delivery and the match row are written by different consumers, in either order.
    await waitDeliveries(alert.id, 1);
    await waitMatches(alert.id, 2);
    expect((await matchRows(alert.id)).map((m) => [m.episode_id, m.is_backfilled])).toEqual([
      ['ep_bf_new', false],
      ['ep_bf_recent', true],
    ]);
  });

  it('matches archive episodes loaded after creation as history: listed, never delivered', async () => {
    const alert = await createAlert({
      title: 'Archive watch',
      entities: [{ entity_type: 'PERSON', entity_id: CATALOG.marcus.id }],
    });
    const daily = await createAlert({
      title: 'Archive watch, daily',
      delivery_cadence: 'DAILY',
      entities: [{ entity_type: 'PERSON', entity_id: CATALOG.marcus.id }],
    });
    const now = Date.now();
    // A bulk load of old episodes after the alert exists: the alert is live, the episodes are not new.
    for (const [id, age] of [
      ['ep_arch_old', 90 * DAY_MS],
      ['ep_arch_week', 3 * DAY_MS],
    ] as const) {
      await ingest(
        episodeEvents({
          id,
          podcastId: CATALOG.popular.id,
          publishedAt: now - age,
          mentioned: [{ entityId: CATALOG.marcus.id }],
        }),
      );
    }
    await waitMatches(alert.id, 2);
    await waitMatches(daily.id, 2);
    await settle();
    expect((await matchRows(alert.id)).map((m) => [m.episode_id, m.is_backfilled])).toEqual([
      ['ep_arch_old', true],
      ['ep_arch_week', true],
    ]);
    expect(await deliveryRows(alert.id)).toEqual([]);
    expect(rt.matcher.stats.archived).toBeGreaterThanOrEqual(4);
    // Listed with the matches, and readable one by one, as history.
    const list = await get(`/v1/alerts/${alert.id}/matches`);
    expect(
      (list.data as { source_id: string; is_backfilled: boolean }[]).map((m) => m.is_backfilled),
    ).toEqual([true, true]);
    // Not bundled in a digest either: the day closes with nothing to send for the daily alert.
    const dayEnd = periodStart('DAILY', now) + DAY_MS;
    await new AlertsRuntime({ ...rt.deps, clock: () => dayEnd + 61_000 }).scheduler.tick();
    expect(await deliveryRows(daily.id)).toEqual([]);
    // An episode that just aired, loaded the same way, is delivered.
    await ingest(
      episodeEvents({
        id: 'ep_arch_fresh',
        podcastId: CATALOG.popular.id,
        publishedAt: now - 60 * 60_000,
        mentioned: [{ entityId: CATALOG.marcus.id }],
      }),
    );
    await waitDeliveries(alert.id, 1);
    await waitMatches(alert.id, 3);
    expect(await liveRows(alert.id)).toEqual([expect.objectContaining({ episode_id: 'ep_arch_fresh' })]);
  });

  it('gates on languages, and matches speakers in the allowed roles only', async () => {
    const fr = await createAlert({ title: 'Apple in French', filters: { languages: ['fr'] } });
    const guest = await createAlert({
      title: 'Marcus as a guest',
      kind: 'PODCAST_SPEAKER',
      entities: [{ entity_type: 'PERSON', entity_id: CATALOG.marcus.id }],
    });
    const host = await createAlert({
      title: 'Marcus hosting',
      kind: 'PODCAST_SPEAKER',
      entities: [{ entity_type: 'PERSON', entity_id: CATALOG.marcus.id }],
      filters: { speaker_roles: ['HOST'] },
    });
    const now = Date.now();
    await ingest(
      episodeEvents({
        id: 'ep_lang_en',
        podcastId: CATALOG.popular.id,
        publishedAt: now,
        mentioned: [{ entityId: CATALOG.apple.id }],
        guest: { personId: CATALOG.marcus.id },
      }),
    );
    await ingest(
      episodeEvents({
        id: 'ep_lang_fr',
        podcastId: CATALOG.small.id,
        publishedAt: now,
        language: 'fr-FR',
        mentioned: [{ entityId: CATALOG.apple.id }],
        guest: { personId: CATALOG.marcus.id, role: 'HOST' },
      }),
    );
    await waitFor(async () => (await liveRows(fr.id)).length > 0, { what: 'French match' });
    await settle();
    expect((await liveRows(fr.id)).map((m) => m.episode_id)).toEqual(['ep_lang_fr']);
    expect((await liveRows(guest.id)).map((m) => m.episode_id)).toEqual(['ep_lang_en']);
    expect((await liveRows(host.id)).map((m) => m.episode_id)).toEqual(['ep_lang_fr']);
    // The French alert's backfill skipped every English episode of the earlier tests.
    expect((await matchRows(fr.id)).map((m) => m.episode_id)).toEqual(['ep_lang_fr']);
    const [g] = await liveRows(guest.id);
    const doc = await get(`/v1/alerts/matches/${g!.id}`);
    expect(doc).toMatchObject({
      kind: 'PODCAST_SPEAKER',
      entity_type: 'PERSON',
      roles: ['GUEST'],
      mention_count: 4,
      relevance: 'on_target',
    });
    expect(doc).not.toHaveProperty('mention_variants');
    expect((doc.windows as Record<string, unknown>[])[0]).toMatchObject({
      clip_id: 'clip_ep_lang_en_1',
      clip_title: 'Why Apple barely moved',
      clip_type: 'INSIGHTFUL',
      clip_url: 'https://cdn.example/ep_lang_en.mp3#t=24,30',
    });
  });

  it('applies relevance and source_popularity at read and delivery time alike', async () => {
    const relevant = await createAlert({ title: 'Relevant only', filters: { relevance: 'RELEVANT' } });
    const popular = await createAlert({ title: 'Popular only', filters: { source_popularity: 'POPULAR' } });
    const now = Date.now();
    await ingest(
      episodeEvents({
        id: 'ep_f_small_ontarget',
        podcastId: CATALOG.small.id,
        publishedAt: now,
        mentioned: [{ entityId: CATALOG.apple.id, relevance: 'on_target' }],
      }),
    );
    await ingest(
      episodeEvents({
        id: 'ep_f_pop_incidental',
        podcastId: CATALOG.popular.id,
        publishedAt: now,
        mentioned: [{ entityId: CATALOG.apple.id, relevance: 'incidental' }],
      }),
    );
    await waitFor(async () => (await liveRows(relevant.id)).length === 2, { what: 'relevance matches' });
    await waitFor(async () => (await liveRows(popular.id)).length === 2, { what: 'popularity matches' });
    await settle();
    const listed = async (id: string) =>
      ((await get(`/v1/alerts/${id}/matches?limit=100`)).data as { source_id: string }[])
        .map((m) => m.source_id)
        .filter((e) => e.startsWith('ep_f_'));
    const delivered = async (id: string) => {
      const rows = await deliveryRows(id);
      const eps = await api.state.query<{ episode_id: string }>(
        'SELECT episode_id FROM alert_matches WHERE id = ANY($1::text[])',
        [rows.flatMap((r) => r.match_ids)],
      );
      return eps.map((e) => e.episode_id);
    };
    expect(await listed(relevant.id)).toEqual(['ep_f_small_ontarget']);
    // Paging one at a time yields the same filtered list, newest first.
    const paged: string[] = [];
    let cursor = '';
    for (;;) {
      const page = await get(`/v1/alerts/${relevant.id}/matches?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      paged.push(...(page.data as { id: string }[]).map((m) => m.id));
      if (!page.has_more) break;
      cursor = String(page.cursor);
    }
    const all = (await get(`/v1/alerts/${relevant.id}/matches?limit=100`)).data as {
      id: string;
      detected_at: string;
    }[];
    expect(paged).toEqual(all.map((m) => m.id));
    expect(all.map((m) => m.detected_at)).toEqual([...all.map((m) => m.detected_at)].sort().reverse());
    expect(await delivered(relevant.id)).toEqual(['ep_f_small_ontarget']);
    expect(await listed(popular.id)).toEqual(['ep_f_pop_incidental']);
    expect(await delivered(popular.id)).toEqual(['ep_f_pop_incidental']);
  });

  it('does not match for a paused alert, and resumes matching new episodes', async () => {
    const alert = await createAlert({ title: 'Paused', is_active: false });
    await ingest(
      episodeEvents({
        id: 'ep_paused',
        podcastId: CATALOG.popular.id,
        publishedAt: Date.now(),
        mentioned: [{ entityId: CATALOG.apple.id }],
      }),
    );
    await settle();
    expect(await matchRows(alert.id)).toEqual([]);
    const res = await app.inject({
      method: 'PATCH',
      url: `/v1/alerts/${alert.id}`,
      headers: H,
      payload: { is_active: true },
    });
    expect(res.statusCode).toBe(200);
    await waitFor(async () => rt.index.get(alert.id) !== undefined, { what: 'resumed alert indexed' });
    // Matched on resumption by the sweep, as history: it was processed while paused.
    await waitFor(async () => (await matchRows(alert.id)).some((m) => m.episode_id === 'ep_paused'), {
      what: 'sweep on resumption',
    });
    expect(await matchRows(alert.id)).toContainEqual(
      expect.objectContaining({ episode_id: 'ep_paused', is_backfilled: true }),
    );
    expect(await liveRows(alert.id)).toEqual([]);
    await ingest(
      episodeEvents({
        id: 'ep_resumed',
        podcastId: CATALOG.popular.id,
        publishedAt: Date.now(),
        mentioned: [{ entityId: CATALOG.apple.id }],
      }),
    );
    await waitDeliveries(alert.id, 1);
  });

  it('bundles DAILY and WEEKLY digests per window, once, across scheduler restarts', async () => {
    const daily = await createAlert({ title: 'Daily Apple', delivery_cadence: 'DAILY' });
    const weekly = await createAlert({ title: 'Weekly Apple', delivery_cadence: 'WEEKLY' });
    const now = Date.now();
    for (const id of ['ep_dg_1', 'ep_dg_2']) {
      await ingest(
        episodeEvents({
          id,
          podcastId: CATALOG.popular.id,
          publishedAt: now,
          mentioned: [{ entityId: CATALOG.apple.id }],
        }),
      );
    }
    await waitFor(async () => (await liveRows(daily.id)).length === 2, { what: 'daily matches' });
    await waitFor(async () => (await liveRows(weekly.id)).length === 2, { what: 'weekly matches' });
    await settle();
    expect(await deliveryRows(daily.id)).toEqual([]);

    const scheduler = (at: number) =>
      new AlertsRuntime({ ...rt.deps, clock: () => at, digestGraceMs: 60_000 }).scheduler;
    const dayEnd = periodStart('DAILY', now) + DAY_MS;
    const weekEnd = periodStart('WEEKLY', now) + 7 * DAY_MS;
    // On a Sunday the day and the week close together: both digests fall due at once.
    const weekClosesToday = weekEnd === dayEnd;
    // Before the window closes (plus grace) nothing is due.
    expect(await scheduler(dayEnd + 30_000).tick()).toBe(0);
    expect(await scheduler(dayEnd + 61_000).tick()).toBe(weekClosesToday ? 2 : 1);
    // A second scheduler (a restart) finds the window done.
    expect(await scheduler(dayEnd + 120_000).tick()).toBe(0);
    await waitDeliveries(daily.id, 1);
    const [digest] = await deliveryRows(daily.id);
    expect(digest).toMatchObject({ cadence: 'DAILY', window_start: new Date(dayEnd - DAY_MS) });
    expect(digest!.match_ids).toHaveLength(2);
    const landing = await get(`/v1/alerts/deliveries/${digest!.id}?limit=1`);
    expect(landing).toMatchObject({ cadence: 'DAILY', match_count: 2, matches_has_more: true });
    const next = await get(`/v1/alerts/deliveries/${digest!.id}?limit=1&cursor=${landing.matches_cursor}`);
    expect(next.matches_has_more).toBe(false);
    expect((next.matches as { id: string }[])[0]!.id).not.toBe((landing.matches as { id: string }[])[0]!.id);

    expect(new Date(weekEnd).getUTCDay()).toBe(1);
    expect(await scheduler(weekEnd + 61_000).tick()).toBe(weekClosesToday ? 0 : 1);
    await waitDeliveries(weekly.id, 1);
    // Days without matches send nothing: the daily marker moved through them silently.
    expect(await scheduler(weekEnd + 61_000).tick()).toBe(0);
    expect(await deliveryRows(daily.id)).toHaveLength(1);
  });

  it('picks up a write that commits out of version order, as another process’s late transaction would', async () => {
    const index = new AlertIndex(api.state, { planCheckMs: 60_000 });
    await index.ready();
    const insert = (id: string, version?: number) =>
      api.state.query(
        `INSERT INTO alerts (id, project_id, title, kind, delivery_cadence, entities, notifications, activated_at, version)
         VALUES ($1, $2, $1, 'ENTITY_MENTION', 'REALTIME', $3::jsonb, $4::jsonb, now(),
                 COALESCE($5::int8, nextval('alerts_version_seq')))`,
        [
          id,
          project(),
          JSON.stringify([{ entity_type: 'COMPANY', entity_id: CATALOG.apple.id }]),
          JSON.stringify([{ type: 'WEBHOOK', webhook_connection_id: hook }]),
          version ?? null,
        ],
      );
    // Many versions go by and the index reads a recent one...
    await api.state.query("SELECT setval('alerts_version_seq', nextval('alerts_version_seq') + 1000)");
    await insert('alrt_recent');
    await index.refresh();
    expect(index.get('alrt_recent')).toBeDefined();
    // ...then a transaction that took its version long before commits.
    await insert('alrt_late', 2);
    await index.refresh();
    expect(index.get('alrt_late')?.alert.version).toBe(2);
    expect(index.mentionAlerts(CATALOG.apple.id)?.some((e) => e.alert.id === 'alrt_late')).toBe(true);
    // Nothing is read twice once every writer has finished.
    expect(await index.refresh()).toEqual([]);
    // A write is seen even when it leaves the version as it was.
    await api.state.query(`UPDATE alerts SET entities = $1::jsonb WHERE id = 'alrt_late'`, [
      JSON.stringify([{ entity_type: 'COMPANY', entity_id: 'ent_other' }]),
    ]);
    expect((await index.refresh()).map((a) => a.id)).toEqual(['alrt_late']);
    expect(index.mentionAlerts('ent_other')?.map((e) => e.alert.id)).toEqual(['alrt_late']);
    await api.state.query(`UPDATE alerts SET deleted_at = now() WHERE id IN ('alrt_recent', 'alrt_late')`);
    const changed = await index.refresh();
    expect(changed.map((a) => a.id).sort()).toEqual(['alrt_late', 'alrt_recent']);
    expect(index.get('alrt_late')).toBeUndefined();
  });

  it('drops the alerts of a project whose plan loses alerts, and takes them back', async () => {
    const index = new AlertIndex(api.state, { planCheckMs: 0 });
    await index.ready();
    const mine = () => [...index.all()].filter((e) => e.alert.project_id === project()).length;
    const before = mine();
    expect(before).toBeGreaterThan(0);
    await api.accounts.setPlan(project(), 'starter');
    await index.refresh();
    expect(mine()).toBe(0);
    await api.accounts.setPlan(project(), 'business');
    await index.refresh();
    expect(mine()).toBe(before);
  });
});
