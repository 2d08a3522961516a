import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fetchModel } from '../../projections/embeddings/model-fetch.ts';
import { OnnxEmbeddings } from '../../projections/embeddings/onnx-embeddings.ts';
import {
  EmbeddingsHttpError,
  OpenAiEmbeddings,
  type OpenAiEmbeddingsOptions,
  parseRetryAfter,
} from '../../projections/embeddings/openai-embeddings.ts';
import { openEmbeddings } from '../support/open-embeddings.ts';

const modelsDir = process.env['EARSHOT_TEST_MODELS_DIR'] || path.join(tmpdir(), 'earshot-test-models');

const LINES = [
  'the Fed hiked interest rates again',
  'central bank raising interest rates',
  'my dog loves playing fetch in the park',
  'This episode is brought to you by a mattress company.',
  'We will be right back after the break.',
  'The senator said the bill would not pass this session.',
  '',
  'Shares of the chipmaker jumped eight percent in after-hours trading.',
];

/** What the server does with the next request instead of answering normally. */
type Scripted =
  | { status: number; headers?: Record<string, string>; body?: string }
  | { delayMs: number }
  | { reverse: true; scale: number }
  | { dropOne: true };

interface Seen {
  headers: IncomingHttpHeaders;
  url: string;
  body: { model: string; input: string[] };
}

let local: OnnxEmbeddings;
let server: Server;
let url: string;
let script: Scripted[];
let seen: Seen[];
/** Requests the server is answering now, and the most at once. */
let inFlight = 0;
let maxInFlight = 0;

// An OpenAI-compatible embeddings server backed by the real local model.
beforeAll(async () => {
  // The fp32 export: its vectors do not depend on what a text is batched with (the int8 export's
  // dynamic quantization scales activations per call), so the adapter's answers compare exactly.
  const { dir } = await fetchModel({ modelsDir, model: 'all-MiniLM-L6-v2' });
  local = await OnnxEmbeddings.open({ modelDir: dir });
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    seen.push({ headers: req.headers, url: req.url ?? '', body });
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      inFlight--;
      if (!res.destroyed) res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
    };
    if (req.method !== 'POST' || req.url !== '/v1/embeddings')
      return send(404, { error: { message: 'no route' } });
    if (body.model !== 'all-MiniLM-L6-v2')
      return send(404, { error: { message: `model ${body.model} not found` } });

    const step = script.shift();
    if (step && 'status' in step)
      return send(step.status, step.body ?? { error: { message: 'scripted' } }, step.headers);
    if (step && 'delayMs' in step) {
      await new Promise((resolve) => setTimeout(resolve, step.delayMs));
      // The client gave up waiting; nothing to answer.
      if (res.destroyed) {
        inFlight--;
        return;
      }
    }
    const vectors = await local.embed(body.input);
    let data = vectors.map((v, index) => ({ object: 'embedding', index, embedding: Array.from(v) }));
    if (step && 'reverse' in step) {
      data = data.reverse().map((d) => ({ ...d, embedding: d.embedding.map((x) => x * step.scale) }));
    }
    if (step && 'dropOne' in step) data = data.slice(1);
    send(200, { object: 'list', model: body.model, data, usage: { prompt_tokens: 0, total_tokens: 0 } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 600_000);

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await local?.close();
});

beforeEach(() => {
  script = [];
  seen = [];
  inFlight = 0;
  maxInFlight = 0;
});

function client(options: Partial<OpenAiEmbeddingsOptions> = {}): OpenAiEmbeddings {
  return new OpenAiEmbeddings({
    url,
    model: 'all-MiniLM-L6-v2',
    dimensions: 384,
    retryBaseMs: 20,
    ...options,
  });
}

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  return a.reduce((max, x, i) => Math.max(max, Math.abs(x - b[i]!)), 0);
}

async function expectLocalVectors(got: Float32Array[], texts: string[]) {
  const expected = await local.embed(texts);
  expect(got).toHaveLength(texts.length);
  got.forEach((v, i) => {
    expect(v).toHaveLength(384);
    expect(maxAbsDiff(v, expected[i]!)).toBeLessThan(1e-6);
  });
}

