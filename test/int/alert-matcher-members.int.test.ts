import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../infra/logger.ts';
import { AlertsRuntime } from '../../processors/alerts/runtime.ts';
import { ConsumerRunner } from '../../processors/consumer-runner.ts';
import { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { CATALOG, episodeEvents, seedCatalog } from '../support/alerts.ts';
import { testApi } from '../support/api.ts';
import { embeddedBackbone } from '../support/backbone.ts';
import { tempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

/**
 * The alert matcher as several members of its group, facts in the state store: an episode's
 * facts arrive in three parts while its partition moves from member to member (a member leaves,
 * another joins), and every episode is still matched, once.
 */
describe('alert matcher members', () => {
  let api: Awaited<ReturnType<typeof testApi>>;
  let bb: Awaited<ReturnType<typeof embeddedBackbone>>;
  const tmp = tempDir('earshot-matcher-members-');
  const members: { rt: AlertsRuntime; matcher: ConsumerRunner<unknown, unknown> }[] = [];
  let projector: ConsumerRunner<unknown, unknown>;
  const N = 30;

  async function member(name: string) {
    const rt = new AlertsRuntime({
      state: api.state,
      catalog: new CatalogReader(api.state),
      producer: bb.producer,
      logger: silentLogger(),
      dir: `${tmp.dir}/${name}`,
      // EARSHOT_TEST_MATCHER_LMDB=1 shows the failure this guards against: each member's own
      // LMDB store, facts left behind when partitions move, episodes never matched.
      factsInStateStore: process.env.EARSHOT_TEST_MATCHER_LMDB !== '1',
      indexPollMs: 50,
      speakerGraceMs: 60_000,
    });
    const [matcherStep] = rt.steps();
    const matcher = new ConsumerRunner(matcherStep!.definition, bb.log, bb.producer, silentLogger(), {
      maxBatchItems: 50,
      maxBatchWaitMs: 20,
    });
    await matcher.start();
    await rt.tasks()[0]!.start();
    const m = { rt, matcher };
    members.push(m);
    return m;
  }

  async function leave(m: (typeof members)[number]) {
    await m.matcher.stop();
    await m.rt.tasks()[0]!.stop();
    members.splice(members.indexOf(m), 1);
  }

  const settle = () =>
    waitFor(
      async () => {
        for (const r of [projector, ...members.map((m) => m.matcher)]) {
          if ((await r.lag()).some((p) => p.lag > 0)) return false;
        }
        return true;
      },
      { what: 'matcher caught up', timeoutMs: 20_000 },
    );

  const balanced = () =>
    waitFor(
      () => {
        const held = members.map((m) => new Set(m.matcher.assignment().map((p) => p.partition)).size);
        return held.every((n) => n > 0) && held.reduce((a, b) => a + b, 0) === 6;
      },
      { what: 'partitions split between the members', timeoutMs: 20_000 },
    );

  beforeAll(async () => {
    api = await testApi();
    await seedCatalog(api.state);
    bb = await embeddedBackbone();
  });
  afterAll(async () => {
    for (const m of [...members]) await leave(m);
    await projector?.stop();
    await bb?.close();
    await api?.close();
    tmp.remove();
  });

  it('matches every episode once while its partition moves between members', async () => {
    const hook = (
      await api.delivery.webhooks.create({
        projectId: api.projects.business!,
        url: 'https://hooks.acme.example/m',
      })
    ).connection.id;
    const res = await api.app.inject({
      method: 'POST',
      url: `/v1/projects/${api.projects.business!}/alerts`,
      headers: { 'x-api-key': api.keys.business! },
      payload: {
        title: 'Apple, several matchers',
        entities: [{ entity_type: 'COMPANY', entity_id: CATALOG.apple.id }],
        notifications: [{ type: 'WEBHOOK', webhook_connection_id: hook }],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const alertId = (res.json() as { id: string }).id;

    const a = await member('a');
    const b = await member('b');
    projector = new ConsumerRunner(a.rt.steps()[2]!.definition, bb.log, bb.producer, silentLogger(), {
      maxBatchItems: 200,
      maxBatchWaitMs: 20,
    });
    await projector.start();
    for (const m of members)
      await waitFor(() => m.rt.index.get(alertId) !== undefined, { what: 'alert indexed' });
    await balanced();

    const events = Array.from({ length: N }, (_, i) =>
      episodeEvents({
        id: `ep_members_${i}`,
        podcastId: CATALOG.popular.id,
        publishedAt: Date.now() - 60_000,
        mentioned: [{ entityId: CATALOG.apple.id }],
      }),
    );
    const send = async (kind: 'episode' | 'transcript' | 'clips' | 'speakers' | 'mentions') => {
      const topic = {
        episode: TOPICS.episodes,
        transcript: TOPICS.transcripts,
        clips: TOPICS.clips,
        speakers: TOPICS.speakers,
        mentions: TOPICS.mentions,
      }[kind];
      await bb.producer.send(
        topic,
        events.map((e) => ({ key: e.episode.id, value: e[kind] as never })),
      );
    };

    // Part one reaches both members.
    await send('episode');
    await send('transcript');
    await settle();
    // Member b leaves: its partitions move to a, which reads what b recorded.
    await leave(b);
    await balanced();
    await send('clips');
    await send('speakers');
    await settle();
    // A new member joins: partitions move again.
    await member('c');
    await balanced();
    await send('mentions');
    await settle();

    await waitFor(
      async () =>
        (await api.state.query('SELECT 1 FROM alert_matches WHERE alert_id = $1', [alertId])).length >= N,
      { what: `${N} matches`, timeoutMs: 20_000 },
    );
    const rows = await api.state.query<{ episode_id: string; n: string }>(
      'SELECT episode_id, count(*) AS n FROM alert_matches WHERE alert_id = $1 GROUP BY episode_id',
      [alertId],
    );
    expect(rows).toHaveLength(N);
    expect(rows.every((r) => Number(r.n) === 1)).toBe(true);
    const topic = (await bb.log.listTopics()).find((t) => t.name === TOPICS.alertMatches.name)!;
    const produced = topic.partitions.reduce((sum, p) => sum + p.end - p.earliest, 0);
    console.log(
      `alert matcher members: ${N} episodes matched once each; alerts.matched holds ${produced} records`,
    );
  });
});
