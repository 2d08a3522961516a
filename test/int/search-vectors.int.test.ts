import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../infra/logger.ts';
import { cosineSimilarity } from '../../projections/embeddings/embeddings-port.ts';
import { fetchModel } from '../../projections/embeddings/model-fetch.ts';
import { OnnxEmbeddings } from '../../projections/embeddings/onnx-embeddings.ts';
import {
  clearKeepingVectors,
  LanceDbSearchIndex,
} from '../../projections/search/lancedb/lancedb-search-index.ts';
import { passageVectorKey } from '../../projections/search/passages.ts';
import { SearchRuntime } from '../../projections/search/search-runtime.ts';
import { VectorFiller } from '../../projections/search/search-vector-filler.ts';
import { type Corpus, generateTestCorpus, produceCorpus } from '../support/corpus.ts';
import {
  openTestEmbeddings,
  projectIntoSearch,
  searchApi,
  TEST_MODEL,
  TEST_MODELS_DIR,
} from '../support/search.ts';
import { memoryStateStore } from '../support/state.ts';
import { tempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
type Json = any;

// Keyword first, vectors after: the projector indexes text without the model, the vector filler
// embeds the backlog in passes, and semantic search opens once that backlog is done.
const tmp = tempDir('earshot-search-vectors-');
let corpus: Corpus;
const state = memoryStateStore();
let runtime: SearchRuntime;
let api: Awaited<ReturnType<typeof searchApi>>;
let indexed = false;

beforeAll(async () => {
  corpus = await generateTestCorpus({
    dir: `${tmp.dir}/corpus`,
    podcasts: 2,
    episodesPerPodcast: 3,
    seed: 11,
    asOf: Date.UTC(2026, 5, 1),
  });
  await startSearch();
}, 600_000);

/** The search runtime and API over the index in `tmp`, and the corpus projected into it as text only. */
async function startSearch(): Promise<void> {
  runtime = new SearchRuntime({
    createIndex: (options) => new LanceDbSearchIndex(`${tmp.dir}/search`, options),
    async openEmbeddings() {
      const { query, indexing } = await openTestEmbeddings(1);
      return { query, indexing };
    },
  });
  await runtime.start({ query: true, indexing: true, fetchIfMissing: false, logger: silentLogger() });
  api = await searchApi({ index: runtime.searchIndex, state, embeddings: runtime.queryEmbeddings() });
  api.services.semanticUnavailableReason = () => runtime.unavailableReason();
  // Text only, as the projector writes it: no model involved.
  const projection = await projectIntoSearch({
    index: runtime.searchIndex,
    state,
    catalog: api.catalog,
    produce: (b) => produceCorpus(b.producer, corpus),
  });
  await projection.close();
}

afterAll(async () => {
  await api?.close();
  await runtime?.close();
  tmp.remove();
});

const lineCount = () => corpus.transcripts.reduce((n, t) => n + t.lines.length, 0);
const get = async (url: string) => {
  const res = await api.app.inject({ method: 'GET', url, headers: { 'x-api-key': api.key } });
  return { status: res.statusCode, body: res.json() as Json, headers: res.headers };
};

describe('search vectors', () => {
  it('indexes text without vectors: keyword search answers, every line is in the backlog', async () => {
    const stats = await runtime.searchIndex.stats();
    expect(stats.passagesWithVectors).toBe(0);
    expect((await runtime.searchIndex.vectorBacklog()).passages).toBe(stats.passages);
    const keyword = await get('/v1/podcasts/episodes/search?keyword_search=the&limit=3');
    expect(keyword.status).toBe(200);
    expect(keyword.body.data).toHaveLength(3);
  });

  it('embeds in passes that commit on their own; a stopped filler leaves the rest pending', async () => {
    const index = runtime.searchIndex;
    const before = await index.vectorBacklog();
    const filler = new VectorFiller({
      index: () => index,
      embeddings: () => runtime.indexingEmbeddings(),
      episodesPerPass: 1,
    });
    const pass = await filler.runOnce();
    expect(pass?.episodes).toBe(1);
    expect(pass?.written).toBeGreaterThan(0);
    const after = await index.vectorBacklog();
    expect(before.passages + before.clips - (after.passages + after.clips)).toBe(pass!.written);
    expect(after.embedded - before.embedded).toBe(pass!.written);
    expect(after.passages).toBeGreaterThan(0);
    // The filler is dropped here (as by a crash): nothing of its pass is lost, nothing else is done.
  }, 120_000);

  it('answers semantic requests 503 while catching up, then opens semantic search when the backlog is done', async () => {
    runtime.startVectors({
      fill: true,
      indexingCaughtUp: async () => indexed,
      logger: silentLogger(),
      pollMs: 20,
    });
    await waitFor(() => runtime.status().vector_backlog !== undefined, { timeoutMs: 10_000 });
    // Keyword search answers meanwhile, but readiness does not count it complete before the
    // indexing has caught up and the index has been refreshed.
    expect(runtime.status()).toMatchObject({
      keyword: false,
      semantic: false,
      semantic_state: 'catching_up',
    });
    expect(runtime.keywordReady).toBe(false);
    const early = await get('/v1/podcasts/episodes/search?semantic_search=interest%20rates');
    expect(early.status).toBe(503);
    expect(early.body.error_code).toBe('semantic_search_unavailable');
    expect(early.body.detail).toMatch(/still embedding .*\(\d+ passages and \d+ clips to go\)/);
    expect(early.headers['retry-after']).toBeDefined();
    const hybrid = await get('/v1/podcasts/episodes/search?semantic_search=rates&keyword_search=fed');
    expect(hybrid.status).toBe(503);
    expect((await get('/v1/podcasts/episodes/search?keyword_search=fed')).status).toBe(200);

    // The projector has caught up: the index is refreshed (keyword search is ready), the filler
    // runs and semantic search opens when it is done.
    indexed = true;
    await waitFor(() => runtime.keywordReady, { timeoutMs: 60_000, what: 'keyword search ready' });
    expect(runtime.status().keyword).toBe(true);
    await waitFor(() => runtime.status().semantic_state === 'ready', {
      timeoutMs: 300_000,
      stepMs: 100,
      what: 'semantic search ready',
    });
    expect(runtime.status().vector_backlog).toMatchObject({ passages: 0, clips: 0 });
    expect(runtime.unavailableReason()).toBeUndefined();
    const stats = await runtime.searchIndex.stats();
    expect(stats.lines).toBe(lineCount());
    expect(stats.passagesWithVectors).toBe(stats.passages);
    const late = await get('/v1/podcasts/episodes/search?semantic_search=interest%20rates&limit=3');
    expect(late.status).toBe(200);
    expect(late.body.data).toHaveLength(3);
    expect(late.body.data[0].match.source).toBe('semantic');
  }, 320_000);

  it('stores the embedding of each passage under the key of its text', async () => {
    const index = runtime.searchIndex;
    const episodeId = corpus.episodes[0]!.id;
    const { passages } = await index.vectorSources([episodeId]);
    const some = passages.slice(0, 5);
    expect(some.length).toBeGreaterThan(0);
    const model = await OnnxEmbeddings.open({
      modelDir: (await fetchModel({ modelsDir: TEST_MODELS_DIR, model: TEST_MODEL })).dir,
      intraOpNumThreads: 1,
    });
    try {
      const expected = await model.embed(some.map((p) => p.text));
      const stored = await index.storedVectors([episodeId]);
      // The tests' model (int8) quantizes activations per call, so a text embedded in another
      // batch differs slightly: the stored vector is its own text's, closer to it than to any other.
      some.forEach((p, i) => {
        const key = passageVectorKey(p.text);
        expect(p.vector_key).toBe(key);
        const v = stored.get(key)!;
        expect(v).toBeDefined();
        const own = cosineSimilarity(v, expected[i]!);
        expect(own).toBeGreaterThan(0.97);
        expected.forEach((other, j) => {
          if (j !== i && some[j]!.text !== p.text) expect(cosineSimilarity(v, other)).toBeLessThan(own);
        });
      });
    } finally {
      await model.close();
    }
  });

  it('keeps every vector when the topics are replayed', async () => {
    const before = await runtime.searchIndex.stats();
    const again = await projectIntoSearch({
      index: runtime.searchIndex,
      state,
      catalog: api.catalog,
      produce: (b) => produceCorpus(b.producer, corpus),
    });
    await again.close();
    expect(await runtime.searchIndex.stats()).toEqual(before);
    expect(await runtime.searchIndex.vectorBacklog()).toMatchObject({ passages: 0, clips: 0 });
  });

  it('takes the vectors a rebuild kept aside instead of embedding again, and drops them once every row has one', async () => {
    const query = '/v1/podcasts/episodes/search?semantic_search=interest%20rates&limit=5';
    const before = await get(query);
    expect(before.status).toBe(200);
    const { passages, passagesWithVectors } = await runtime.searchIndex.stats();
    const keys = [...(await runtime.searchIndex.storedVectors(corpus.episodes.map((e) => e.id))).keys()];
    await api.close();
    await runtime.close();

    // `earshot projections rebuild search`, then the service again: the projector writes text only.
    expect(await clearKeepingVectors(`${tmp.dir}/search`)).toMatch(
      new RegExp(`keeping \\d+ vectors of ${TEST_MODEL} aside`),
    );
    await startSearch();
    const index = runtime.searchIndex;
    expect(await index.stats()).toMatchObject({ passages, passagesWithVectors: 0 });
    const filler = new VectorFiller({ index: () => index, embeddings: () => runtime.indexingEmbeddings() });
    await filler.drain({ timeoutMs: 120_000 });
    expect(filler.stats.textsEmbedded).toBe(0);
    expect(filler.stats.vectorsCarried).toBeGreaterThan(0);
    expect(await index.stats()).toMatchObject({ passages, passagesWithVectors });
    const after = await get(query);
    expect(after.body.data.map((d: Json) => d.segment.id)).toEqual(
      before.body.data.map((d: Json) => d.segment.id),
    );

    // Semantic search is ready: the runtime drops what the rebuild kept aside.
    expect((await index.carriedVectors(TEST_MODEL, 384, keys)).size).toBe(keys.length);
    runtime.startVectors({
      fill: true,
      indexingCaughtUp: async () => true,
      logger: silentLogger(),
      pollMs: 20,
    });
    await waitFor(async () => (await index.carriedVectors(TEST_MODEL, 384, keys)).size === 0, {
      timeoutMs: 60_000,
      what: 'vectors kept aside dropped',
    });
    expect(runtime.status().semantic_state).toBe('ready');
  }, 300_000);
});
