import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../infra/logger.ts';
import { fetchModel, TOKENIZER_FILE } from '../../projections/embeddings/model-fetch.ts';
import { LanceDbSearchIndex } from '../../projections/search/lancedb/lancedb-search-index.ts';
import { SearchRuntime } from '../../projections/search/search-runtime.ts';
import { VectorFiller } from '../../projections/search/search-vector-filler.ts';
import type { PgliteStateStore } from '../../projections/state/pglite-state-store.ts';
import { type Corpus, generateTestCorpus, produceCorpus } from '../support/corpus.ts';
import {
  openTestEmbeddings,
  projectIntoSearch,
  type SearchEmbeddings,
  searchApi,
  TEST_MODEL,
  TEST_MODELS_DIR,
} from '../support/search.ts';
import { memoryStateStore } from '../support/state.ts';
import { tempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
type Json = any;

// The tail of a long turn is searchable by meaning: one line of a generated episode is replaced by
// a monologue of about 1,500 model tokens about freight logistics whose last sentence, and only
// it, is about keeping bees on a city rooftop. Through the real pipeline and the real model.
const tmp = tempDir('earshot-search-passages-');
let corpus: Corpus;
let embeddings: SearchEmbeddings;
let index: LanceDbSearchIndex;
let api: Awaited<ReturnType<typeof searchApi>>;
let closeProjection: () => Promise<void>;
let state: PgliteStateStore;
let planted: { episodeId: string; number: number };

const FILLER = [
  'Container freight rates moved again this quarter as carriers cut sailings on the Pacific lanes.',
  'Our warehouse in the port district handled twice the pallets it did a year ago.',
  'Trucking capacity tightened when diesel prices rose and drivers retired faster than they were hired.',
  'We renegotiated the contract with the rail operator so the intermodal yard could run overnight.',
  'Customs brokers told us the new paperwork added about a day to every inbound shipment.',
  'The forecast for peak season depends on how retailers manage their inventory in the spring.',
];
const TAIL = 'And on weekends I keep honey bees in two hives on the roof of my apartment building downtown.';

function monologue(): string {
  const sentences: string[] = [];
  // About 95 sentences of about 16 tokens: some 1,500 tokens before the planted one.
  for (let i = 0; i < 95; i++)
    sentences.push(`${FILLER[i % FILLER.length]!.slice(0, -1)}, in week ${i + 1}.`);
  sentences.push(TAIL);
  return sentences.join(' ');
}

async function get(url: string) {
  const res = await api.app.inject({ method: 'GET', url, headers: { 'x-api-key': api.key } });
  return { status: res.statusCode, body: res.json() as Json };
}

beforeAll(async () => {
  corpus = await generateTestCorpus({
    dir: `${tmp.dir}/corpus`,
    podcasts: 2,
    episodesPerPodcast: 2,
    seed: 11,
    asOf: Date.UTC(2026, 5, 1),
  });
  const transcript = corpus.transcripts[0]!;
  const segment = corpus.segments.find((s) => s.episode_id === transcript.episode_id)!.segments[1]!;
  const line = transcript.lines.find((l) => l.number === segment.first_line + 1)!;
  line.text = monologue();
  line.words = [];
  planted = { episodeId: transcript.episode_id, number: line.number };
  // A clip of that turn, titled for what it starts with.
  corpus.clips
    .find((c) => c.episode_id === transcript.episode_id)!
    .clips.push({
      id: `${transcript.episode_id}_freight_clip`,
      type: 'INSIGHTFUL',
      title: 'Freight outlook for the peak season',
      description: 'Carriers, warehouses and the rail yard.',
      intro_statement: null,
      engagement_score: 50,
      start_seconds: line.start_seconds,
      end_seconds: line.end_seconds,
      audio_url: null,
      segment_id: segment.id,
      speaker: line.speaker,
    });

  embeddings = await openTestEmbeddings();
  index = new LanceDbSearchIndex(`${tmp.dir}/search`, {
    dimensions: embeddings.query.dimensions,
    model: embeddings.query.model,
  });
  await index.open();
  state = memoryStateStore();
  api = await searchApi({ index, state, embeddings: embeddings.query });
  const projection = await projectIntoSearch({
    index,
    state,
    catalog: api.catalog,
    embeddings: embeddings.indexing,
    produce: (b) => produceCorpus(b.producer, corpus),
  });
  closeProjection = projection.close;
}, 600_000);

afterAll(async () => {
  await api?.close();
  await closeProjection?.();
  await index?.close();
  await embeddings?.close();
  tmp.remove();
});

describe('semantic search over passages', () => {
  it('the planted turn is over 1,500 model tokens', async () => {
    const line = corpus.transcripts[0]!.lines.find((l) => l.number === planted.number)!;
    const dir = (await fetchModel({ modelsDir: TEST_MODELS_DIR, model: TEST_MODEL })).dir;
    const tokenizer = new Tokenizer(JSON.parse(await readFile(path.join(dir, TOKENIZER_FILE), 'utf8')), {});
    expect(tokenizer.encode(line.text, { add_special_tokens: false }).ids.length).toBeGreaterThan(1500);
  });

  it('finds a concept said only in the last sentence of a 1,500-token turn', async () => {
    const res = await get(
      `/v1/podcasts/episodes/search?semantic_search=${encodeURIComponent('beekeeping on an urban rooftop')}&limit=3`,
    );
    expect(res.status).toBe(200);
    const top = res.body.data[0];
    expect(top.episode.id).toBe(planted.episodeId);
    expect(top.match.source).toBe('semantic');
    const matched = top.windows.flatMap((w: Json) => w.lines).filter((l: Json) => l.is_match);
    expect(matched.map((l: Json) => l.number)).toContain(planted.number);
    // The line is shown whole, as the API always shows lines.
    const shown = top.windows.flatMap((w: Json) => w.lines).find((l: Json) => l.number === planted.number);
    expect(shown.text.endsWith(TAIL)).toBe(true);
  });

  it('finds it by hybrid search too', async () => {
    const res = await get(
      `/v1/podcasts/episodes/search?semantic_search=${encodeURIComponent('beekeeping on an urban rooftop')}&keyword_search=hives&limit=3`,
    );
    expect(res.status).toBe(200);
    expect(res.body.data[0].match.source).toBe('hybrid');
    const matched = res.body.data[0].windows.flatMap((w: Json) => w.lines).filter((l: Json) => l.is_match);
    expect(matched.map((l: Json) => l.number)).toContain(planted.number);
  });
});

describe('clip search over passages', () => {
  it('finds a clip by what is said only at the end of its long turn', async () => {
    const res = await get(
      `/v1/podcasts/clips/search?q=${encodeURIComponent('beekeeping on an urban rooftop')}&limit=3`,
    );
    expect(res.status).toBe(200);
    expect(res.body.data[0].id).toBe(`${planted.episodeId}_freight_clip`);
  });
});

describe('semantic coverage while vectors are missing', () => {
  it('readiness counts embedded of total; semantic answers say so until the backlog is empty', async () => {
    // A changed line re-indexed without the model: its passage waits for a vector.
    const transcript = corpus.transcripts[1]!;
    transcript.lines[0]!.text = 'A brand new opening line about tidal power stations on the coast.';
    const again = await projectIntoSearch({
      index,
      state,
      catalog: api.catalog,
      produce: (b) => produceCorpus(b.producer, corpus),
    });
    await again.close();
    // A process that counts the backlog and does not embed (the API role), over the same index.
    const runtime = new SearchRuntime({
      createIndex: (options) => new LanceDbSearchIndex(`${tmp.dir}/search`, options),
      async openEmbeddings() {
        const model = embeddings.query;
        return {
          query: {
            model: model.model,
            dimensions: model.dimensions,
            embed: (texts: string[]) => model.embed(texts),
            close: async () => {},
          },
        };
      },
    });
    await runtime.start({ query: true, indexing: false, fetchIfMissing: false, logger: silentLogger() });
    api.services.semanticCoverage = () => runtime.semanticCoverage();
    try {
      runtime.startVectors({
        fill: false,
        indexingCaughtUp: async () => true,
        logger: silentLogger(),
        pollMs: 20,
      });
      await waitFor(() => runtime.status().vector_backlog !== undefined, { timeoutMs: 10_000 });
      const backlog = runtime.status().vector_backlog!;
      expect(backlog.passages).toBeGreaterThan(0);
      expect(backlog.embedded).toBeLessThan(backlog.total);
      expect(backlog.embedded + backlog.passages + backlog.clips).toBe(backlog.total);
      expect(runtime.status().semantic_state).toBe('catching_up');

      const q = encodeURIComponent('tidal power');
      const semantic = await get(`/v1/podcasts/episodes/search?semantic_search=${q}&limit=2`);
      expect(semantic.status).toBe(200);
      expect(semantic.body.semantic_coverage).toEqual({ embedded: backlog.embedded, total: backlog.total });
      const hybrid = await get(
        `/v1/podcasts/episodes/search?semantic_search=${q}&keyword_search=coast&limit=2`,
      );
      expect(hybrid.body.semantic_coverage).toEqual({ embedded: backlog.embedded, total: backlog.total });
      const clips = await get(`/v1/podcasts/clips/search?q=${q}&limit=2`);
      expect(clips.status).toBe(200);
      expect(clips.body.semantic_coverage).toEqual({ embedded: backlog.embedded, total: backlog.total });
      // Keyword answers never carry it.
      const keyword = await get('/v1/podcasts/episodes/search?keyword_search=coast&limit=2');
      expect(keyword.body.semantic_coverage).toBeUndefined();

      // The backlog embedded: the field goes, semantic search is ready.
      await new VectorFiller({ index: () => index, embeddings: () => embeddings.indexing }).drain();
      await waitFor(() => runtime.status().semantic_state === 'ready', { timeoutMs: 30_000 });
      expect(runtime.status().vector_backlog).toMatchObject({ passages: 0, clips: 0 });
      expect(runtime.semanticCoverage()).toBeUndefined();
      const after = await get(`/v1/podcasts/episodes/search?semantic_search=${q}&limit=2`);
      expect(after.status).toBe(200);
      expect(after.body.semantic_coverage).toBeUndefined();
      expect(after.body.data[0].windows.flatMap((w: Json) => w.lines).some((l: Json) => l.is_match)).toBe(
        true,
      );
    } finally {
      delete api.services.semanticCoverage;
      await runtime.close();
    }
  }, 120_000);
});
