import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LanceDbSearchIndex } from '../../projections/search/lancedb/lancedb-search-index.ts';
import { type Corpus, generateTestCorpus, produceCorpus } from '../support/corpus.ts';
import {
  openTestEmbeddings,
  projectIntoSearch,
  type SearchEmbeddings,
  searchApi,
} from '../support/search.ts';
import { memoryStateStore } from '../support/state.ts';
import { tempDir } from '../support/temp-dir.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
type Json = any;

// One small generated corpus through the real pipeline (events → projectors → index) and the
// real model, then the search endpoints over HTTP.
const tmp = tempDir('earshot-search-api-');
let corpus: Corpus;
let embeddings: SearchEmbeddings;
let index: LanceDbSearchIndex;
let api: Awaited<ReturnType<typeof searchApi>>;
let closeProjection: () => Promise<void>;

async function get(url: string) {
  const res = await api.app.inject({ method: 'GET', url, headers: { 'x-api-key': api.key } });
  return { status: res.statusCode, body: res.json() as Json };
}

beforeAll(async () => {
  corpus = await generateTestCorpus({
    dir: `${tmp.dir}/corpus`,
    podcasts: 4,
    episodesPerPodcast: 3,
    seed: 7,
    asOf: Date.UTC(2026, 5, 1),
  });
  embeddings = await openTestEmbeddings();
  index = new LanceDbSearchIndex(`${tmp.dir}/search`, {
    dimensions: embeddings.query.dimensions,
    model: embeddings.query.model,
  });
  await index.open();
  const state = memoryStateStore();
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

/** A two-word phrase that occurs in the corpus, taken from a transcript line. */
function phraseInCorpus(): string {
  for (const t of corpus.transcripts) {
    for (const l of t.lines) {
      const m = /\b(basis points|quarter point|yield curve|box office|jobs report|opening weekend)\b/i.exec(
        l.text,
      );
      if (m) return m[1]!.toLowerCase();
    }
  }
  throw new Error('no known phrase in the corpus');
}

function mostMentioned(kind: 'PERSON' | 'COMPANY'): { id: string; slug: string; name: string } {
  const counts = new Map<string, number>();
  for (const m of corpus.truth.mentions) {
    if (m.sense === 'entity') counts.set(m.entity_id, (counts.get(m.entity_id) ?? 0) + 1);
  }
  const candidates = corpus.entities.filter((e) => e.kind === kind && counts.has(e.id));
  candidates.sort((a, b) => counts.get(b.id)! - counts.get(a.id)!);
  return candidates[0]!;
}

describe('dialogue search', () => {
  it('finds an exact phrase, marks the matching lines and embeds episode, segment and clips', async () => {
    const phrase = phraseInCorpus();
    const { status, body } = await get(
      `/v1/podcasts/episodes/search?keyword_search=${encodeURIComponent(`"${phrase}"`)}&limit=5`,
    );
    expect(status).toBe(200);
    expect(body.data.length).toBeGreaterThan(0);
    for (const r of body.data) {
      expect(r.match.source).toBe('keyword');
      expect(r.episode).toMatchObject({
        id: expect.any(String),
        slug: expect.any(String),
        podcast: { id: expect.any(String) },
      });
      expect(r.segment.episode.id).toBe(r.episode.id);
      expect(r.segment.duration_seconds).toBeCloseTo(r.segment.end_seconds - r.segment.start_seconds, 2);
      const matched = r.windows.flatMap((w: Json) => w.lines.filter((l: Json) => l.is_match));
      expect(matched.length).toBeGreaterThan(0);
      for (const l of matched) expect(l.text.toLowerCase().replace(/[^a-z ]/g, ' ')).toMatch(phrase);
      expect(r.windows.filter((w: Json) => w.is_preview)).toHaveLength(1);
      expect(Array.isArray(r.clips)).toBe(true);
    }
  });

  it('searches by meaning, and both together as hybrid', async () => {
    const semantic = await get(
      '/v1/podcasts/episodes/search?semantic_search=central%20bank%20raising%20interest%20rates&limit=3',
    );
    expect(semantic.status).toBe(200);
    expect(semantic.body.data.length).toBe(3);
    expect(semantic.body.data[0].match.source).toBe('semantic');
    expect(semantic.body.data[0].match.relevance_score).toBeGreaterThan(0.2);
    const hybrid = await get(
      '/v1/podcasts/episodes/search?semantic_search=interest%20rates&keyword_search=fed%20mortgages&limit=3',
    );
    expect(hybrid.status).toBe(200);
    expect(hybrid.body.data[0].match.source).toBe('hybrid');
  });

  it('filters by entity with role, echoing the entity, and by company with its envelope', async () => {
    const person = mostMentioned('PERSON');
    const byEntity = await get(`/v1/podcasts/episodes/search?entity_id=${person.slug}&role=mention&limit=5`);
    expect(byEntity.status).toBe(200);
    expect(byEntity.body.entity).toMatchObject({ id: person.id, slug: person.slug, name: person.name });
    expect(byEntity.body.data.length).toBeGreaterThan(0);
    for (const r of byEntity.body.data) {
      expect(r.match.source).toBe('filter');
      expect(r.windows.some((w: Json) => w.lines.some((l: Json) => l.is_mention))).toBe(true);
    }
    const company = mostMentioned('COMPANY');
    const byCompany = await get(`/v1/podcasts/episodes/search?company_id=${company.id}&keyword_search=the`);
    expect(byCompany.status).toBe(200);
    expect(byCompany.body.company).toMatchObject({ id: company.id, name: company.name });
    expect(byCompany.body.entity).toMatchObject({ id: company.id });
  });

  it('filters by podcast slug, segment type and date, and pages with a cursor', async () => {
    const podcast = corpus.podcasts[0]!;
    const first = await get(
      `/v1/podcasts/episodes/search?podcast_id=${podcast.slug}&type=TOPIC_DISCUSSION&limit=2`,
    );
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.has_more).toBe(true);
    for (const r of first.body.data) {
      expect(r.episode.podcast.id).toBe(podcast.id);
      expect(r.segment.type).toBe('TOPIC_DISCUSSION');
    }
    const second = await get(
      `/v1/podcasts/episodes/search?podcast_id=${podcast.slug}&type=TOPIC_DISCUSSION&limit=2&cursor=${first.body.cursor}`,
    );
    expect(second.body.data[0].segment.id).not.toBe(first.body.data[0].segment.id);
    const future = await get('/v1/podcasts/episodes/search?keyword_search=the&since=2030-01-01');
    expect(future.body.data).toEqual([]);
    // Podcasts by numeric directory ID, companies by domain, episodes by slug.
    const withDirectory = corpus.podcasts.find((p) => p.directory_id !== null);
    if (withDirectory) {
      const byDirectory = await get(
        `/v1/podcasts/episodes/search?podcast_id=${withDirectory.directory_id}&limit=3`,
      );
      expect(byDirectory.status).toBe(200);
      for (const r of byDirectory.body.data) expect(r.episode.podcast.id).toBe(withDirectory.id);
    }
    const company = corpus.entities.find((e) => e.kind === 'COMPANY' && e.company?.domain)!;
    const byDomain = await get(
      `/v1/podcasts/episodes/search?company_id=https://www.${company.company!.domain}/&limit=1`,
    );
    expect(byDomain.status).toBe(200);
    expect(byDomain.body.company).toMatchObject({ id: company.id });
    const episode = corpus.episodes[0]!;
    const bySlug = await get(`/v1/podcasts/episodes/search?episode_id=${episode.slug}&limit=100`);
    expect(bySlug.body.data.length).toBeGreaterThan(0);
    for (const r of bySlug.body.data) expect(r.episode.id).toBe(episode.id);
  });

  it('refuses bad parameters with a 422 naming each', async () => {
    const cases: [string, string][] = [
      [`keyword_search=${'a'.repeat(501)}`, 'query.keyword_search'],
      [`semantic_search=${'a'.repeat(501)}`, 'query.semantic_search'],
      ['keyword_search=x&limit=101', 'query.limit'],
      ['keyword_search=x&limit=0', 'query.limit'],
      ['keyword_search=x&type=MONOLOGUE', 'query.type'],
      ['keyword_search=x&sort=popular', 'query.sort'],
      ['keyword_search=x&entity_type=company&role=guest', 'query.entity_type'],
      ['keyword_search=x&role=guest', 'query.role'],
      ['keyword_search=%22%22', 'query.keyword_search'],
      ['keyword_search=x&since=2026-13-01', 'query.since'],
    ];
    for (const [qs, location] of cases) {
      const { status, body } = await get(`/v1/podcasts/episodes/search?${qs}`);
      expect(status, qs).toBe(422);
      expect(body.error_code).toBe('validation_error');
      expect(
        body.errors.map((e: Json) => e.location),
        qs,
      ).toContain(location);
    }
    const unknownType = await get('/v1/podcasts/episodes/search?keyword_search=x&entity_type=no-such-type');
    expect(unknownType.status).toBe(422);
    expect(unknownType.body.errors[0].location).toBe('query.entity_type');
    // entity_type is ignored when entity_id resolves.
    const person = mostMentioned('PERSON');
    const ignored = await get(
      `/v1/podcasts/episodes/search?entity_id=${person.id}&entity_type=no-such-type&limit=1`,
    );
    expect(ignored.status).toBe(200);
    expect(ignored.body.entity.id).toBe(person.id);
    const unknown = await get('/v1/podcasts/episodes/search?keyword_search=x&entity_id=nobody-at-all');
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0].location).toBe('query.entity_id');
  });
});

