import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEpisodeDocs, type EpisodePartsValue } from '../../projections/search/episode-documents.ts';
import type {
  EpisodeDocs,
  NameDoc,
  NameKind,
  PassageDoc,
  SearchIndex,
} from '../../projections/search/search-index.ts';
import { analyze as analyzeWords, parseKeywordQuery } from '../../projections/search/text-analysis.ts';

export interface SearchIndexFixture {
  index: SearchIndex;
  /**
   * What `earshot projections rebuild search` does to this engine's index (close it, empty it with
   * its vectors kept aside), then a new index over the same place, open. Cleanup closes that one.
   */
  rebuild(): Promise<SearchIndex>;
  cleanup(): Promise<void>;
}

/** Vector size of the contract's hand-written vectors. */
export const CONTRACT_DIMENSIONS = 4;

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 10);

// Hand-written unit vectors: three "topics" (money, sport, food) along the first three axes.
const V = {
  money: [1, 0, 0, 0],
  moneyish: [0.9, 0.3, 0, 0.3],
  sport: [0, 1, 0, 0],
  food: [0, 0, 1, 0],
  other: [0, 0, 0, 1],
};
function unit(v: number[]): Float32Array {
  const n = Math.hypot(...v);
  return Float32Array.from(v.map((x) => x / n));
}

interface LineSpec {
  text: string;
  speaker?: string;
  v?: keyof typeof V;
}

export function episode(
  id: string,
  opts: {
    podcast: string;
    day: number;
    language?: string;
    segments: { type: string; lines: LineSpec[] }[];
    mentions?: { entity_id: string; line_number: number }[];
    speakers?: { label: string; person_id: string | null; name: string | null; role: string }[];
    clips?: {
      id: string;
      type: string;
      engagement: number;
      segment: number;
      lines: [number, number];
      speaker?: string;
      v?: keyof typeof V;
    }[];
  },
): EpisodeDocs {
  const lines: NonNullable<EpisodePartsValue['transcript']>['lines'] = [];
  const segments: NonNullable<EpisodePartsValue['segments']> = [];
  const vectors = new Map<string, keyof typeof V | undefined>();
  let n = 0;
  opts.segments.forEach((seg, s) => {
    const first = n + 1;
    for (const l of seg.lines) {
      n++;
      lines.push({
        number: n,
        speaker: l.speaker ?? 'SPEAKER_1',
        role: null,
        start_seconds: n * 10,
        end_seconds: n * 10 + 9,
        text: l.text,
      });
      vectors.set(l.text, l.v);
    }
    segments.push({
      id: `${id}_s${s + 1}`,
      number: s + 1,
      title: `Segment ${s + 1}`,
      type: seg.type as never,
      start_seconds: first * 10,
      end_seconds: n * 10 + 9,
      first_line: first,
      last_line: n,
      description: null,
      summary: null,
      audio_url: `https://cdn.example/${id}.mp3`,
      read_type: null,
      topics: [],
    });
  });
  const clips = (opts.clips ?? []).map((c) => ({
    id: c.id,
    type: c.type as never,
    title: `Clip ${c.id}`,
    description: null,
    intro_statement: null,
    engagement_score: c.engagement,
    start_seconds: c.lines[0] * 10,
    end_seconds: c.lines[1] * 10 + 9,
    audio_url: null,
    segment_id: `${id}_s${c.segment}`,
    speaker: c.speaker ?? null,
  }));
  const docs = buildEpisodeDocs(id, {
    episode: { id, podcast_id: opts.podcast, published_at: T0 + opts.day * DAY, language: null },
    transcript: { language: opts.language ?? 'en', lines },
    segments,
    clips,
    mentions: opts.mentions ?? [],
    speakers: (opts.speakers ?? []) as never,
  })!;
  // One passage per line, with the line's hand-written vector (the passage builder has its own
  // tests; here each adapter's storage and ranking of passages is what is checked).
  const template = docs.passages[0]!;
  docs.passages = docs.lines.map((l): PassageDoc => {
    const v = vectors.get(l.text);
    return {
      ...template,
      id: `${l.id}:0`,
      segment_id: l.segment_id,
      segment_type: l.segment_type,
      number: l.number,
      last_number: l.number,
      text: l.text,
      vector: v ? unit(V[v]) : null,
      vector_key: v ? `line:${l.text}` : null,
    };
  });
  for (const c of docs.clips) {
    const spec = opts.clips!.find((x) => x.id === c.id)!;
    c.vector = spec.v ? unit(V[spec.v]) : null;
    c.vector_key = spec.v ? `clip:${c.id}` : null;
  }
  return docs;
}

