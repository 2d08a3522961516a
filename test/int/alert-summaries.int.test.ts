import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../infra/logger.ts';
import { AlertsRuntime } from '../../processors/alerts/runtime.ts';
import { ApiKey, ChatSummarizer } from '../../processors/alerts/summaries/chat-summarizer.ts';
import { extractiveSummary } from '../../processors/alerts/summaries/extractive.ts';
import { matchSummarizer } from '../../processors/alerts/summaries/summarizer.ts';
import { ConsumerRunner } from '../../processors/consumer-runner.ts';
import { catalogProjector } from '../../projections/catalog/catalog-projector.ts';
import { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import type { AlertMatched } from '../../schemas/generated/index.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { CATALOG, episodeEvents, seedCatalog } from '../support/alerts.ts';
import { testApi } from '../support/api.ts';
import { embeddedBackbone } from '../support/backbone.ts';
import { type ReceivedRequest, startReceiver } from '../support/receiver.ts';
import { tempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

type Api = Awaited<ReturnType<typeof testApi>>;
type Backbone = Awaited<ReturnType<typeof embeddedBackbone>>;
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

const API_KEY = 'sk-summary-test-0123456789';
const MODEL_ANSWER = 'Guest Marcus Oyelaran says Apple shares barely moved after the Fed decision.';

/**
 * `llm_summary` end to end on embedded engines: matcher → alerts.matched → the summarizer,
 * which asks an OpenAI-compatible chat server (a real HTTP server on 127.0.0.1, let through the
 * outbound guard by the test kit's loopback allowlist) or, when it fails for good, extracts the
 * summary from the windows; the REST reads and a later webhook carry it.
 */
describe('alert match summaries', () => {
  let api: Api;
  let app: FastifyInstance;
  let bb: Backbone;
  let rt: AlertsRuntime;
  let llm: Receiver;
  let hooks: Receiver;
  let hook: string;
  let runners: ConsumerRunner<unknown, unknown>[];
  const tmp = tempDir('earshot-summaries-');
  const H = { 'x-api-key': '' };
  const project = () => api.projects.business!;
  const chatRequests = () => llm.received.filter((r) => r.url === '/v1/chat/completions');

  const answer = (content: string) => () => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    }),
  });

  async function createAlert(title: string): Promise<string> {
    const res = await app.inject({
      method: 'POST',
      url: `/v1/projects/${project()}/alerts`,
      headers: H,
      payload: {
        title,
        entities: [{ entity_type: 'COMPANY', entity_id: 'apple' }],
        notifications: [{ type: 'WEBHOOK', webhook_connection_id: hook }],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const { id } = res.json() as { id: string };
    await waitFor(async () => rt.index.get(id) !== undefined, { what: 'alert indexed' });
    return id;
  }

  async function ingest(events: ReturnType<typeof episodeEvents>) {
    const key = events.episode.id;
    await bb.producer.send(TOPICS.episodes, [{ key, value: events.episode }]);
    await bb.producer.send(TOPICS.transcripts, [{ key, value: events.transcript }]);
    await bb.producer.send(TOPICS.clips, [{ key, value: events.clips }]);
    await bb.producer.send(TOPICS.speakers, [{ key, value: events.speakers }]);
    await bb.producer.send(TOPICS.mentions, [{ key, value: events.mentions }]);
  }

  const episode = (id: string, publishedAt = Date.now() - 3_600_000) =>
    episodeEvents({
      id,
      podcastId: CATALOG.popular.id,
      publishedAt,
      mentioned: [{ entityId: CATALOG.apple.id, relevance: 'on_target', lines: [3, 5] }],
      guest: { personId: CATALOG.marcus.id },
      hostId: CATALOG.dana.id,
    });

  /**
   * The match of an alert on an episode, once projected, and its summary once written (a new
   * alert also backfills the earlier tests' episodes).
   */
  async function summarized(alertId: string, episodeId: string) {
    let row: { id: string; document: AlertMatched; summary: string; source: string } | undefined;
    await waitFor(
      async () => {
        [row] = await api.state.query<NonNullable<typeof row>>(
          `SELECT m.id, m.document, s.summary, s.source FROM alert_matches m
           JOIN alert_match_summaries s ON s.match_id = m.id WHERE m.alert_id = $1 AND m.episode_id = $2`,
          [alertId, episodeId],
        );
        return row !== undefined;
      },
      { what: `summary of the match of ${alertId} on ${episodeId}` },
    );
    return row!;
  }

  const get = async (url: string) => {
    const res = await app.inject({ method: 'GET', url, headers: H });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Record<string, unknown>;
  };

  beforeAll(async () => {
    llm = await startReceiver(answer(MODEL_ANSWER));
    hooks = await startReceiver(() => ({ status: 200 }));
    api = await testApi();
    app = api.app;
    H['x-api-key'] = api.keys.business!;
    await seedCatalog(api.state);
    hook = (await api.delivery.webhooks.create({ projectId: project(), url: `${hooks.url}/hook` })).connection
      .id;
    bb = await embeddedBackbone();
    rt = new AlertsRuntime({
      state: api.state,
      catalog: new CatalogReader(api.state),
      producer: bb.producer,
      logger: silentLogger(),
      dir: tmp.dir,
      indexPollMs: 50,
      speakerGraceMs: 300,
      // the kit's client: the outbound guard, loopback allowlisted in tests
      chat: new ChatSummarizer(api.delivery.http, {
        url: `${llm.url}/v1`,
        model: 'summary-model',
        apiKey: new ApiKey(API_KEY),
        timeoutMs: 2_000,
        backoffMs: 20,
      }),
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
    // a migrated PGlite, a backbone and eight consumers: over a minute on a loaded machine
  }, 180_000);
  afterAll(async () => {
    for (const r of runners ?? []) await r.stop();
    for (const t of rt?.tasks() ?? []) await t.stop();
    await bb?.close();
    await api?.close();
    await llm?.close();
    await hooks?.close();
    tmp.remove();
  });

  it('asks the chat model, and the REST reads and a later webhook carry its summary', async () => {
    llm.respond(answer(MODEL_ANSWER));
    const alertId = await createAlert('Apple with a model');
    const before = chatRequests().length;
    await ingest(episode('ep_llm1'));
    const row = await summarized(alertId, 'ep_llm1');
    expect(row).toMatchObject({ summary: MODEL_ANSWER, source: 'llm' });

    // What the server was sent: one chat completion for the match, with the bearer key, the
    // model, the watched name and the lines of the match's windows.
    const sent = chatRequests().slice(before);
    expect(sent).toHaveLength(1);
    const request = sent[0]! as ReceivedRequest & {
      body: { model: string; temperature: number; messages: { role: string; content: string }[] };
    };
    expect(request.method).toBe('POST');
    expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.body.model).toBe('summary-model');
    expect(request.body.temperature).toBe(0);
    expect(request.body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    const prompt = request.body.messages[1]!.content;
    expect(prompt).toContain('Watched names: Apple');
    for (const line of row.document.windows.flatMap((w) => w.lines)) {
      expect(prompt).toContain(`${line.speaker}${line.role ? ` (${line.role})` : ''}: ${line.text}`);
    }
    expect(prompt).toContain('[00:12] Marcus Oyelaran (GUEST): Thanks. Apple shares barely moved');

    const single = await get(`/v1/alerts/matches/${row.id}`);
    expect(single.llm_summary).toBe(MODEL_ANSWER);
    const list = await get(`/v1/alerts/${alertId}/matches`);
    expect((list.data as { llm_summary?: string }[])[0]!.llm_summary).toBe(MODEL_ANSWER);

    // A webhook sent after the summary exists (the test send carries the alert's newest match).
    const res = await app.inject({ method: 'POST', url: `/v1/alerts/${alertId}/test-webhook`, headers: H });
    expect(res.statusCode, res.body).toBe(200);
    const delivered = hooks.received.at(-1)!.body as { match: { id: string; llm_summary?: string } };
    expect(delivered.match).toMatchObject({ id: row.id, llm_summary: MODEL_ANSWER });
  });

  it('falls back to the extractive summary when the model keeps failing, after its retries', async () => {
    llm.respond(() => ({ status: 503, body: 'overloaded' }));
    const alertId = await createAlert('Apple, model down');
    const before = chatRequests().length;
    await ingest(episode('ep_llm2'));
    const row = await summarized(alertId, 'ep_llm2');
    expect(row.document.is_backfilled).toBe(false);
    // The earlier alert on Apple matches the episode too: three requests per live match.
    const matchesOf = () =>
      api.state.query<{ summarized: boolean; is_backfilled: boolean }>(
        `SELECT s.match_id IS NOT NULL AS summarized, m.is_backfilled FROM alert_matches m
         LEFT JOIN alert_match_summaries s ON s.match_id = m.id WHERE m.episode_id = 'ep_llm2'`,
      );
    await waitFor(async () => (await matchesOf()).every((m) => m.summarized), { what: 'every summary' });
    const live = (await matchesOf()).filter((m) => !m.is_backfilled).length;
    expect(live).toBe(2);
    expect(chatRequests().length - before).toBe(3 * live);
    expect(row.source).toBe('extractive');
    // The windows' sentences naming the variant (lines 3 and 5), said by the guest.
    expect(row.summary).toBe(
      'Marcus Oyelaran: Apple shares barely moved after the Fed decision. … Apple is a special case.',
    );
    expect(row.summary).toBe(extractiveSummary(row.document));
    const texts = row.document.windows.flatMap((w) => w.lines.map((l) => l.text));
    for (const part of row.summary.split(' … ').map((p) => p.replace(/^[^:]+: /, ''))) {
      expect(texts.some((t) => t.includes(part))).toBe(true);
    }
    expect((await get(`/v1/alerts/matches/${row.id}`)).llm_summary).toBe(row.summary);
  });

  it('falls back at once when the guard refuses the endpoint, and never calls a model for history', async () => {
    llm.respond(answer(MODEL_ANSWER));
    const before = chatRequests().length;
    // Backfilled (an episode published 5 days ago): extractive, no model call.
    const alertId = await createAlert('Apple history');
    await ingest(episode('ep_llm_old', Date.now() - 5 * 86_400_000));
    const old = await summarized(alertId, 'ep_llm_old');
    expect(old.document.is_backfilled).toBe(true);
    expect(old.source).toBe('extractive');
    expect(chatRequests().length).toBe(before);

    // A model at an address the guard refuses (not allowlisted): no request leaves, extractive.
    const refused = matchSummarizer({
      state: api.state,
      logger: silentLogger(),
      chat: new ChatSummarizer(api.delivery.http, { url: 'http://10.0.0.1:9/v1', timeoutMs: 500 }),
    });
    const fresh = { ...old.document, id: `${old.document.id}-copy`, is_backfilled: false };
    await refused.sink.write([fresh]);
    const [copy] = await api.state.query<{ summary: string; source: string }>(
      'SELECT summary, source FROM alert_match_summaries WHERE match_id = $1',
      [fresh.id],
    );
    expect(copy).toEqual({ summary: extractiveSummary(fresh), source: 'extractive' });
  });

  it('is idempotent on replay: a summarized match is skipped before any model call', async () => {
    llm.respond(answer('a different answer'));
    const [row] = await api.state.query<{ id: string; document: AlertMatched; summary: string }>(
      `SELECT m.id, m.document, s.summary FROM alert_matches m JOIN alert_match_summaries s ON s.match_id = m.id
       WHERE m.episode_id = 'ep_llm1'`,
    );
    const before = chatRequests().length;
    const replay = matchSummarizer({
      state: api.state,
      logger: silentLogger(),
      chat: new ChatSummarizer(api.delivery.http, { url: llm.url, timeoutMs: 2_000 }),
    });
    await replay.sink.write([row!.document, row!.document]);
    expect(chatRequests().length).toBe(before);
    const [after] = await api.state.query<{ summary: string }>(
      'SELECT summary FROM alert_match_summaries WHERE match_id = $1',
      [row!.id],
    );
    expect(after!.summary).toBe(MODEL_ANSWER);
  });
});