describe('clips', () => {
  it('searches clips by meaning and by entity, and refuses a search with neither', async () => {
    const byMeaning = await get('/v1/podcasts/clips/search?q=rising%20prices');
    expect(byMeaning.status).toBe(200);
    expect(byMeaning.body.data.length).toBeGreaterThan(0);
    expect(byMeaning.body.data.length).toBeLessThanOrEqual(10);
    expect(byMeaning.body.data[0]).toMatchObject({
      id: expect.any(String),
      relevance_score: expect.any(Number),
      episode: { id: expect.any(String) },
    });
    const none = await get('/v1/podcasts/clips/search?type=FUNNY');
    expect(none.status).toBe(422);
    expect(none.body.errors[0].location).toBe('query.q');
    const tooMany = await get('/v1/podcasts/clips/search?q=x&limit=26');
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors[0].location).toBe('query.limit');
    const cases: [string, string, string][] = [
      ['/v1/podcasts/clips/search', `q=${'a'.repeat(501)}`, 'query.q'],
      ['/v1/podcasts/clips/search', 'q=x&limit=0', 'query.limit'],
      ['/v1/podcasts/clips/search', 'q=x&type=BORING', 'query.type'],
      ['/v1/podcasts/clips/search', 'q=x&sort=popular', 'query.sort'],
      ['/v1/podcasts/clips/search', 'q=x&role=guest', 'query.role'],
      ['/v1/podcasts/clips/search', 'q=%20%20&podcast_id=x', 'query.q'],
      ['/v1/podcasts/clips', 'type=BORING', 'query.type'],
      ['/v1/podcasts/clips', 'min_engagement=101', 'query.min_engagement'],
      ['/v1/podcasts/clips', 'limit=101', 'query.limit'],
      ['/v1/entities/search', `q=${'a'.repeat(501)}`, 'query.q'],
      ['/v1/entities/search', 'q=nvidia&type=animal', 'query.type'],
      ['/v1/entities/search', '', 'query.q'],
      ['/v1/podcasts/search', `q=${'a'.repeat(501)}`, 'query.q'],
      ['/v1/podcasts/search', 'q=%21%21', 'query.q'],
    ];
    for (const [path, qs, location] of cases) {
      const { status, body } = await get(`${path}?${qs}`);
      expect(status, `${path}?${qs.slice(0, 40)}`).toBe(422);
      expect(body.error_code).toBe('validation_error');
      expect(
        body.errors.map((e: Json) => e.location),
        `${path}?${qs.slice(0, 40)}`,
      ).toContain(location);
    }
    // By entity alone (no q): clips the entity speaks in or is mentioned in, newest first.
    const person = mostMentioned('PERSON');
    const byEntity = await get(`/v1/podcasts/clips/search?entity_id=${person.slug}&limit=25`);
    expect(byEntity.status).toBe(200);
    const dates = byEntity.body.data.map((c: Json) => c.episode.published_at);
    expect(dates).toEqual([...dates].sort().reverse());
  });

  it('lists clips best first, per speaker and per episode', async () => {
    const all = await get('/v1/podcasts/clips?limit=20');
    expect(all.status).toBe(200);
    const scores = all.body.data.map((c: Json) => c.engagement_score);
    expect(scores).toEqual([...scores].sort((a: number, b: number) => b - a));
    const withSpeaker = all.body.data.find((c: Json) => c.speaker?.person);
    expect(withSpeaker).toBeDefined();
    const bySpeaker = await get(`/v1/podcasts/clips?speaker=${withSpeaker.speaker.person.slug}`);
    expect(
      bySpeaker.body.data.every((c: Json) => c.speaker.person.id === withSpeaker.speaker.person.id),
    ).toBe(true);
    const strong = await get('/v1/podcasts/clips?min_engagement=70');
    expect(strong.body.data.every((c: Json) => c.engagement_score >= 70)).toBe(true);
    const episode = corpus.episodes[0]!;
    const ofEpisode = await get(`/v1/podcasts/episodes/${episode.slug}/clips`);
    expect(ofEpisode.status).toBe(200);
    expect(ofEpisode.body.data.length).toBe(
      corpus.clips.find((c) => c.episode_id === episode.id)!.clips.length,
    );
  });
});