function corpus(): EpisodeDocs[] {
  return [
    episode('ep_a', {
      podcast: 'pod_1',
      day: 0,
      segments: [
        {
          type: 'INTRO',
          lines: [{ text: 'Welcome to the show, I am your host.', v: 'other' }],
        },
        {
          type: 'TOPIC_DISCUSSION',
          lines: [
            { text: 'The Fed hiked again, another quarter point.', v: 'money', speaker: 'SPEAKER_2' },
            { text: 'A point about the quarter: nothing happened.', v: 'moneyish' },
            { text: 'Basis points matter more than you think.', v: 'money' },
            { text: 'We ended at a quarter', v: 'other' },
            { text: 'point guard trades are wild', v: 'sport' },
          ],
        },
      ],
      mentions: [{ entity_id: 'ent_fed', line_number: 2 }],
      speakers: [
        { label: 'SPEAKER_1', person_id: 'ent_host', name: 'Hana Host', role: 'HOST' },
        { label: 'SPEAKER_2', person_id: 'ent_guest', name: 'Gus Guest', role: 'GUEST' },
      ],
      clips: [
        {
          id: 'clip_a1',
          type: 'INSIGHTFUL',
          engagement: 80,
          segment: 2,
          lines: [2, 3],
          speaker: 'SPEAKER_2',
          v: 'money',
        },
        { id: 'clip_a2', type: 'FUNNY', engagement: 40, segment: 2, lines: [6, 6], v: 'sport' },
      ],
    }),
    episode('ep_b', {
      podcast: 'pod_2',
      day: 5,
      segments: [
        {
          type: 'TOPIC_DISCUSSION',
          lines: [
            { text: 'Quarter-point moves are back on the table.', v: 'money' },
            { text: 'The striker signed a three-year deal.', v: 'sport' },
          ],
        },
        {
          type: 'AD',
          lines: [
            { text: 'This episode is brought to you by Crumb Bakery. Café naïve sourdough!', v: 'food' },
          ],
        },
      ],
      mentions: [{ entity_id: 'ent_crumb', line_number: 3 }],
      clips: [{ id: 'clip_b1', type: 'FUNNY', engagement: 95, segment: 1, lines: [2, 2], v: 'sport' }],
    }),
    episode('ep_c', {
      podcast: 'pod_1',
      day: 9,
      language: 'fr-FR',
      segments: [
        {
          type: 'INTERVIEW',
          lines: [
            { text: 'La politique monétaire se resserre.', v: 'money' },
            { text: 'Le pain au levain est délicieux.' },
          ],
        },
      ],
      mentions: [{ entity_id: 'ent_fed', line_number: 1 }],
      speakers: [{ label: 'SPEAKER_1', person_id: 'ent_guest', name: 'Gus Guest', role: 'GUEST' }],
      clips: [
        {
          id: 'clip_c1',
          type: 'INSIGHTFUL',
          engagement: 60,
          segment: 1,
          lines: [1, 1],
          speaker: 'SPEAKER_1',
        },
      ],
    }),
  ];
}

const NAMES: NameDoc[] = [
  {
    id: 'ent_nvda',
    kind: 'company',
    names: ['Nvidia', 'NVIDIA Corporation', 'NVDA', '@nvidia', 'nvidia.com'],
    popularity: 0,
    record: '{"id":"ent_nvda"}',
  },
  {
    id: 'ent_musk',
    kind: 'person',
    names: ['Elon Musk', 'Elon', '@elonmusk'],
    popularity: 0,
    record: '{"id":"ent_musk"}',
  },
  {
    id: 'ent_fed',
    kind: 'knowledge_graph_entity',
    names: ['Federal Reserve', 'the Fed'],
    popularity: 0,
    record: '{}',
  },
  { id: 'pod_1', kind: 'podcast', names: ['Money Matters Daily'], popularity: 80, record: '{}' },
  { id: 'pod_2', kind: 'podcast', names: ['Sports Talk Tonight'], popularity: 20, record: '{}' },
];

const ids = (hits: { id: string }[]) => hits.map((h) => h.id);
/** The first line of each passage hit, as a line id. */
const lineIds = (hits: { episode_id: string; number: number }[]) =>
  hits.map((h) => `${h.episode_id}:${h.number}`);
const sorted = (xs: string[]) => [...xs].sort();

