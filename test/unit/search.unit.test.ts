import { describe, expect, it } from 'vitest';
import { passageLines, repeatsLast, windowsOf } from '../../api/search/dialogue-search.ts';
import {
  AGREEMENT_PAGE,
  fuseHybrid,
  modelReadsQuery,
  type RankedLine,
} from '../../api/search/hybrid-fusion.ts';
import { LOCAL_MODEL_NAMES, modelScripts } from '../../projections/embeddings/local-models.ts';
import { refreshWait } from '../../projections/search/lancedb/lancedb-search-index.ts';
import { matchName } from '../../projections/search/name-match.ts';
import {
  buildPassages,
  estimateTokens,
  OVERLAP_TOKENS,
  PASSAGE_TOKENS,
  passageVectorKey,
} from '../../projections/search/passages.ts';
import { contentWords, coverageOf } from '../../projections/search/query-coverage.ts';
import { reciprocalRankFusion } from '../../projections/search/rrf.ts';
import type { PassageHit, SegmentDoc } from '../../projections/search/search-index.ts';
import { analyze, holdsPhrases, parseKeywordQuery } from '../../projections/search/text-analysis.ts';
import { feedbackQuery } from '../../projections/search/vectors.ts';

describe('keyword query parsing', () => {
  it('splits quoted phrases from free words, with the engines’ analyser', () => {
    expect(parseKeywordQuery('"Quarter-Point" hike "Café NAÏVE" fed')).toEqual({
      phrases: ['quarter point', 'cafe naive'],
      words: ['hike', 'fed'],
    });
    expect(parseKeywordQuery('“curly quotes” too')).toEqual({ phrases: ['curly quotes'], words: ['too'] });
  });

  it('ignores an unclosed quote and empty phrases', () => {
    expect(parseKeywordQuery('a "b c')).toEqual({ phrases: [], words: ['a', 'b', 'c'] });
    expect(parseKeywordQuery('"" "  " x')).toEqual({ phrases: [], words: ['x'] });
  });

  it('folds like Lucene’s ASCII folding and drops overlong tokens', () => {
    expect(analyze('Straße Ærø Łódź don’t')).toEqual(['strasse', 'aero', 'lodz', 'don', 't']);
    expect(analyze(`${'x'.repeat(41)} ok`)).toEqual(['ok']);
  });

  it('never starts a word with a combining mark, before Chinese characters too', () => {
    expect(analyze('´结db')).toEqual(['结', 'db']);
    expect(analyze('\u0301\u0301ж')).toEqual(['ж']);
    expect(analyze('किसान')).toEqual(['किसान']);
  });

  it('makes every Chinese or Japanese character a word, after a digit or a Latin letter too', () => {
    expect(analyze('2024年に東京でAIの話')).toEqual(['2024', '年', 'に', '東', '京', 'で', 'ai', 'の', '話']);
    expect(analyze('iPhone很好')).toEqual(['iphone', '很', '好']);
    // The kana's prolonged sound mark and Han's iteration mark are characters of their scripts.
    expect(analyze('ラーメン 人々')).toEqual(['ラ', 'ー', 'メ', 'ン', '人', '々']);
    // Half-width katakana is read as full-width; CJK punctuation is not a word.
    expect(analyze('ｶﾞｲﾄﾞ、「東京」。')).toEqual(['ガ', 'イ', 'ド', '東', '京']);
    // Hangul is written with spaces: its words stay whole.
    expect(analyze('서울에서 2024년에')).toEqual(['서울에서', '2024년에']);
  });
});