describe('entity and podcast search', () => {
  it('finds entities by name, partial name, ticker, handle and domain with a match quality', async () => {
    const company = corpus.entities.find(
      (e) => e.kind === 'COMPANY' && e.company?.ticker && e.company.domain,
    )!;
    const exact = await get(`/v1/entities/search?q=${encodeURIComponent(company.name)}`);
    expect(exact.status).toBe(200);
    expect(exact.body.data[0]).toMatchObject({
      type: 'company',
      match_quality: 'exact',
      company: { id: company.id },
    });
    expect(exact.body.data[0].mentions).toMatchObject({
      podcast_episodes: expect.any(Number),
      news_articles: 0,
    });
    const ticker = await get(`/v1/entities/search?q=${company.company!.ticker}`);
    expect(ticker.body.data[0]).toMatchObject({ company: { id: company.id }, matched: { field: 'ticker' } });
    const domain = await get(`/v1/entities/search?q=${company.company!.domain}`);
    expect(domain.body.data[0]).toMatchObject({ company: { id: company.id }, matched: { field: 'domain' } });
    const person = corpus.entities.find((e) => e.kind === 'PERSON' && e.handles.length > 0)!;
    const handle = await get(`/v1/entities/search?q=${encodeURIComponent(person.handles[0]!)}`);
    expect(handle.body.data[0]).toMatchObject({
      type: 'person',
      match_quality: 'exact',
      person: { id: person.id },
    });
    const last = person.name.split(' ').at(-1)!;
    const partial = await get(`/v1/entities/search?q=${encodeURIComponent(last)}&type=person`);
    const hit = partial.body.data.find((d: Json) => d.person.id === person.id);
    expect(hit?.match_quality).toBe('partial');
  });

  it('finds podcasts by name, on /v1/podcasts/search', async () => {
    const podcast = corpus.podcasts[1]!;
    const res = await get(`/v1/podcasts/search?q=${encodeURIComponent(podcast.title.slice(0, 6))}`);
    expect(res.status).toBe(200);
    const hit = res.body.data.find((p: Json) => p.id === podcast.id);
    expect(hit).toMatchObject({ slug: podcast.slug, title: podcast.title, match_quality: 'prefix' });
  });
});