/** The behaviour every search index adapter must have. */
export function searchIndexContract(adapter: string, setup: () => Promise<SearchIndexFixture>) {
  describe(`search index contract: ${adapter}`, () => {
    let fx: SearchIndexFixture;
    let index: SearchIndex;

    beforeAll(async () => {
      fx = await setup();
      index = fx.index;
      await index.open();
    });
    afterAll(async () => {
      await fx?.cleanup();
    });

    it('answers empty on an empty index', async () => {
      expect(await index.keywordLines(parseKeywordQuery('quarter'), {}, 10)).toEqual([]);
      expect(await index.vectorPassages(unit(V.money), {}, 10)).toEqual([]);
      expect(await index.filterSegments({}, 10, 0)).toEqual([]);
      expect(await index.listClips({}, 'engagement', 10, 0)).toEqual([]);
      expect(await index.searchNames({ words: ['nvidia'], kinds: ['company'] }, 10)).toEqual([]);
      expect(await index.getParts(['ep_a'])).toEqual([]);
    });

    it('indexes episodes, replacing them whole and idempotently', async () => {
      await index.replaceEpisodes(corpus());
      await index.refresh();
      const once = await index.stats();
      expect(once).toMatchObject({ lines: 11, passages: 11, passagesWithVectors: 10, segments: 5, clips: 4 });
      // Replaying the same episodes leaves the index as it was.
      await index.replaceEpisodes(corpus());
      await index.refresh();
      expect(await index.stats()).toEqual(once);
      // A changed episode replaces its documents; lines it no longer has disappear.
      const [a, b, c] = corpus();
      const shorter = episode('ep_b', {
        podcast: 'pod_2',
        day: 5,
        segments: [{ type: 'TOPIC_DISCUSSION', lines: [{ text: 'Only one line now.', v: 'other' }] }],
      });
      await index.replaceEpisodes([shorter]);
      await index.refresh();
      expect(await index.stats()).toMatchObject({ lines: 9, segments: 4, clips: 3 });
      expect(await index.keywordLines(parseKeywordQuery('striker'), {}, 10)).toEqual([]);
      await index.replaceEpisodes([a!, b!, c!]);
      await index.refresh();
      expect(await index.stats()).toEqual(once);
    });

    it('ranks lines by BM25 for free words', async () => {
      const hits = await index.keywordLines(parseKeywordQuery('striker deal'), {}, 10);
      expect(hits[0]).toMatchObject({ id: 'ep_b:2', segment_id: 'ep_b_s1', episode_id: 'ep_b', number: 2 });
      expect(hits[0]!.published_at).toBe(T0 + 5 * DAY);
      const any = await index.keywordLines(parseKeywordQuery('quarter'), {}, 10);
      expect(sorted(ids(any))).toEqual(['ep_a:2', 'ep_a:3', 'ep_a:5', 'ep_b:1']);
    });

    it('matches a quoted phrase exactly, in order, never across lines', async () => {
      const hits = await index.keywordLines(parseKeywordQuery('"quarter point"'), {}, 10);
      // "quarter-point" is the same two words; "a point about the quarter" is the wrong order;
      // line 5 ends with "quarter" and line 6 starts with "point": not a phrase.
      expect(sorted(ids(hits))).toEqual(['ep_a:2', 'ep_b:1']);
      expect(ids(await index.keywordLines(parseKeywordQuery('"point quarter"'), {}, 10))).toEqual([]);
    });

    it('ANDs several phrases and ranks extra words without requiring them', async () => {
      expect(ids(await index.keywordLines(parseKeywordQuery('"quarter point" "the fed"'), {}, 10))).toEqual([
        'ep_a:2',
      ]);
      expect(
        ids(await index.keywordLines(parseKeywordQuery('"quarter point" "basis points"'), {}, 10)),
      ).toEqual([]);
      const ranked = await index.keywordLines(parseKeywordQuery('"quarter point" fed'), {}, 10);
      expect(ids(ranked)).toEqual(['ep_a:2', 'ep_b:1']);
    });

    it('folds case and accents the same way for text and queries', async () => {
      expect(ids(await index.keywordLines(parseKeywordQuery('"CAFE NAIVE"'), {}, 10))).toEqual(['ep_b:3']);
      expect(ids(await index.keywordLines(parseKeywordQuery('monetaire'), {}, 10))).toEqual(['ep_c:1']);
    });

    it('filters lines by episode, podcast, segment type, date and entity keys', async () => {
      const q = parseKeywordQuery('quarter');
      expect(sorted(ids(await index.keywordLines(q, { podcastIds: ['pod_2'] }, 10)))).toEqual(['ep_b:1']);
      expect(sorted(ids(await index.keywordLines(q, { episodeIds: ['ep_a'] }, 10)))).toEqual([
        'ep_a:2',
        'ep_a:3',
        'ep_a:5',
      ]);
      expect(ids(await index.keywordLines(q, { segmentTypes: ['INTRO'] }, 10))).toEqual([]);
      expect(
        ids(await index.keywordLines(q, { publishedFrom: T0 + DAY, publishedBefore: T0 + 6 * DAY }, 10)),
      ).toEqual(['ep_b:1']);
      expect(sorted(ids(await index.keywordLines(q, { keys: [['ent_guest:guest']] }, 10)))).toEqual([
        'ep_a:2',
        'ep_a:3',
        'ep_a:5',
      ]);
      expect(ids(await index.keywordLines(q, { keys: [['ent_guest:host']] }, 10))).toEqual([]);
      expect(
        sorted(
          ids(
            await index.keywordLines(parseKeywordQuery('la le'), { keys: [['ent_fed'], ['ent_guest']] }, 10),
          ),
        ),
      ).toEqual(['ep_c:1', 'ep_c:2']);
      expect(ids(await index.keywordLines(q, { episodeIds: [] }, 10))).toEqual([]);
    });

    it('ranks passages by dot product, skipping those without a vector, with filters', async () => {
      const hits = await index.vectorPassages(unit(V.money), {}, 4);
      expect(sorted(lineIds(hits.slice(0, 4)))).toEqual(['ep_a:2', 'ep_a:4', 'ep_b:1', 'ep_c:1']);
      expect(hits[0]!.score).toBeCloseTo(1, 5);
      const all = await index.vectorPassages(unit(V.money), {}, 100);
      expect(all).toHaveLength(10);
      expect(lineIds(all)).not.toContain('ep_c:2');
      for (let i = 1; i < all.length; i++)
        expect(all[i]!.score).toBeLessThanOrEqual(all[i - 1]!.score + 1e-6);
      const filtered = await index.vectorPassages(
        unit(V.money),
        { podcastIds: ['pod_1'], segmentTypes: ['INTERVIEW'] },
        5,
      );
      expect(ids(filtered)).toEqual(['ep_c:1:0']);
      expect(filtered[0]).toMatchObject({
        episode_id: 'ep_c',
        segment_id: 'ep_c_s1',
        number: 1,
        last_number: 1,
      });
      // Dot product: a longer vector in the same direction scores higher.
      const scaled = await index.vectorPassages(Float32Array.from([2, 0, 0, 0]), { episodeIds: ['ep_c'] }, 1);
      expect(scaled[0]!.score).toBeCloseTo(2, 4);
      const [withVector] = await index.vectorPassages(unit(V.food), {}, 1, { withVectors: true });
      expect(withVector).toMatchObject({ id: 'ep_b:3:0', text: expect.stringContaining('Crumb Bakery') });
      expect(Array.from(withVector!.vector!).map((x) => Number(x.toFixed(5)))).toEqual([0, 0, 1, 0]);
    });

    it('stores segments whole and lists them newest first by filter', async () => {
      const [seg] = await index.getSegments(['ep_a_s2']);
      expect(seg).toMatchObject({
        id: 'ep_a_s2',
        episode_id: 'ep_a',
        podcast_id: 'pod_1',
        type: 'TOPIC_DISCUSSION',
        number: 2,
      });
      expect(seg!.lines.map((l) => l.number)).toEqual([2, 3, 4, 5, 6]);
      expect(seg!.lines[0]).toMatchObject({
        speaker: { label: 'SPEAKER_2', name: 'Gus Guest', role: 'GUEST', person_id: 'ent_guest' },
        mentions: ['ent_fed'],
      });
      expect(seg!.clips.map((c) => c.id)).toEqual(['clip_a1', 'clip_a2']);
      expect(ids(await index.filterSegments({ segmentKeys: [['ent_fed']] }, 10, 0))).toEqual([
        'ep_c_s1',
        'ep_a_s2',
      ]);
      expect(ids(await index.filterSegments({ podcastIds: ['pod_1'] }, 2, 1))).toEqual([
        'ep_a_s1',
        'ep_a_s2',
      ]);
      expect(ids(await index.getSegments(['nope', 'ep_b_s2', 'ep_a_s1']))).toEqual(['ep_b_s2', 'ep_a_s1']);
    });

    it('searches clips by vector and lists them best or newest first', async () => {
      const hits = await index.vectorClips(unit(V.sport), {}, 10);
      expect(sorted(ids(hits.slice(0, 2)))).toEqual(['clip_a2', 'clip_b1']);
      expect(ids(hits.slice(2))).toEqual(['clip_a1']);
      expect(ids(await index.listClips({}, 'engagement', 10, 0))).toEqual([
        'clip_b1',
        'clip_a1',
        'clip_c1',
        'clip_a2',
      ]);
      expect(ids(await index.listClips({}, 'engagement', 2, 2))).toEqual(['clip_c1', 'clip_a2']);
      expect(ids(await index.listClips({}, 'recency', 10, 0))).toEqual([
        'clip_c1',
        'clip_b1',
        'clip_a1',
        'clip_a2',
      ]);
      expect(ids(await index.listClips({ clipKeys: [['ent_guest:guest']] }, 'engagement', 10, 0))).toEqual([
        'clip_a1',
        'clip_c1',
      ]);
      expect(ids(await index.listClips({ clipKeys: [['ent_fed:mention']] }, 'engagement', 10, 0))).toEqual([
        'clip_a1',
        'clip_c1',
      ]);
      expect(
        ids(
          await index.listClips(
            { minEngagement: 60, clipTypes: ['INSIGHTFUL', 'FUNNY'] },
            'engagement',
            10,
            0,
          ),
        ),
      ).toEqual(['clip_b1', 'clip_a1', 'clip_c1']);
      expect(
        ids(
          await index.listClips(
            { speakerPersonIds: ['ent_guest'], episodeIds: ['ep_c'] },
            'engagement',
            10,
            0,
          ),
        ),
      ).toEqual(['clip_c1']);
      const [clip] = await index.getClips(['clip_a1']);
      expect(clip).toMatchObject({
        id: 'clip_a1',
        episode_id: 'ep_a',
        type: 'INSIGHTFUL',
        engagement_score: 80,
        segment: { id: 'ep_a_s2', title: 'Segment 2', type: 'TOPIC_DISCUSSION' },
        speaker: { name: 'Gus Guest', role: 'GUEST', person_id: 'ent_guest' },
      });
    });

    it('keeps the newest part per episode and returns stored vectors by key', async () => {
      await index.putParts([
        { episode_id: 'ep_a', part: 'transcript', payload: '{"v":1}' },
        { episode_id: 'ep_a', part: 'segments', payload: '{"v":1}' },
        { episode_id: 'ep_b', part: 'transcript', payload: '{"v":1}' },
      ]);
      await index.putParts([{ episode_id: 'ep_a', part: 'transcript', payload: '{"v":2}' }]);
      const parts = await index.getParts(['ep_a']);
      expect(parts.map((p) => `${p.part}=${p.payload}`).sort()).toEqual([
        'segments={"v":1}',
        'transcript={"v":2}',
      ]);
      const vectors = await index.storedVectors(['ep_a']);
      expect([...vectors.keys()].sort()).toEqual(
        ['clip:clip_a1', 'clip:clip_a2', ...corpus()[0]!.lines.map((l) => `line:${l.text}`)].sort(),
      );
      const v = vectors.get('line:Basis points matter more than you think.')!;
      expect(Array.from(v).map((x) => Number(x.toFixed(5)))).toEqual([1, 0, 0, 0]);
    });

    it('finds names by name, word, prefix and typo, per kind', async () => {
      await index.upsertNames(NAMES);
      await index.refresh();
      const find = async (
        text: string,
        kinds: NameKind[] = ['person', 'company', 'knowledge_graph_entity'],
      ) => (await index.searchNames({ words: text.split(' '), kinds }, 10)).map((h) => h.doc.id);
      expect((await find('nvidia'))[0]).toBe('ent_nvda');
      expect((await find('nvd'))[0]).toBe('ent_nvda');
      expect((await find('musk'))[0]).toBe('ent_musk');
      expect((await find('elon muks'))[0]).toBe('ent_musk');
      expect((await find('federal'))[0]).toBe('ent_fed');
      expect(await find('money', ['podcast'])).toEqual(['pod_1']);
      expect(await find('money')).toEqual([]);
      // Words that start with a letter of several UTF-8 bytes (which folding keeps) are searched
      // like any other (LanceDB panicked on a fuzzy prefix cut inside such a letter).
      expect(await find('ʮǟĝƅ')).toEqual([]);
      expect(await find('ʮabcd ǟxyzq')).toEqual([]);
      // A spacing accent before a Chinese character (NFKD: a space and a combining mark) once
      // left a word that started with the mark, and LanceDB panicked (a 500 found by fuzzing).
      expect(await find('´结db')).toEqual([]);
      expect(await find('\u0301\u0301结db')).toEqual([]);
      // Words mixing letters of different byte lengths, which LanceDB's tokenizer cuts again
      // (fuzzy matches of the pieces may find short names: only the answer matters here).
      await expect(find('Ǒぽ͂亘𠃰ध')).resolves.toBeInstanceOf(Array);
      await expect(find('ۑ͜갡ई')).resolves.toBeInstanceOf(Array);
      // Upserting replaces.
      await index.upsertNames([{ ...NAMES[3]!, names: ['Cash Flow Weekly'] }]);
      await index.refresh();
      expect(await find('money', ['podcast'])).toEqual([]);
      expect(await find('cash', ['podcast'])).toEqual(['pod_1']);
    });

    it('counts episodes per entity key', async () => {
      const counts = await index.countEpisodes(['ent_fed:mention', 'ent_guest', 'ent_crumb', 'nobody']);
      expect(Object.fromEntries(counts)).toEqual({
        'ent_fed:mention': 2,
        ent_guest: 2,
        ent_crumb: 1,
        nobody: 0,
      });
    });

    it('fills vectors after indexing, only into rows that still carry the key they were read with', async () => {
      // ep_c has one passage and one clip without a vector; ep_d is indexed with keys but no vectors
      // yet, as passages: one of its two lines, and one covering both.
      const d = episode('ep_d', {
        podcast: 'pod_2',
        day: 12,
        segments: [
          {
            type: 'TOPIC_DISCUSSION',
            lines: [{ text: 'Sourdough needs patience.' }, { text: 'And flour.' }],
          },
        ],
      });
      d.passages = [
        { ...d.passages[0]!, id: 'ep_d:1:0', number: 1, last_number: 1 },
        {
          ...d.passages[0]!,
          id: 'ep_d:1:1',
          number: 1,
          last_number: 2,
          text: 'Sourdough needs patience. And flour.',
        },
      ];
      d.passages.forEach((p) => {
        p.vector_key = `key:${p.text}`;
      });
      await index.replaceEpisodes([d]);
      await index.refresh();
      expect(await index.vectorBacklog()).toEqual({ passages: 3, clips: 1, embedded: 13, total: 17 });
      expect(sorted(await index.pendingVectorEpisodes(10))).toEqual(['ep_c', 'ep_d']);
      // Newest published first (ep_d day 12, ep_c day 9): fresh episodes before a backfill.
      expect(await index.pendingVectorEpisodes(1)).toEqual(['ep_d']);

      const sources = await index.vectorSources(['ep_d', 'ep_c']);
      expect(
        sources.passages.filter((p) => p.episode_id === 'ep_d').sort((a, b) => (a.id < b.id ? -1 : 1)),
      ).toEqual([
        {
          id: 'ep_d:1:0',
          episode_id: 'ep_d',
          text: 'Sourdough needs patience.',
          vector_key: 'key:Sourdough needs patience.',
          has_vector: false,
        },
        {
          id: 'ep_d:1:1',
          episode_id: 'ep_d',
          text: 'Sourdough needs patience. And flour.',
          vector_key: 'key:Sourdough needs patience. And flour.',
          has_vector: false,
        },
      ]);
      expect(sources.passages.find((p) => p.id === 'ep_c:1:0')).toMatchObject({ has_vector: true });
      expect(sources.clips).toEqual([
        { id: 'clip_c1', episode_id: 'ep_c', text: expect.any(String), vector_key: null, has_vector: false },
      ]);

      const food = unit(V.food);
      // A key that is not the row's (the row was replaced since it was read): nothing is written.
      expect(
        await index.putVectors('passages', [{ id: 'ep_d:1:1', vector_key: 'key:stale', vector: food }]),
      ).toBe(0);
      // A row that no longer exists: nothing is written, nothing is created.
      expect(
        await index.putVectors('passages', [{ id: 'ep_d:9:0', vector_key: 'key:x', vector: food }]),
      ).toBe(0);
      // The row's own key, and a row indexed without a key: written.
      expect(
        await index.putVectors('passages', [
          { id: 'ep_d:1:1', vector_key: 'key:Sourdough needs patience. And flour.', vector: food },
          { id: 'ep_c:2:0', vector_key: 'key:levain', vector: food },
        ]),
      ).toBe(2);
      // A row with a vector keeps it.
      expect(
        await index.putVectors('passages', [
          { id: 'ep_d:1:1', vector_key: 'key:Sourdough needs patience. And flour.', vector: unit(V.sport) },
        ]),
      ).toBe(0);
      expect(await index.putVectors('clips', [{ id: 'clip_c1', vector_key: 'c:1', vector: food }])).toBe(1);
      // An episode leaves the pending list once every passage and clip of it has its vector.
      expect(sorted(await index.pendingVectorEpisodes(10))).toEqual(['ep_c', 'ep_d']);
      await index.settleVectors(['ep_c', 'ep_d']);
      await index.refresh();

      expect(await index.vectorBacklog()).toEqual({ passages: 1, clips: 0, embedded: 16, total: 17 });
      expect(await index.pendingVectorEpisodes(10)).toEqual(['ep_d']);
      // Searchable by vector at once, with the row's filter fields as indexed.
      const near = await index.vectorPassages(
        food,
        { podcastIds: ['pod_2'], publishedFrom: T0 + 12 * DAY },
        10,
      );
      expect(near).toHaveLength(1);
      expect(near[0]).toMatchObject({
        id: 'ep_d:1:1',
        episode_id: 'ep_d',
        segment_id: 'ep_d_s1',
        number: 1,
        last_number: 2,
      });
      expect(near[0]!.score).toBeCloseTo(1, 4);
      expect(ids(near)).not.toContain('ep_d:1:0');
      // Only the vector columns changed: text, filters and keys are as indexed.
      expect(
        ids(await index.keywordLines(parseKeywordQuery('"needs patience"'), { podcastIds: ['pod_2'] }, 10)),
      ).toEqual(['ep_d:1']);
      const stored = await index.storedVectors(['ep_d', 'ep_c']);
      expect(stored.has('key:Sourdough needs patience. And flour.')).toBe(true);
      expect(stored.has('key:levain')).toBe(true);
      expect(ids(await index.vectorClips(food, { podcastIds: ['pod_1'] }, 1))).toEqual(['clip_c1']);
      // The filled vectors carry their rows' entity keys: filtered semantic search finds them.
      expect(
        lineIds(await index.vectorPassages(food, { keys: [['ent_fed'], ['ent_guest:guest']] }, 1)),
      ).toEqual(['ep_c:2']);
      expect(
        ids(await index.vectorClips(food, { clipKeys: [['ent_guest:guest']], segmentIds: ['ep_c_s1'] }, 5)),
      ).toEqual(['clip_c1']);
      expect((await index.stats()).passagesWithVectors).toBe(12);
    });

    it('keeps every line findable by phrase while its vectors are written, and after', async () => {
      // Lines indexed and made searchable, without vectors; then the vector filler's writes.
      const words = ['amber', 'birch', 'cedar', 'delta', 'ember', 'fjord', 'grove', 'harbor'];
      const eps = words.slice(0, 6).map((w, e) =>
        episode(`ep_p${e}`, {
          podcast: 'pod_3',
          day: 20 + e,
          segments: [
            {
              type: 'TOPIC_DISCUSSION',
              lines: words.map((v) => ({ text: `Probe ${w} ${v}: and we are back to the studio.` })),
            },
          ],
        }),
      );
      const lines = eps.flatMap((e) => e.lines);
      const passages = eps.flatMap((e) => e.passages);
      for (const p of passages) p.vector_key = `key:${p.id}`;
      await index.replaceEpisodes(eps);
      await index.refresh();

      const missed: string[] = [];
      let probes = 0;
      const probe = async (when: string) => {
        const all = await index.keywordLines(parseKeywordQuery('"back to the studio"'), {}, 100);
        const found = new Set(ids(all));
        for (const l of lines) if (!found.has(l.id)) missed.push(`${when}: ${l.id} ("back to the studio")`);
        // And one line by the words only it holds, a different line each time.
        const one = lines[(probes++ * 7) % lines.length]!;
        const own = analyzeWords(one.text).slice(1, 3).join(' ');
        if (!ids(await index.keywordLines(parseKeywordQuery(`"${own}"`), {}, 100)).includes(one.id))
          missed.push(`${when}: ${one.id} ("${own}")`);
      };
      await probe('before the vectors');
      const updates = passages.map((p, i) => ({
        id: p.id,
        vector_key: p.vector_key!,
        vector: unit([1, (i % 5) / 5, 0, 0]),
      }));
      // Written in small passes, each probed at once (no refresh), with probes running alongside.
      let writing = true;
      const alongside = (async () => {
        let n = 0;
        while (writing) await probe(`alongside ${n++}`);
      })();
      for (let i = 0; i < updates.length; i += 8) {
        expect(await index.putVectors('passages', updates.slice(i, i + 8))).toBe(
          Math.min(8, updates.length - i),
        );
        await probe(`after pass ${i / 8}`);
      }
      writing = false;
      await alongside;
      await probe('after the vectors');
      await index.refresh();
      await probe('after a refresh');
      expect(missed).toEqual([]);
      // The vectors are there, for semantic search and for the next rebuild.
      expect(
        ids(await index.vectorPassages(unit([1, 0, 0, 0]), { podcastIds: ['pod_3'] }, 100)),
      ).toHaveLength(passages.length);
      const stored = await index.storedVectors(eps.map((e) => e.episode_id));
      expect(passages.every((p) => stored.has(p.vector_key!))).toBe(true);
    });

    it('counts the vector backlog before or after a replacement, never halfway through it', async () => {
      // Episodes with every passage and clip embedded, replayed as they are (a rebuild): the
      // backlog is the same before and after, and a count taken while the batch is written must
      // read it too — not the vectors gone (deleted first) or the rows gone (total falling).
      const eps = ['quartz', 'rivet', 'saffron', 'tundra', 'umber', 'vellum'].map((w, e) =>
        episode(`ep_r${e}`, {
          podcast: 'pod_4',
          day: 30 + e,
          segments: [
            {
              type: 'TOPIC_DISCUSSION',
              lines: [1, 2, 3, 4, 5].map((n) => ({ text: `Count ${w} ${n}.`, v: 'other' as const })),
            },
          ],
          clips: [
            { id: `clip_r${e}`, type: 'HIGHLIGHT', engagement: 0.5, segment: 1, lines: [1, 2], v: 'other' },
          ],
        }),
      );
      await index.replaceEpisodes(eps);
      await index.refresh();
      const before = await index.vectorBacklog();
      expect(before.total).toBeGreaterThanOrEqual(36);

      const readings: Awaited<ReturnType<SearchIndex['vectorBacklog']>>[] = [];
      let done = false;
      const replay = index.replaceEpisodes(eps).finally(() => {
        done = true;
      });
      while (!done) readings.push(await index.vectorBacklog());
      await replay;
      readings.push(await index.vectorBacklog());
      expect(readings.filter((r) => JSON.stringify(r) !== JSON.stringify(before))).toEqual([]);
    });

    it('analyses Devanagari, Arabic, Chinese and Japanese (after digits and Latin too), and accented Latin text as its queries', async () => {
      const lines = [
        'किसान आंदोलन जारी है, सरकार से बातचीत होगी।',
        'قرأتُ الكِتابَ أمس في المكتبة',
        '我住在東京都，工作很忙。',
        '東京都に住んでいます。',
        'Él comió crème brûlée en São Paulo.',
        '2024年に東京でAIのラーメン店を開いた。',
      ];
      await index.replaceEpisodes([
        episode('ep_u', {
          podcast: 'pod_9',
          day: 2,
          segments: [{ type: 'TOPIC_DISCUSSION', lines: lines.map((text) => ({ text })) }],
        }),
      ]);
      await index.upsertNames([
        { id: 'pod_9', kind: 'podcast', names: ['किसान की बात', 'Zoë’s Café'], popularity: 1, record: '{}' },
      ]);
      await index.refresh();
      const find = async (q: string) =>
        sorted(ids(await index.keywordLines(parseKeywordQuery(q), { podcastIds: ['pod_9'] }, 10)));
      // Devanagari: the vowel signs are part of the word, on both sides.
      expect(await find('किसान')).toEqual(['ep_u:1']);
      expect(await find('"किसान आंदोलन"')).toEqual(['ep_u:1']);
      expect(await find('"आंदोलन किसान"')).toEqual([]);
      expect(await find('कसन')).toEqual([]);
      // Arabic: harakat are not part of the word, written or not.
      expect(await find('الكتاب')).toEqual(['ep_u:2']);
      expect(await find('الكِتاب')).toEqual(['ep_u:2']);
      // Chinese and Japanese: a word is the phrase of its characters, wherever it stands.
      expect(await find('"東京"')).toEqual(['ep_u:3', 'ep_u:4', 'ep_u:6']);
      expect(await find('"東京都に"')).toEqual(['ep_u:4']);
      expect(await find('"京東"')).toEqual([]);
      // … after a digit or a Latin letter too, and a word written with the prolonged sound mark.
      expect(await find('"ラーメン"')).toEqual(['ep_u:6']);
      expect(await find('"年に東京"')).toEqual(['ep_u:6']);
      expect(await find('ai')).toEqual(['ep_u:6']);
      expect(await find('2024')).toEqual(['ep_u:6']);
      // Accented Latin: case and accents folded.
      expect(await find('"CREME BRULEE"')).toEqual(['ep_u:5']);
      expect(await find('"são paulo" el')).toEqual(['ep_u:5']);
      const names = async (text: string) =>
        (await index.searchNames({ words: analyzeWords(text), kinds: ['podcast'] }, 10)).map((h) => h.doc.id);
      expect(await names('किसान')).toEqual(['pod_9']);
      expect(await names('zoe cafe')).toEqual(['pod_9']);
    });

    // Last: it empties the index.
    it('keeps its vectors aside through a rebuild, for the model they came from, until dropped', async () => {
      await index.replaceEpisodes(corpus());
      await index.refresh();
      const all = corpus().map((e) => e.episode_id);
      const stored = await index.storedVectors(all);
      const keys = [...stored.keys()];
      const backlog = await index.vectorBacklog();
      expect(keys.length).toBeGreaterThan(5);
      expect(backlog.embedded).toBeGreaterThanOrEqual(keys.length);

      index = await fx.rebuild();
      expect(await index.stats()).toMatchObject({ lines: 0, passages: 0, passagesWithVectors: 0, clips: 0 });
      // Never searched: only a row the rebuild writes brings a vector to search.
      expect(await index.vectorPassages(unit(V.money), {}, 10)).toEqual([]);
      expect(await index.vectorClips(unit(V.money), {}, 10)).toEqual([]);
      const carried = await index.carriedVectors('contract', CONTRACT_DIMENSIONS, [...keys, 'p:not-a-key']);
      expect([...carried.keys()].sort()).toEqual([...keys].sort());
      for (const k of keys) expect([...carried.get(k)!]).toEqual([...stored.get(k)!]);
      expect((await index.carriedVectors('another-model', CONTRACT_DIMENSIONS, keys)).size).toBe(0);
      expect((await index.carriedVectors('contract', CONTRACT_DIMENSIONS + 1, keys)).size).toBe(0);

      // Rebuilt again before any vector was written: the carried vectors stay.
      index = await fx.rebuild();
      expect((await index.carriedVectors('contract', CONTRACT_DIMENSIONS, keys)).size).toBe(keys.length);
      // Rebuilt once more after one episode was written with its vectors: both are kept.
      const [first] = corpus();
      await index.replaceEpisodes([first!]);
      await index.refresh();
      index = await fx.rebuild();
      expect((await index.carriedVectors('contract', CONTRACT_DIMENSIONS, keys)).size).toBe(keys.length);

      expect(await index.dropCarriedVectors()).toBeGreaterThanOrEqual(backlog.embedded);
      expect((await index.carriedVectors('contract', CONTRACT_DIMENSIONS, keys)).size).toBe(0);
      // Dropped means gone: the next rebuild does not bring them back.
      index = await fx.rebuild();
      expect((await index.carriedVectors('contract', CONTRACT_DIMENSIONS, keys)).size).toBe(0);
    });
  });
}
