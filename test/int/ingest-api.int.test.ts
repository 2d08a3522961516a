import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIngestApp } from '../../api/ingest-app.ts';
import { silentLogger } from '../../infra/logger.ts';
import { BatchIngest } from '../../ingest/loader/batch-ingest.ts';
import { IngestState } from '../../ingest/loader/ingest-state.ts';
import { type CatalogItem, catalogProjector } from '../../projections/catalog/catalog-projector.ts';
import { IngestTokens } from '../../projections/state/ingest-tokens.ts';
import { migrate } from '../../projections/state/migrations.ts';
import type { StateStore } from '../../projections/state/state-store.ts';
import { loadExample } from '../../schemas/avro-schemas.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { catalogSlugHolders, testApi } from '../support/api.ts';
import { embeddedBackbone } from '../support/backbone.ts';
import { memoryStateStore } from '../support/state.ts';
import { countTopic, readTopic } from '../support/topics.ts';

const json = (name: Parameters<typeof loadExample>[0]) => JSON.parse(JSON.stringify(loadExample(name)));
const URL = '/v1/ingest/batches';

describe('HTTP batch ingest', () => {
  let bb: Awaited<ReturnType<typeof embeddedBackbone>>;
  let state: IngestState;
  let batches: BatchIngest;
  let api: Awaited<ReturnType<typeof testApi>>;
  let tokens: IngestTokens;
  let catalogState: StateStore;
  let token: string;
  const auth = () => ({ authorization: `Bearer ${token}` });
  const counts = () =>
    [TOPICS.publishers, TOPICS.podcasts, TOPICS.episodes, TOPICS.transcripts, TOPICS.segments].map((t) =>
      countTopic(bb.log, t),
    );

  beforeAll(async () => {
    bb = await embeddedBackbone();
    state = new IngestState(path.join(bb.dir, 'ingest-state'));
    batches = new BatchIngest({ producer: bb.producer, log: bb.log, state, logger: silentLogger() });
    api = await testApi({ ingestBodyLimitBytes: 256 * 1024 }, undefined, {
      ingest: (s) => {
        tokens = new IngestTokens(s);
        catalogState = s;
        return { batches, state, tokens, slugHolders: catalogSlugHolders(s) };
      },
    });
    token = (await tokens.create({ name: 'partner feed' })).token;
  });
  afterAll(async () => {
    await api.close();
    await state.close();
    await bb.close();
  });

  function catalogBatch(suffix: string) {
    const podcast = json('Podcast');
    podcast.id = `pod_${suffix}`;
    podcast.slug = `pod-${suffix}`;
    const episode = json('EpisodePublished');
    episode.id = `ep_${suffix}`;
    episode.podcast_id = podcast.id;
    const transcript = json('Transcript');
    transcript.episode_id = episode.id;
    return [
      { type: 'publisher', data: json('Publisher') },
      { type: 'podcast', data: podcast },
      { type: 'episode', data: episode },
      { type: 'transcript', data: transcript },
    ];
  }

  it('publishes a valid batch whose records refer to each other, and a retried batch publishes nothing', async () => {
    const before = counts();
    const records = catalogBatch('a');
    const res = await api.app.inject({ method: 'POST', url: URL, headers: auth(), payload: { records } });
    expect(res.statusCode).toBe(202);
    const lines = (records[3]!.data as { lines: unknown[] }).lines.length;
    expect(res.json()).toEqual({
      received: 4,
      published: 4,
      duplicates: 0,
      transcript_lines: lines,
      by_type: { publisher: 1, podcast: 1, episode: 1, transcript: 1 },
    });
    expect(counts().map((n, i) => n - before[i]!)).toEqual([1, 1, 1, 1, 0]);
    const transcripts = await readTopic<{ episode_id: string }>(bb.log, bb.codec, TOPICS.transcripts);
    expect(transcripts.map((t) => t.value.episode_id)).toContain('ep_a');
    expect(state.knownEpisode('ep_a')).toBe(true);

    const again = await api.app.inject({ method: 'POST', url: URL, headers: auth(), payload: { records } });
    expect(again.statusCode).toBe(202);
    expect(again.json()).toMatchObject({ received: 4, published: 0, duplicates: 4 });
    expect(counts().map((n, i) => n - before[i]!)).toEqual([1, 1, 1, 1, 0]);
  });

  it('refuses the whole batch when any record is invalid, listing every invalid record and field', async () => {
    const before = counts();
    const [publisher, podcast, episode, transcript] = catalogBatch('b');
    delete (episode!.data as Record<string, unknown>).title; // missing required field
    const orphan = json('Segments');
    orphan.episode_id = 'ep_nobody'; // unknown episode
    const badType = json('Podcast');
    badType.id = 'pod_bad';
    badType.popularity = 'high'; // wrong type
    const res = await api.app.inject({
      method: 'POST',
      url: URL,
      headers: auth(),
      payload: {
        records: [
          publisher,
          podcast,
          episode,
          transcript,
          { type: 'segments', data: orphan },
          { type: 'podcast', data: badType },
          { type: 'sponsor', data: {} },
        ],
      },
    });
    expect(res.statusCode).toBe(422);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const doc = res.json();
    expect(doc.error_code).toBe('validation_error');
    const locations = (doc.errors as { location: string }[]).map((e) => e.location);
    expect(locations).toContain('body.records[2].data.title');
    expect(locations).toContain('body.records[4].data.episode_id');
    expect(locations).toContain('body.records[5].data.popularity');
    expect(locations).toContain('body.records[6].type');
    // The transcript refers to an episode that is itself invalid, so it is refused too.
    expect(locations).toContain('body.records[3].data.episode_id');
    expect(doc.detail).toMatch(/nothing was ingested/);
    expect(counts()).toEqual(before);
    expect(state.knownPodcast('pod_b')).toBe(false);
  });

  it('takes NDJSON bodies, and names the line that is not JSON', async () => {
    const records = catalogBatch('c');
    const ndjson = records.map((r) => JSON.stringify(r)).join('\n');
    const ok = await api.app.inject({
      method: 'POST',
      url: URL,
      headers: { ...auth(), 'content-type': 'application/x-ndjson' },
      payload: `${ndjson}\n`,
    });
    expect(ok.statusCode).toBe(202);
    expect(ok.json()).toMatchObject({ published: 3, duplicates: 1 }); // the publisher came in batch a
    const before = counts();
    const bad = await api.app.inject({
      method: 'POST',
      url: URL,
      headers: { ...auth(), 'content-type': 'application/x-ndjson' },
      payload: `${JSON.stringify(catalogBatch('d')[1])}\n{"type": "episode", "data": {\n`,
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors).toEqual([
      expect.objectContaining({
        location: 'body.records[1]',
        message: expect.stringMatching(/^line 2: malformed JSON/),
      }),
    ]);
    expect(counts()).toEqual(before);
  });

  it('refuses text no store accepts (NUL, lone surrogates) in JSON and NDJSON batches, naming the field', async () => {
    const before = counts();
    const [, podcast, episode, transcript] = catalogBatch('nul');
    (podcast!.data as Record<string, unknown>).title = 'Nul \u0000 title';
    (transcript!.data as { lines: { text: string }[] }).lines[1]!.text = 'half \ud83d a pair';
    const res = await api.app.inject({
      method: 'POST',
      url: URL,
      headers: auth(),
      payload: { records: [podcast, episode, transcript] },
    });
    expect(res.statusCode).toBe(422);
    expect((res.json().errors as { location: string }[]).map((e) => e.location)).toEqual([
      'body.records[0].data.title',
      'body.records[2].data.lines[1].text',
    ]);
    // NDJSON: the route parses the lines itself; the ingest validator names the same fields.
    const ndjson = await api.app.inject({
      method: 'POST',
      url: URL,
      headers: { ...auth(), 'content-type': 'application/x-ndjson' },
      payload: `${[podcast, episode, transcript].map((r) => JSON.stringify(r)).join('\n')}\n`,
    });
    expect(ndjson.statusCode).toBe(422);
    expect(ndjson.json().errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          location: 'body.records[0].data.title',
          message: 'must not contain the NUL character (U+0000)',
        }),
        expect.objectContaining({
          location: 'body.records[2].data.lines[1].text',
          message: 'must be valid Unicode (a lone UTF-16 surrogate is not)',
        }),
      ]),
    );
    expect(counts()).toEqual(before);
  });

  it('refuses an episode or podcast whose slug another id holds, in the catalog or in the batch', async () => {
    // Batch "s" ingested, and the catalog as its projection leaves it (its own sink writes it).
    const records = catalogBatch('s');
    const first = await api.app.inject({ method: 'POST', url: URL, headers: auth(), payload: { records } });
    expect(first.statusCode).toBe(202);
    const [publisher, podcast, episode] = records;
    await catalogProjector(catalogState).sink.write(
      [publisher, podcast, episode].map((r) => ({ kind: r!.type, value: r!.data }) as unknown as CatalogItem),
    );
    const before = counts();
    const copy: Record<string, unknown> = { ...(episode!.data as object), id: 'ep_s2', guid: 'another-guid' };
    const twin = json('Podcast');
    twin.id = 'pod_t1';
    twin.slug = 'pod-twin';
    const twin2 = { ...twin, id: 'pod_t2' };
    const res = await api.app.inject({
      method: 'POST',
      url: URL,
      headers: auth(),
      payload: {
        records: [
          { type: 'episode', data: copy },
          { type: 'podcast', data: twin },
          { type: 'podcast', data: twin2 },
        ],
      },
    });
    expect(res.statusCode).toBe(422);
    const doc = res.json();
    expect(doc.error_code).toBe('validation_error');
    expect(doc.errors).toEqual([
      {
        location: 'body.records[0].data.slug',
        message: `is held by episode ep_s; choose another slug`,
      },
      { location: 'body.records[2].data.slug', message: 'is held by podcast pod_t1; choose another slug' },
    ]);
    expect(counts()).toEqual(before);
    expect(state.knownEpisode('ep_s2')).toBe(false);

    // The holder itself, and the copy under a slug of its own, are taken.
    const fixed = await api.app.inject({
      method: 'POST',
      url: URL,
      headers: auth(),
      payload: {
        records: [
          { type: 'episode', data: { ...copy, slug: `${String(copy['slug'])}-2` } },
          { type: 'podcast', data: twin },
        ],
      },
    });
    expect(fixed.statusCode).toBe(202);
    expect(fixed.json()).toMatchObject({ published: 2, duplicates: 0 });
  });

  it('needs an ingest token: none, an API key, an unknown or a revoked token are 401', async () => {
    const payload = { records: catalogBatch('e') };
    const none = await api.app.inject({ method: 'POST', url: URL, payload });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toMatchObject({ error_code: 'authentication_required' });
    const apiKey = await api.app.inject({
      method: 'POST',
      url: URL,
      headers: { authorization: `Bearer ${api.keys.enterprise}` },
      payload,
    });
    expect(apiKey.statusCode).toBe(401);
    expect(apiKey.json()).toMatchObject({
      error_code: 'invalid_ingest_token',
      errors: [{ location: 'header.authorization' }],
    });
    const unknown = await api.app.inject({
      method: 'POST',
      url: URL,
      headers: { 'x-ingest-token': `eit_${'x'.repeat(40)}` },
      payload,
    });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().errors[0].location).toBe('header.x-ingest-token');

    const { token: shortLived, record } = await tokens.create({ name: 'revoked soon' });
    await tokens.revoke(record.id);
    const revoked = await api.app.inject({
      method: 'POST',
      url: URL,
      headers: { authorization: `Bearer ${shortLived}` },
      payload,
    });
    expect(revoked.statusCode).toBe(401);
    expect(state.knownEpisode('ep_e')).toBe(false);

    // An ingest token is not an API key either.
    const read = await api.app.inject({
      method: 'GET',
      url: `/v1/organizations/${api.org.id}/projects`,
      headers: auth(),
    });
    expect(read.statusCode).toBe(401);
    expect(read.json().error_code).toBe('invalid_api_key');
  });

  it('answers 413, 415 and 422 for oversized, non-JSON and empty batches', async () => {
    const big = await api.app.inject({
      method: 'POST',
      url: URL,
      headers: auth(),
      payload: { records: [{ type: 'publisher', data: { id: 'x', name: 'y'.repeat(300 * 1024) } }] },
    });
    expect(big.statusCode).toBe(413);
    expect(big.json().error_code).toBe('payload_too_large');
    const xml = await api.app.inject({
      method: 'POST',
      url: URL,
      headers: { ...auth(), 'content-type': 'application/xml' },
      payload: '<records/>',
    });
    expect(xml.statusCode).toBe(415);
    const empty = await api.app.inject({
      method: 'POST',
      url: URL,
      headers: auth(),
      payload: { records: [] },
    });
    expect(empty.statusCode).toBe(422);
    expect(empty.json().errors[0]).toMatchObject({ location: 'body.records', value: 0 });
    const shapeless = await api.app.inject({
      method: 'POST',
      url: URL,
      headers: auth(),
      payload: { rows: [] },
    });
    expect(shapeless.statusCode).toBe(422);
    expect(shapeless.json().errors[0].location).toBe('body.records');
  });

  it('is documented in the OpenAPI document with its own security scheme', async () => {
    const doc = (await api.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.components.securitySchemes.IngestToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/v1/ingest/batches'].post.security).toEqual([{ IngestToken: [] }]);
  });
});