describe('reciprocal rank fusion', () => {
  it('sums 1 / (60 + rank) over the lists, ties broken by best rank then id', () => {
    const fused = reciprocalRankFusion(
      [
        ['a', 'b', 'c'],
        ['c', 'd', 'a'],
      ],
      (x) => x,
    );
    expect(fused.map((f) => f.item)).toEqual(['a', 'c', 'b', 'd']);
    expect(fused[0]!.score).toBeCloseTo(1 / 61 + 1 / 63, 10);
    expect(fused[0]!.ranks).toEqual([1, 3]);
    expect(fused[2]!.ranks).toEqual([2, undefined]);
  });

  it('scales each item by its weight in its list', () => {
    // b holds a fifth of the query: its first place counts a fifth, below d's second place.
    const weight = (x: string, list: number) => (list === 0 && x === 'b' ? 0.2 : 1);
    const fused = reciprocalRankFusion(
      [
        ['b', 'a'],
        ['c', 'd'],
      ],
      (x) => x,
      60,
      undefined,
      weight,
    );
    expect(fused.map((f) => f.item)).toEqual(['c', 'a', 'd', 'b']);
    expect(fused.at(-1)!.score).toBeCloseTo(0.2 / 61, 10);
  });
});

describe('hybrid keyword weights', () => {
  it('is the share of the query’s distinct content words, free or quoted, that a line holds', () => {
    const q = parseKeywordQuery('athlete moving to a new team');
    // "to" and "a" are function words: the coach line holds one of athlete, moving, new, team.
    expect(coverageOf(q)('the new head coach wants to play a high press')).toBeCloseTo(1 / 4, 10);
    expect(coverageOf(q)('our star athlete is moving to a new team')).toBe(1);
    expect(coverageOf(parseKeywordQuery('"quarter point" hike'))('a quarter point hike')).toBe(1);
    expect(coverageOf(parseKeywordQuery('"quarter point" hike'))('a quarter point')).toBeCloseTo(2 / 3, 10);
    expect(coverageOf(q)('')).toBe(0);
  });

  it('leaves out the function words of the one language whose list holds most of the query', () => {
    const words = (text: string) => contentWords(parseKeywordQuery(text).words);
    expect(words('property too expensive for young families')).toEqual([
      'property',
      'expensive',
      'young',
      'families',
    ]);
    // English wins: German's "war" and Dutch's "van" stay content words in an English question.
    expect(words('the war in the van')).toEqual(['war', 'van']);
    expect(words('la banque centrale augmente les taux')).toEqual(['banque', 'centrale', 'augmente', 'taux']);
    // Lists go through the analyser: "für" is folded to "fur" on both sides.
    expect(words('die Zinsen für Kredite')).toEqual(['zinsen', 'kredite']);
    // No list holds a word: all kept; only function words: all kept.
    expect(words('Notenbank Leitzinsen')).toEqual(['notenbank', 'leitzinsen']);
    expect(words('to be or')).toEqual(['to', 'be', 'or']);
  });
});

/** A ranked line for the fusion cases: a keyword hit with its words, or a semantic one. */
const line = (id: string, rank: number, terms?: string): RankedLine => ({
  id,
  segment_id: `seg-${id}`,
  episode_id: 'ep',
  number: rank,
  published_at: 0,
  score: 1 / rank,
  rank,
  ...(terms !== undefined ? { terms } : {}),
});
const order = (fused: { hit: RankedLine }[]) => fused.map((f) => f.hit.id);