describe('OpenAI-compatible embeddings adapter', () => {
  it('returns the same vectors as the local model, batched and in order', async () => {
    const port = client({ batchSize: 3, apiKey: 'sk-test' });
    const vectors = await port.embed(LINES);
    await expectLocalVectors(vectors, LINES);
    expect(seen.map((s) => s.body.input)).toEqual([LINES.slice(0, 3), LINES.slice(3, 6), LINES.slice(6)]);
    expect(seen[0]!.headers['authorization']).toBe('Bearer sk-test');
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(seen[0]!.body.model).toBe('all-MiniLM-L6-v2');
  });

  it('keeps `concurrency` requests in flight for a long call, answers in input order', async () => {
    const texts = [...LINES, ...LINES.map((l) => `${l} again`)];
    // Slow answers, so the requests overlap when the client sends them together.
    script = Array.from({ length: 8 }, () => ({ delayMs: 150 }));
    const got = await client({ batchSize: 2, concurrency: 3 }).embed(texts);
    expect(seen).toHaveLength(8);
    expect(maxInFlight).toBe(3);
    await expectLocalVectors(got, texts);
    // One at a time by default.
    seen = [];
    maxInFlight = 0;
    script = Array.from({ length: 4 }, () => ({ delayMs: 50 }));
    await expectLocalVectors(await client({ batchSize: 2 }).embed(LINES), LINES);
    expect(seen).toHaveLength(4);
    expect(maxInFlight).toBe(1);
  });

  it('puts vectors in input order by their index and normalises them', async () => {
    script = [{ reverse: true, scale: 3 }];
    await expectLocalVectors(await client().embed(LINES.slice(0, 5)), LINES.slice(0, 5));
  });

  it('waits as long as Retry-After says after a 429', async () => {
    script = [{ status: 429, headers: { 'retry-after': '1' } }];
    const started = Date.now();
    const vectors = await client({ retryBaseMs: 1 }).embed(LINES.slice(0, 2));
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(seen).toHaveLength(2);
    await expectLocalVectors(vectors, LINES.slice(0, 2));
  });

  it('retries 5xx answers with backoff until one succeeds', async () => {
    script = [{ status: 503 }, { status: 502 }];
    await expectLocalVectors(await client().embed(['hello there']), ['hello there']);
    expect(seen).toHaveLength(3);
  });

  it('gives up after maxRetries and reports the last status', async () => {
    script = [{ status: 500 }, { status: 500 }, { status: 503, body: 'overloaded' }];
    const error = await client({ maxRetries: 2 })
      .embed(['x'])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddingsHttpError);
    expect(error).toMatchObject({ status: 503, message: expect.stringContaining('overloaded') });
    expect(seen).toHaveLength(3);
  });

  it('does not retry a client error', async () => {
    script = [{ status: 400, body: '{"error":{"message":"input too long"}}' }];
    const error = await client()
      .embed(['x'])
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      status: 400,
      retryable: false,
      message: expect.stringContaining('input too long'),
    });
    expect(seen).toHaveLength(1);
  });

  it('fails at once when Retry-After asks for longer than it will wait', async () => {
    script = [{ status: 429, headers: { 'retry-after': '120' } }];
    const started = Date.now();
    await expect(client({ retryMaxMs: 5_000 }).embed(['x'])).rejects.toMatchObject({ status: 429 });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(seen).toHaveLength(1);
  });

  it('times out a slow request and retries it', async () => {
    script = [{ delayMs: 1_500 }];
    const started = Date.now();
    const vectors = await client({ timeoutMs: 300 }).embed(['slow start']);
    await expectLocalVectors(vectors, ['slow start']);
    expect(seen).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('rejects a response with the wrong number of embeddings', async () => {
    script = [{ dropOne: true }];
    await expect(client().embed(LINES.slice(0, 3))).rejects.toThrow(/expected 3 embeddings, got 2/);
    expect(seen).toHaveLength(1);
  });

  it('accepts a base URL that already ends in /v1', async () => {
    const port = client({ url: `${url}/v1/` });
    expect(port.endpoint).toBe(`${url}/v1/embeddings`);
    await expectLocalVectors(await port.embed(['x']), ['x']);
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('2', now)).toBe(2_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('openEmbeddings with an embeddings server configured', () => {
  it('prefers the server and learns the vector size from it', async () => {
    const opened = await openEmbeddings({ url, modelsDir: path.join(tmpdir(), 'earshot-no-models-here') });
    expect(opened.availability).toEqual({ available: true, model: 'all-MiniLM-L6-v2', dimensions: 384 });
    expect(opened.port).toBeInstanceOf(OpenAiEmbeddings);
    await expectLocalVectors(await opened.port!.embed(LINES.slice(0, 3)), LINES.slice(0, 3));
    await opened.port!.close();
  });

  it('reports a server that does not know the model as unavailable', async () => {
    const opened = await openEmbeddings({ url, model: 'text-embedding-3-small', modelsDir, maxRetries: 0 });
    expect(opened.port).toBeUndefined();
    expect(opened.availability).toMatchObject({
      available: false,
      reason: expect.stringContaining('model text-embedding-3-small not found'),
    });
  });
});
