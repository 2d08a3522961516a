import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchModel } from '../../projections/embeddings/model-fetch.ts';
import { demoPhraseCheck, vectorsUnderWay } from '../support/phrase-probes.ts';
import { TEST_MODELS_DIR } from '../support/search.ts';
import { spawnEarshot } from '../support/service-process.ts';
import { tempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';
import { firstQueries } from './scenarios/first-queries.ts';
import { type PoisonService, poisonRecords } from './scenarios/poison-records.ts';

/**
 * A first start without the demo: an empty data dir (nothing seeded, the service creates every
 * store), every role. The same service then takes the poison records
 * (`scenarios/poison-records.ts`), whose last test stops it on SIGTERM and starts it again.
 */
describe('earshot start on an empty data dir, without the demo', () => {
  const dir = tempDir();
  const service: PoisonService = { key: 'esk_e2e_poison_records_key_0123456789', dataDir: dir.dir };
  let started = 0;

  beforeAll(async () => {
    started = Date.now();
    service.svc = await spawnEarshot(
      ['start'],
      {
        EARSHOT_DATA_DIR: dir.dir,
        EARSHOT_DEMO: 'off',
        EARSHOT_BOOTSTRAP_API_KEY: service.key,
        CONSUMER_BATCH_WAIT_MS: '50',
      },
      { emptyDataDir: true },
    );
  });

  afterAll(async () => {
    await service.svc?.stop('SIGKILL');
    dir.remove();
  });

  it('comes up on an empty data dir and reports ready within 60 s (it stops cleanly on SIGTERM below)', async () => {
    const svc = service.svc!;
    await waitFor(
      async () => {
        const res = await fetch(`${svc.url}/readyz`).catch(() => undefined);
        return res?.status === 200;
      },
      { timeoutMs: 60_000, stepMs: 200, what: '/readyz 200' },
    );
    expect(Date.now() - started).toBeLessThan(60_000);
    const health = await fetch(`${svc.url}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = (await (await fetch(`${svc.url}/readyz`)).json()) as {
      checks: Record<string, { ok: boolean }>;
    };
    expect(ready.checks['event-log']?.ok).toBe(true);
    expect(ready.checks['schema-registry']?.ok).toBe(true);
  }, 90_000);

  poisonRecords(service);
});

describe('earshot start', () => {
  const tmp = tempDir();
  afterAll(() => tmp.remove());

  it('refuses a bad configuration with a message naming the variable', async () => {
    const svc = await spawnEarshot(
      ['start'],
      { EARSHOT_DATA_DIR: tmp.dir, KAFKA_BROKERS: 'a b', LOG_LEVEL: 'loud' },
      { emptyDataDir: true },
    );
    const exit = await svc.exited;
    expect(exit.code).toBe(2);
    expect(svc.output()).toContain('KAFKA_BROKERS');
    expect(svc.output()).toContain('LOG_LEVEL');
  }, 30_000);
});

/**
 * The first start a newcomer makes: a fresh data dir, the demo corpus, every role, the model in
 * the shared test cache. One service for the start's own checks and, once semantic search is
 * ready, the README's first queries (`scenarios/first-queries.ts`): the demo is loaded and
 * embedded once for both.
 */
describe('earshot start with the demo on a fresh data dir', () => {
  const dir = tempDir();
  const key = 'esk_e2e_demo_readiness_key_0123456789';
  let svc: Awaited<ReturnType<typeof spawnEarshot>>;
  let started = 0;

  beforeAll(async () => {
    await fetchModel({ modelsDir: TEST_MODELS_DIR }); // the model cache the tests share
    started = Date.now();
    svc = await spawnEarshot(
      ['start'],
      {
        EARSHOT_DATA_DIR: dir.dir,
        EARSHOT_DEMO: 'on',
        EARSHOT_MODELS_DIR: TEST_MODELS_DIR,
        EARSHOT_BOOTSTRAP_API_KEY: key,
      },
      { emptyDataDir: true },
    );
  }, 120_000);

  afterAll(async () => {
    if (svc) {
      const exit = await svc.stop('SIGTERM');
      expect(exit.code, svc.output().slice(-3000)).toBe(0);
    }
    dir.remove();
  }, 60_000);

  it('loads the demo corpus and is ready with keyword search first, every exact phrase found at once; semantic search follows', async () => {
    const get = (path: string) => fetch(`${svc.url}${path}`, { headers: { 'x-api-key': key } });
    type Ready = {
      status: string;
      checks: Record<string, { ok: boolean; detail?: { behind?: Record<string, number> } }>;
      info: {
        search: { keyword: boolean; semantic: boolean; semantic_state: string; vector_backlog?: object };
      };
    };
    {
      // The demo corpus counts in what the consumers must catch up with; vectors do not hold
      // readiness up (60 s is the target on an idle machine; the bound allows for a loaded one).
      let ready: Ready | undefined;
      await waitFor(
        async () => {
          const res = await fetch(`${svc.url}/readyz`).catch(() => undefined);
          if (res?.status !== 200) return false;
          ready = (await res.json()) as Ready;
          return true;
        },
        { timeoutMs: 90_000, stepMs: 250, what: '/readyz 200 with the demo corpus' },
      );
      const readyMs = Date.now() - started;
      // The moment /readyz is 200, while the vector filler has only begun: exact phrases from the
      // demo's lines (31 of them, "back to The" among them) each find every line that holds them;
      // and again while the filler writes vectors.
      const atReady = await demoPhraseCheck(svc.url, key, dir.dir);
      expect(atReady.missed).toEqual([]);
      expect(atReady.probes).toHaveLength(31);
      expect(atReady.probes[0]!.lines.length).toBeGreaterThanOrEqual(10);
      const filling = await vectorsUnderWay(svc.url);
      const later = await demoPhraseCheck(svc.url, key, dir.dir);
      expect(later.missed).toEqual([]);
      expect(readyMs).toBeLessThan(90_000);
      expect(ready!.checks['consumers']?.detail?.behind).toEqual({});
      expect(ready!.info.search.keyword).toBe(true);
      expect(['catching_up', 'ready']).toContain(ready!.info.search.semantic_state);

      // Keyword search answers over the whole demo corpus at once.
      const keyword = await get('/v1/podcasts/episodes/search?keyword_search=the&limit=5');
      expect(keyword.status).toBe(200);
      expect(((await keyword.json()) as { data: unknown[] }).data).toHaveLength(5);

      // Podcast search by name, on both paths.
      const [podcast] = (
        (await (await get('/v1/podcasts?limit=1')).json()) as { data: { id: string; title: string }[] }
      ).data;
      const name = encodeURIComponent(podcast!.title.split(' ')[0]!);
      const bySearch = await get(`/v1/podcasts/search?q=${name}`);
      const byList = await get(`/v1/podcasts?q=${name}`);
      expect(bySearch.status).toBe(200);
      expect(byList.status).toBe(200);
      const found = (await bySearch.json()) as { data: { id: string; match_quality: string }[] };
      expect(found.data.map((p) => p.id)).toContain(podcast!.id);
      expect(found.data[0]!.match_quality).toBeDefined();
      expect(await byList.json()).toEqual(found);
      const mixed = await get(`/v1/podcasts?q=${name}&language=en`);
      expect(mixed.status).toBe(422);
      expect(((await mixed.json()) as { errors: { location: string }[] }).errors[0]!.location).toBe(
        'query.language',
      );

      // Semantic search: 503 semantic_search_unavailable while the vectors catch up, then answers.
      const semantic = () => get('/v1/podcasts/episodes/search?semantic_search=interest%20rates&limit=3');
      const early = await semantic();
      if (early.status !== 200) {
        expect(early.status).toBe(503);
        expect(((await early.json()) as { error_code: string }).error_code).toBe(
          'semantic_search_unavailable',
        );
      }
      await waitFor(
        async () => {
          const info = ((await (await fetch(`${svc.url}/readyz`)).json()) as Ready).info.search;
          return info.semantic_state === 'ready';
        },
        { timeoutMs: 240_000, stepMs: 1000, what: 'semantic search ready' },
      );
      const late = await semantic();
      expect(late.status).toBe(200);
      const body = (await late.json()) as { data: { match: { source: string } }[] };
      expect(body.data).toHaveLength(3);
      expect(body.data[0]!.match.source).toBe('semantic');
      const info = ((await (await fetch(`${svc.url}/readyz`)).json()) as Ready).info.search;
      expect(info.vector_backlog).toMatchObject({ passages: 0, clips: 0 });
      process.stderr.write(
        `demo start: /readyz 200 after ${readyMs} ms (${atReady.probes.length} phrases, ` +
          `${atReady.probes.reduce((n, p) => n + p.lines.length, 0)} lines, all found in ${atReady.ms} ms; ` +
          `again with the vector backlog at ${JSON.stringify(filling.vector_backlog)}); ` +
          `semantic ready after ${Date.now() - started} ms\n`,
      );
    }
  }, 400_000);

  firstQueries(() => ({ svc, key, dataDir: dir.dir }));
});
