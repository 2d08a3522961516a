import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmbeddingsPort } from '../../projections/embeddings/embeddings-port.ts';
import { buildEpisodeDocs } from '../../projections/search/episode-documents.ts';
import { LanceDbSearchIndex } from '../../projections/search/lancedb/lancedb-search-index.ts';
import { VectorFiller } from '../../projections/search/search-vector-filler.ts';
import { type Corpus, generateTestCorpus, produceCorpus } from '../support/corpus.ts';
import {
  openTestEmbeddings,
  projectIntoSearch,
  type SearchEmbeddings,
  searchApi,
} from '../support/search.ts';
import { memoryStateStore } from '../support/state.ts';
import { tempDir } from '../support/temp-dir.ts';

// Fresh first: a vector filler pass over a backfill gives way, between embedding calls, to an
// episode published after the ones it holds, so a new episode does not wait for the pass.
const tmp = tempDir('earshot-search-fresh-');
let corpus: Corpus;
let embeddings: SearchEmbeddings;
let index: LanceDbSearchIndex;
const state = memoryStateStore();

beforeAll(async () => {
  corpus = await generateTestCorpus({
    dir: `${tmp.dir}/corpus`,
    podcasts: 2,
    episodesPerPodcast: 2,
    seed: 5,
    asOf: Date.UTC(2026, 5, 1),
  });
  embeddings = await openTestEmbeddings(1);
  index = new LanceDbSearchIndex(`${tmp.dir}/search`, {
    dimensions: embeddings.indexing.dimensions,
    model: embeddings.indexing.model,
  });
  await index.open();
  const api = await searchApi({ index, state });
  // The backfill: text only, every passage waiting for its vector.
  const projection = await projectIntoSearch({
    index,
    state,
    catalog: api.catalog,
    produce: (b) => produceCorpus(b.producer, corpus),
  });
  await projection.close();
  await api.close();
}, 600_000);

afterAll(async () => {
  await index?.close();
  await embeddings?.close();
  tmp.remove();
});

/** A copy of the corpus's first episode, re-keyed and published a day after every other. */
function newerEpisode(id: string) {
  const episode = corpus.episodes[0]!;
  const transcript = corpus.transcripts.find((t) => t.episode_id === episode.id)!;
  const segments = corpus.segments.find((s) => s.episode_id === episode.id)!;
  const latest = Math.max(...corpus.episodes.map((e) => Number(e.published_at)));
  return buildEpisodeDocs(id, {
    episode: { id, podcast_id: episode.podcast_id, published_at: latest + 86_400_000, language: 'en' },
    transcript: { language: transcript.language, lines: transcript.lines },
    segments: segments.segments.map((s) => ({ ...s, id: `${id}-${s.id}` })),
  })!;
}

describe('fresh first', () => {
  it('a pass over older episodes yields to a newer one after the call in flight, and the next pass takes it', async () => {
    const backlog = await index.pendingVectorEpisodes(100);
    expect(backlog.length).toBe(4);
    // The real model; the first call of the pass is when a new episode comes in.
    let calls = 0;
    const model = embeddings.indexing;
    const port: EmbeddingsPort = {
      model: model.model,
      dimensions: model.dimensions,
      close: async () => {},
      async embed(texts) {
        calls++;
        if (calls === 1) await index.replaceEpisodes([newerEpisode('ep_fresh')]);
        return model.embed(texts);
      },
    };
    const filler = new VectorFiller({
      index: () => index,
      embeddings: () => port,
      episodesPerPass: 4,
      embedBatch: 8,
    });

    const before = await index.vectorBacklog();
    const pass = await filler.runOnce();
    expect(pass?.yielded).toBe(true);
    expect(calls).toBe(1);
    // What the one call embedded is kept; the backfill's other passages stay pending.
    expect(pass?.written).toBeGreaterThan(0);
    const after = await index.vectorBacklog();
    expect(after.embedded - before.embedded).toBe(pass!.written);
    expect(await index.pendingVectorEpisodes(1)).toEqual(['ep_fresh']);

    // The next pass (of one episode here) is the new episode's, whole.
    const next = await new VectorFiller({
      index: () => index,
      embeddings: () => port,
      episodesPerPass: 1,
    }).runOnce();
    expect(next?.yielded).toBeUndefined();
    const { passages } = await index.vectorSources(['ep_fresh']);
    expect(passages.length).toBeGreaterThan(0);
    expect(passages.every((p) => p.has_vector)).toBe(true);
    expect((await index.pendingVectorEpisodes(100)).length).toBe(4);
  }, 300_000);
});