describe('HTTP batch ingest on an ingest instance (no api role)', () => {
  let bb: Awaited<ReturnType<typeof embeddedBackbone>>;
  let store: ReturnType<typeof memoryStateStore>;
  let state: IngestState;
  let app: FastifyInstance;
  let token: string;

  beforeAll(async () => {
    bb = await embeddedBackbone();
    store = memoryStateStore();
    await migrate(store);
    state = new IngestState(path.join(bb.dir, 'ingest-state'));
    const tokens = new IngestTokens(store);
    token = (await tokens.create({ name: 'partner feed' })).token;
    app = await buildIngestApp({
      logger: silentLogger(),
      readiness: { evaluate: async () => ({ ready: true, checks: {}, info: {} }) },
      services: {
        ingest: {
          batches: new BatchIngest({ producer: bb.producer, log: bb.log, state, logger: silentLogger() }),
          state,
          tokens,
          slugHolders: catalogSlugHolders(store),
        },
        state: store,
      },
      settings: { docsUrl: 'http://127.0.0.1:8080', bodyLimitBytes: 1024 * 1024, failedAuthPerMinute: 4 },
    });
  });
  afterAll(async () => {
    await app.close();
    await state.close();
    await store.close();
    await bb.close();
  });

  it('serves batch ingest and the probes, and nothing of the API', async () => {
    const podcast = json('Podcast');
    podcast.id = 'pod_ingest_role';
    podcast.slug = 'pod-ingest-role';
    const res = await app.inject({
      method: 'POST',
      url: URL,
      headers: { authorization: `Bearer ${token}` },
      payload: { records: [{ type: 'podcast', data: podcast }] },
    });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ received: 1, published: 1, duplicates: 0 });
    expect(state.knownPodcast('pod_ingest_role')).toBe(true);
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    const api = await app.inject({ method: 'GET', url: '/v1/podcasts', headers: { 'x-api-key': 'esk_x' } });
    expect(api.statusCode).toBe(404);
    expect(api.headers['content-type']).toContain('application/problem+json');
    // An invalid batch is a problem document naming the field; nothing is published.
    const bad = await app.inject({
      method: 'POST',
      url: URL,
      headers: { authorization: `Bearer ${token}` },
      payload: { records: [{ type: 'podcast', data: { ...podcast, id: 'pod_other', popularity: 'high' } }] },
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toMatchObject({ error_code: 'validation_error' });
    expect(bad.json().errors[0].location).toContain('popularity');
  });

  it('locks out guessed ingest tokens (counted in the state store)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await app.inject({
        method: 'POST',
        url: URL,
        headers: { authorization: `Bearer eit_${String(i).padStart(6, '0')}${'g'.repeat(30)}` },
        payload: { records: [{ type: 'podcast', data: {} }] },
        remoteAddress: '198.51.100.77',
      });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
    const rows = await store.query<{ n: number }>('SELECT count(*)::int8 AS n FROM attempt_counters');
    expect(Number(rows[0]!.n)).toBeGreaterThan(0);
  });
});