describe('hybrid fusion', () => {
  const semantic = (ids: string[]) => ids.map((id, i) => line(id, i + 1));

  it('ranks the lines holding every quoted phrase first, scores in rank order', () => {
    const q = parseKeywordQuery('"opening weekend"');
    expect(holdsPhrases(q, 'a record opening weekend for the film')).toBe(true);
    expect(holdsPhrases(q, 'the weekend opening')).toBe(false);
    const keyword = ['k1', 'k2', 'k3'].map((id, i) => line(id, i + 1, 'its opening weekend was huge'));
    // Semantic search ranks lines about the cinema first, two phrase lines further down, not k2.
    const fused = fuseHybrid(q, keyword, semantic(['s1', 's2', 's3', 'k3', 's4', 'k1']));
    expect(order(fused).slice(0, 3)).toEqual(['k1', 'k3', 'k2']);
    expect(order(fused).slice(3)).toEqual(['s1', 's2', 's3', 's4']);
    const scores = fused.map((f) => f.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('drops the keyword ranking when no line of semantic search’s first page is a keyword hit', () => {
    const q = parseKeywordQuery('athlete moving to a new team');
    // The keyword hits share "to a new" with the query; semantic search has two of them, low.
    const keyword = ['h1', 'h2', 'h3'].map((id, i) =>
      line(id, i + 1, 'the new head coach wants to play a high press'),
    );
    const sem = semantic([...Array.from({ length: AGREEMENT_PAGE }, (_, i) => `s${i + 1}`), 'h1', 'h2']);
    const fused = order(fuseHybrid(q, keyword, sem));
    expect(fused.slice(0, AGREEMENT_PAGE + 2)).toEqual(sem.map((l) => l.id));
    expect(fused.at(-1)).toBe('h3');
  });

  it('drops the keyword ranking when the two meet only below keyword search’s first page', () => {
    const q = parseKeywordQuery('property too expensive for young families');
    // Every keyword hit is about childcare that is "too expensive for families"; semantic search
    // ranks the last of them on its first page, below nine lines about housing.
    const keyword = Array.from({ length: AGREEMENT_PAGE + 2 }, (_, i) =>
      line(`k${i + 1}`, i + 1, 'childcare is too expensive for families'),
    );
    const sem = semantic([...Array.from({ length: AGREEMENT_PAGE - 1 }, (_, i) => `s${i + 1}`), 'k12']);
    expect(order(fuseHybrid(q, keyword, sem)).slice(0, AGREEMENT_PAGE)).toEqual(sem.map((l) => l.id));
    // The same line on keyword search's first page: the two meet, and it rises.
    const met = semantic([...Array.from({ length: AGREEMENT_PAGE - 1 }, (_, i) => `s${i + 1}`), 'k2']);
    expect(order(fuseHybrid(q, keyword, met))[0]).toBe('k2');
  });

  it('counts keyword lines by their coverage once the two searches meet', () => {
    const q = parseKeywordQuery('athlete moving to a new team');
    const keyword = [line('h1', 1, 'the athlete is moving to a new team'), line('h2', 2, 'a new fab')];
    // h1 is on semantic search's first page too: the searches meet, and the line holding the whole query rises.
    const sem = semantic(['s1', 's2', 'h1', ...Array.from({ length: 20 }, (_, i) => `t${i}`), 'h2']);
    const fused = order(fuseHybrid(q, keyword, sem));
    expect(fused[0]).toBe('h1');
    // h2 holds a third of the query: 1/3 of its first place plus its semantic place.
    expect(fused.indexOf('h2')).toBeLessThan(fused.indexOf('t19'));
  });
});

describe('hybrid search and the scripts the model reads', () => {
  it('tells a query the English models read from one they do not', () => {
    for (const name of LOCAL_MODEL_NAMES) expect(modelScripts(name)).toEqual(['Latin']);
    const english = modelScripts('all-MiniLM-L6-v2-int8');
    expect(modelReadsQuery(english, parseKeywordQuery('interest rates "Café NAÏVE"'))).toBe(true);
    expect(modelReadsQuery(english, parseKeywordQuery('2024 10%'))).toBe(true);
    expect(modelReadsQuery(english, parseKeywordQuery('किसान आंदोलन'))).toBe(false);
    expect(modelReadsQuery(english, parseKeywordQuery('"أسعار الفائدة"'))).toBe(false);
    expect(modelReadsQuery(english, parseKeywordQuery('利率 上调'))).toBe(false);
    // An endpoint's model (not in the table): any script.
    expect(modelScripts('text-embedding-3-small')).toBeUndefined();
    expect(modelReadsQuery(undefined, parseKeywordQuery('किसान'))).toBe(true);
  });

  it('keeps the keyword ranking, and puts semantic-only lines after it, when the model cannot read the query', () => {
    const q = parseKeywordQuery('किसान आंदोलन');
    const keyword = [line('k1', 1, 'किसान आंदोलन'), line('k2', 2, 'किसान')];
    // The two searches do not meet on semantic search's first page.
    const sem = Array.from({ length: AGREEMENT_PAGE + 1 }, (_, i) => line(`s${i + 1}`, i + 1));
    expect(order(fuseHybrid(q, keyword, [...sem, line('k2', 12)], { semanticReadsQuery: false }))).toEqual([
      'k1',
      'k2',
      ...sem.map((l) => l.id),
    ]);
    // A model that reads it: no agreement, so semantic order first, the keyword lines last.
    expect(order(fuseHybrid(q, keyword, [...sem, line('k2', 12)])).slice(0, 3)).toEqual(['s1', 's2', 's3']);
    // Keyword search's own order, not reweighed by coverage: its first line holds half the query.
    const own = [line('k1', 1, 'किसान'), line('k2', 2, 'किसान आंदोलन')];
    expect(order(fuseHybrid(q, own, sem, { semanticReadsQuery: false })).slice(0, 2)).toEqual(['k1', 'k2']);
  });
});

describe('name matching', () => {
  const nvidia = [
    { field: 'name' as const, value: 'Nvidia' },
    { field: 'ticker' as const, value: 'NVDA' },
    { field: 'handle' as const, value: '@nvidia' },
    { field: 'domain' as const, value: 'nvidia.com' },
    { field: 'alias' as const, value: 'NVIDIA Corporation' },
  ];
  it('grades exact, prefix, partial and fuzzy matches', () => {
    expect(matchName('nvidia', nvidia)).toMatchObject({ quality: 'exact', field: 'name' });
    expect(matchName('$NVDA', nvidia)).toMatchObject({ quality: 'exact', field: 'ticker' });
    expect(matchName('@nvidia', nvidia)).toMatchObject({ quality: 'exact', field: 'name' });
    expect(matchName('https://www.nvidia.com/', nvidia)).toMatchObject({ quality: 'exact', field: 'domain' });
    expect(matchName('nvid', nvidia)).toMatchObject({ quality: 'prefix', field: 'name' });
    expect(matchName('corporation', nvidia)).toMatchObject({ quality: 'partial', field: 'alias' });
    expect(matchName('nvidai', nvidia)).toMatchObject({ quality: 'fuzzy' });
    expect(matchName('intel', nvidia)).toBeUndefined();
  });
});

describe('passages', () => {
  const sentence = (i: number) => `Sentence number ${i} talks about the harvest and the rain in the valley.`;

  it('lets short lines share a passage and keeps every line of the segment', () => {
    const lines = [
      { number: 1, text: 'Welcome back.' },
      { number: 2, text: 'Thanks for having me.' },
      { number: 3, text: 'So, the harvest.' },
    ];
    const passages = buildPassages(lines);
    const passage = (number: number, last_number: number, part: number, text: string) => ({
      number,
      last_number,
      part,
      text,
      tokens: estimateTokens(text),
    });
    expect(passages).toEqual([
      passage(1, 3, 0, 'Welcome back. Thanks for having me. So, the harvest.'),
      // Each line that shares a passage is also a passage of its own.
      passage(1, 1, 1, 'Welcome back.'),
      passage(2, 2, 0, 'Thanks for having me.'),
      passage(3, 3, 0, 'So, the harvest.'),
    ]);
  });

  it('cuts a long turn on sentence boundaries into passages under the limit, with overlap', () => {
    const long = Array.from({ length: 120 }, (_, i) => sentence(i)).join(' ');
    const passages = buildPassages([
      { number: 7, text: 'Tell me about the valley.' },
      { number: 8, text: long },
      { number: 9, text: 'Fascinating.' },
    ]);
    expect(passages.length).toBeGreaterThan(10);
    for (const p of passages) expect(p.tokens).toBeLessThanOrEqual(PASSAGE_TOKENS);
    // Every sentence is in some passage, whole; the last one of the turn too.
    for (let i = 0; i < 120; i++) expect(passages.some((p) => p.text.includes(sentence(i)))).toBe(true);
    // Consecutive passages overlap by whole sentences, at most OVERLAP_TOKENS of them.
    const [a, b] = [passages[1]!, passages[2]!];
    const shared = b.text.split(/(?<=\.) /).filter((s) => a.text.includes(s));
    expect(shared.length).toBeGreaterThan(0);
    expect(a.text.endsWith(shared.join(' '))).toBe(true);
    expect(b.text.startsWith(shared.join(' '))).toBe(true);
    expect(estimateTokens(shared.join(' '))).toBeLessThanOrEqual(OVERLAP_TOKENS);
    // Passages name the lines they cover; those starting in one line are numbered in order.
    expect(passages[0]).toMatchObject({ number: 7, last_number: 8, part: 0 });
    expect(passages.filter((p) => p.number === 8).map((p) => p.part)).toEqual(
      passages.filter((p) => p.number === 8).map((_, i) => i),
    );
    expect(passages.at(-1)).toMatchObject({ last_number: 9 });
    expect(passages.at(-1)!.text.endsWith('Fascinating.')).toBe(true);
  });

  it('cuts a sentence longer than a passage between words, and counts every script', () => {
    const endless = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    const passages = buildPassages([{ number: 1, text: endless }]);
    expect(passages.length).toBeGreaterThan(2);
    for (const p of passages) expect(p.tokens).toBeLessThanOrEqual(PASSAGE_TOKENS);
    expect(passages.at(-1)!.text.endsWith('word399')).toBe(true);
    expect(estimateTokens('किसान आंदोलन')).toBeGreaterThan(0);
    expect(estimateTokens('東京都')).toBe(3);
    expect(estimateTokens('')).toBe(0);
    expect(buildPassages([{ number: 1, text: '   ' }])).toEqual([]);
  });

  it('shows a hit on a passage of several lines as the lines whose own passage is a hit too', () => {
    const hit = (number: number, last_number: number, score: number): PassageHit => ({
      id: `e1:${number}:${last_number}`,
      segment_id: 's1',
      episode_id: 'e1',
      number,
      last_number,
      published_at: 0,
      score,
    });
    const shown = (hits: PassageHit[]) => passageLines(hits).map((l) => [l.number, l.rank]);
    // Lines 1-8 hit first; of them, 5 and 3 rank on their own (5 better): only they are shown in
    // context; line 12 comes on its own; line 5 is not shown twice. Fused with the lines' own
    // ranking (5, 12, 3), 5 stays first and 3 keeps second by a hair.
    expect(shown([hit(1, 8, 0.7), hit(5, 5, 0.6), hit(12, 12, 0.5), hit(3, 3, 0.4)])).toEqual([
      [5, 1],
      [3, 2],
      [12, 3],
    ]);
    // No line of the passage ranks on its own: the meaning is in the lines together, and they are
    // all shown — after line 9, which says it by itself.
    expect(shown([hit(1, 3, 0.7), hit(9, 9, 0.5)])).toEqual([
      [9, 1],
      [1, 2],
      [2, 3],
      [3, 4],
    ]);
    // A score is the best cosine of a passage showing the line.
    expect(passageLines([hit(1, 3, 0.7), hit(9, 9, 0.5)]).map((l) => l.score)).toEqual([0.5, 0.7, 0.7, 0.7]);
  });

  it('ranks the repeats of a passage text after every distinct one', () => {
    const hit = (n: number, key: string | null): PassageHit => ({
      id: `e${n}:1:0`,
      segment_id: `s${n}`,
      episode_id: `e${n}`,
      number: 1,
      last_number: 1,
      published_at: 0,
      score: 1 - n / 10,
      vector_key: key,
    });
    const order = (hits: PassageHit[]) => repeatsLast(hits).map((h) => h.episode_id);
    // The same line in three episodes: its first showing keeps its place, the copies follow the
    // distinct passages in their order.
    expect(
      order([
        hit(1, 'k:heating'),
        hit(2, 'k:heating'),
        hit(3, 'k:heat'),
        hit(4, 'k:heating'),
        hit(5, 'k:grid'),
      ]),
    ).toEqual(['e1', 'e3', 'e5', 'e2', 'e4']);
    // Passages without a key are never taken for repeats.
    expect(order([hit(1, null), hit(2, null), hit(3, 'k:a')])).toEqual(['e1', 'e2', 'e3']);
  });

  it('keys a passage by its text and the recipe', () => {
    expect(passageVectorKey('a b')).toBe(passageVectorKey('a b'));
    expect(passageVectorKey('a b')).not.toBe(passageVectorKey('a c'));
  });
});

describe('feedback', () => {
  it('moves the query towards the feedback', () => {
    expect(Array.from(feedbackQuery(Float32Array.from([1, 0]), [Float32Array.from([0, 1])]))).toEqual([
      1, 0.30000001192092896,
    ]);
  });
});

describe('result windows', () => {
  const seg = {
    lines: Array.from({ length: 20 }, (_, i) => ({
      number: i + 1,
      speaker: { label: 'SPEAKER_1', name: 'Ann', role: 'HOST', person_id: 'p' },
      start_seconds: i * 10,
      end_seconds: i * 10 + 9,
      text: `line ${i + 1}`,
      mentions: i === 4 ? ['ent_x'] : [],
    })),
  } as unknown as SegmentDoc;

  it('puts two lines of context around matches, merges overlaps and previews the best', () => {
    const windows = windowsOf(
      seg,
      new Map([
        [5, 0.9],
        [7, 0.5],
        [15, 0.95],
      ]),
      'ent_x',
    );
    expect(windows.map((w) => w.lines.map((l) => l.number))).toEqual([
      [3, 4, 5, 6, 7, 8, 9],
      [13, 14, 15, 16, 17],
    ]);
    expect(windows.map((w) => w.is_preview)).toEqual([false, true]);
    expect(windows[0]!.lines.filter((l) => l.is_match).map((l) => l.number)).toEqual([5, 7]);
    expect(windows[0]!.lines.filter((l) => l.is_mention).map((l) => l.number)).toEqual([5]);
    expect(windows[0]).toMatchObject({ start_seconds: 20, end_seconds: 89 });
  });

  it('shows the opening lines when nothing matched', () => {
    const [w] = windowsOf(seg, new Map());
    expect(w!.lines.map((l) => l.number)).toEqual([1, 2, 3, 4, 5]);
    expect(w!.is_preview).toBe(true);
  });
});

describe('LanceDB refresh scheduling', () => {
  const base = { now: 100_000, intervalMs: 30_000, delayMs: 1_000 };

  it('waits for quiet after writes, at most one refresh per interval while refreshes are quick', () => {
    expect(refreshWait({ ...base, lastRefreshAt: 0, lastRefreshMs: 0 })).toBe(1_000);
    expect(refreshWait({ ...base, lastRefreshAt: 90_000, lastRefreshMs: 2_000 })).toBe(20_000);
  });

  it('stretches the pause to three times a slow refresh, so writers keep most of the time', () => {
    // A two-minute refresh that ended 10 s ago: the next one starts 6 minutes after it ended.
    expect(refreshWait({ ...base, lastRefreshAt: 90_000, lastRefreshMs: 120_000 })).toBe(350_000);
    // Once that pause has passed, only the quiet time is left.
    expect(refreshWait({ ...base, now: 500_000, lastRefreshAt: 90_000, lastRefreshMs: 120_000 })).toBe(1_000);
  });
});