describe('without an embeddings model', () => {
  it('answers semantic requests 503 semantic_search_unavailable while keyword search works', async () => {
    const bare = await searchApi({ index, state: api.state, unavailableReason: 'the model is not cached' });
    try {
      const call = (url: string) =>
        bare.app.inject({ method: 'GET', url, headers: { 'x-api-key': bare.key } });
      for (const url of [
        '/v1/podcasts/episodes/search?semantic_search=rates',
        '/v1/podcasts/episodes/search?semantic_search=rates&keyword_search=fed',
        '/v1/podcasts/clips/search?q=rates',
      ]) {
        const res = await call(url);
        expect(res.statusCode, url).toBe(503);
        expect(res.json()).toMatchObject({ error_code: 'semantic_search_unavailable', status: 503 });
        expect(res.json().detail).toContain('the model is not cached');
      }
      expect((await call('/v1/podcasts/episodes/search?keyword_search=the')).statusCode).toBe(200);
    } finally {
      await bare.close();
    }
  });
});

describe('documents', () => {
  it('describes every search route in a valid OpenAPI document with prices', async () => {
    const doc = (await api.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    for (const path of [
      '/v1/podcasts/episodes/search',
      '/v1/podcasts/clips/search',
      '/v1/podcasts/clips',
      '/v1/podcasts/episodes/{id}/clips',
      '/v1/entities/search',
      '/v1/podcasts/search',
    ]) {
      expect(doc.paths[path]?.get?.['x-payment-info'], path).toBeDefined();
    }
  });
});

describe('projection', () => {
  it('leaves the index as it was when every topic is replayed', async () => {
    const before = await index.stats();
    expect(before.lines).toBe(
      corpus.segments.reduce(
        (n, s) => n + s.segments.reduce((m, seg) => m + seg.last_line - seg.first_line + 1, 0),
        0,
      ),
    );
    expect(before.passages).toBeGreaterThan(0);
    expect(before.passagesWithVectors).toBe(before.passages);
    const again = await projectIntoSearch({
      index,
      state: api.state,
      catalog: api.catalog,
      embeddings: embeddings.indexing,
      produce: (b) => produceCorpus(b.producer, corpus),
    });
    await again.close();
    expect(await index.stats()).toEqual(before);
  });
});
