import { setTimeout as sleep } from 'node:timers/promises';
import { type Dispatcher, request } from 'undici';
import { type EmbeddingsPort, l2Normalise } from './embeddings-port.ts';

export interface OpenAiEmbeddingsOptions {
  /** Base URL of an OpenAI-compatible server; `/v1/embeddings` is appended. */
  url: string;
  model: string;
  apiKey?: string;
  /** Vector size; when omitted, `open` asks the server once to learn it. */
  dimensions?: number;
  /** Most inputs per request (default 64). */
  batchSize?: number;
  /**
   * Requests in flight at once when a call holds more than one batch (default 1). A GPU server
   * batches what arrives together, so a few requests in flight keep it busy while each answer
   * travels back.
   */
  concurrency?: number;
  /** Per request, headers and body together. */
  timeoutMs?: number;
  /** Further attempts after a 429, a 5xx, a timeout or a network error. */
  maxRetries?: number;
  /** First backoff delay; doubles each retry, with jitter. */
  retryBaseMs?: number;
  /** Longest backoff; a Retry-After beyond it fails the call instead of waiting. */
  retryMaxMs?: number;
  dispatcher?: Dispatcher;
}

export class EmbeddingsHttpError extends Error {
  override name = 'EmbeddingsHttpError';
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

interface EmbeddingsResponse {
  data?: Array<{ embedding?: unknown; index?: unknown }>;
}

/** Embeddings from an OpenAI-compatible `POST /v1/embeddings` endpoint. */
export class OpenAiEmbeddings implements EmbeddingsPort {
  readonly model: string;
  readonly #endpoint: string;
  readonly #options: OpenAiEmbeddingsOptions;
  #dimensions: number | undefined;
  #closed = false;

  constructor(options: OpenAiEmbeddingsOptions) {
    this.model = options.model;
    this.#options = options;
    this.#dimensions = options.dimensions;
    const base = options.url.replace(/\/+$/, '');
    this.#endpoint = base.endsWith('/v1') ? `${base}/embeddings` : `${base}/v1/embeddings`;
  }

  /** Creates the adapter; without configured dimensions, one probe request learns them. */
  static async open(options: OpenAiEmbeddingsOptions): Promise<OpenAiEmbeddings> {
    const port = new OpenAiEmbeddings(options);
    if (port.#dimensions === undefined) await port.embed(['dimension probe']);
    return port;
  }

  get dimensions(): number {
    if (this.#dimensions === undefined) {
      throw new Error('dimensions unknown until the first embed; use open()');
    }
    return this.#dimensions;
  }

  get endpoint(): string {
    return this.#endpoint;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (this.#closed) throw new Error('embeddings port is closed');
    const batchSize = this.#options.batchSize ?? 64;
    const batches: string[][] = [];
    for (let i = 0; i < texts.length; i += batchSize) batches.push(texts.slice(i, i + batchSize));
    const results = new Array<Float32Array[]>(batches.length);
    let next = 0;
    // Each lane takes the next batch until none is left; answers keep their batch's place.
    const lane = async () => {
      while (next < batches.length) {
        const i = next++;
        results[i] = await this.#withRetries(batches[i]!);
      }
    };
    const lanes = Math.max(1, Math.min(this.#options.concurrency ?? 1, batches.length));
    await Promise.all(Array.from({ length: lanes }, lane));
    return results.flat();
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  async #withRetries(input: string[]): Promise<Float32Array[]> {
    const maxRetries = this.#options.maxRetries ?? 4;
    const base = this.#options.retryBaseMs ?? 500;
    const cap = this.#options.retryMaxMs ?? 30_000;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#post(input);
      } catch (err) {
        if (!(err instanceof EmbeddingsHttpError) || !err.retryable || attempt >= maxRetries) throw err;
        // A server asking for a longer pause than we are willing to wait gets no early retry.
        if (err.retryAfterMs !== undefined && err.retryAfterMs > cap) throw err;
        const backoff = Math.min(cap, base * 2 ** attempt * (0.5 + Math.random() / 2));
        await sleep(err.retryAfterMs ?? backoff);
      }
    }
  }

  async #post(input: string[]): Promise<Float32Array[]> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (this.#options.apiKey) headers['authorization'] = `Bearer ${this.#options.apiKey}`;
    const timeoutMs = this.#options.timeoutMs ?? 30_000;
    let res: Dispatcher.ResponseData;
    let text: string;
    try {
      res = await request(this.#endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.model, input }),
        signal: AbortSignal.timeout(timeoutMs),
        ...(this.#options.dispatcher ? { dispatcher: this.#options.dispatcher } : {}),
      });
      text = await res.body.text();
    } catch (err) {
      const why =
        err instanceof Error && err.name === 'TimeoutError'
          ? `timed out after ${timeoutMs} ms`
          : errText(err);
      throw new EmbeddingsHttpError(`POST ${this.#endpoint}: ${why}`, undefined, true);
    }
    const status = res.statusCode;
    if (status !== 200) {
      const retryable = status === 408 || status === 429 || status >= 500;
      throw new EmbeddingsHttpError(
        `POST ${this.#endpoint}: HTTP ${status}: ${text.slice(0, 300)}`,
        status,
        retryable,
        retryable ? parseRetryAfter(res.headers['retry-after']) : undefined,
      );
    }
    return this.#parse(text, input.length);
  }

  #parse(text: string, expected: number): Float32Array[] {
    const fail = (why: string) => new EmbeddingsHttpError(`POST ${this.#endpoint}: ${why}`, 200, false);
    let body: EmbeddingsResponse;
    try {
      body = JSON.parse(text) as EmbeddingsResponse;
    } catch {
      throw fail('response is not JSON');
    }
    if (!Array.isArray(body.data) || body.data.length !== expected) {
      throw fail(
        `expected ${expected} embeddings, got ${Array.isArray(body.data) ? body.data.length : 'none'}`,
      );
    }
    const out = new Array<Float32Array>(expected);
    for (const [position, item] of body.data.entries()) {
      const index = typeof item.index === 'number' ? item.index : position;
      const embedding = item.embedding;
      if (!Number.isInteger(index) || index < 0 || index >= expected || out[index]) {
        throw fail(`bad or repeated index ${String(item.index)}`);
      }
      if (!Array.isArray(embedding) || embedding.length === 0 || !embedding.every(Number.isFinite)) {
        throw fail(`embedding ${index} is not an array of numbers`);
      }
      this.#dimensions ??= embedding.length;
      if (embedding.length !== this.#dimensions) {
        throw fail(`embedding ${index} has ${embedding.length} dimensions, expected ${this.#dimensions}`);
      }
      out[index] = l2Normalise(Float32Array.from(embedding as number[]));
    }
    return out;
  }
}

/** Retry-After as delay-seconds or an HTTP date, in milliseconds. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(raw)) return Math.round(Number(raw) * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function errText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as NodeJS.ErrnoException).code;
  return code && !err.message.includes(code) ? `${err.message} (${code})` : err.message;
}
