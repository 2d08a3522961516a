import { inspect } from 'node:util';
import type { OutboundHttp } from '../delivery/outbound/outbound-http.ts';
import type { SummarizedMatch } from './extractive.ts';

/**
 * Summaries written by a language model behind an OpenAI-compatible chat endpoint
 * (`POST …/v1/chat/completions`), reached through the outbound guard like every outbound
 * request. One request per match: the model is given the match's windows (speaker, time, text)
 * and the matched names, and asked for two sentences. A timeout, a connection error, 408, 429 or
 * a 5xx is retried (`attempts` in all, waiting `backoffMs` × 4ⁿ between them); anything else —
 * a refusal by the guard, another 4xx, an answer without text — fails at once. The caller falls
 * back to the extractive summary on any failure.
 *
 * A circuit breaker keeps a failing model from holding every summary up (a hanging endpoint costs
 * `attempts` × `timeoutMs` plus backoff per match): after `breakerFailures` summaries in a row
 * failed, the model is skipped (`ModelSkippedError`, no request) for `breakerCooldownMs`; then one
 * summary tries it again — a success closes the breaker, a failure opens it for another cool-down.
 */
export interface ChatSummarizerOptions {
  /** Base URL of the server; `/v1/chat/completions` is appended (or `/chat/completions` after `/v1`). */
  url: string;
  /** Model name sent; absent: left out of the request (single-model servers). */
  model?: string;
  apiKey?: ApiKey;
  /** Budget of one request (connect, send, answer). */
  timeoutMs: number;
  attempts?: number;
  backoffMs?: number;
  /** Failed summaries in a row that open the breaker (default 3). */
  breakerFailures?: number;
  /** How long an open breaker skips the model (default 60 s). */
  breakerCooldownMs?: number;
}

/**
 * A bearer token that stays out of logs: it prints, serialises and inspects as `[REDACTED]`;
 * only `bearer()` gives the header value.
 */
export class ApiKey {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  bearer(): string {
    return `Bearer ${this.#value}`;
  }
  toString(): string {
    return '[REDACTED]';
  }
  toJSON(): string {
    return '[REDACTED]';
  }
  [inspect.custom](): string {
    return '[REDACTED]';
  }
}

export class SummaryFailedError extends Error {
  /** This failure opened the circuit breaker: the model is skipped for a cool-down. */
  openedBreaker = false;
  constructor(
    message: string,
    /** Requests made before giving up. */
    readonly attempts: number,
  ) {
    super(message);
    this.name = 'SummaryFailedError';
  }
}

/** The breaker is open: the model was not asked. */
export class ModelSkippedError extends SummaryFailedError {
  constructor(readonly retryAt: number) {
    super(`model skipped until ${new Date(retryAt).toISOString()} after repeated failures`, 0);
    this.name = 'ModelSkippedError';
  }
}

const INSTRUCTIONS =
  'You summarize where a podcast episode mentions something a user watches. Using only the excerpt, ' +
  'write at most two plain sentences saying who says what about the watched names. No preamble, no ' +
  'markdown, no quotes around the answer.';

/** Longest summary kept from a model (longer answers are cut at a word). */
export const MAX_LLM_SUMMARY_CHARS = 1000;

export class ChatSummarizer {
  readonly endpoint: string;
  readonly model: string | undefined;
  /** How long an open breaker skips the model. */
  readonly cooldownMs: number;
  readonly #options: ChatSummarizerOptions;
  #failures = 0;
  /** While in the future, the breaker is open; once past, one trial request is let through. */
  #openUntil = 0;
  #trial = false;

  constructor(
    private readonly http: OutboundHttp,
    options: ChatSummarizerOptions,
  ) {
    const base = options.url.replace(/\/+$/, '');
    this.endpoint = base.endsWith('/v1') ? `${base}/chat/completions` : `${base}/v1/chat/completions`;
    this.model = options.model;
    this.cooldownMs = options.breakerCooldownMs ?? 60_000;
    this.#options = options;
  }

  /** The request body for a match (exported for the test that checks what the server gets). */
  requestBody(match: SummarizedMatch & { entity_name?: string }): Record<string, unknown> {
    const lines = match.windows.flatMap((w) =>
      w.lines.map(
        (l) => `[${clock(l.start_seconds)}] ${l.speaker}${l.role ? ` (${l.role})` : ''}: ${l.text}`,
      ),
    );
    const watched =
      match.kind === 'ENTITY_MENTION'
        ? `Watched names: ${match.mention_variants.join(', ')}`
        : 'Watched: the speaker of these turns';
    return {
      ...(this.model ? { model: this.model } : {}),
      temperature: 0,
      max_tokens: 200,
      messages: [
        { role: 'system', content: INSTRUCTIONS },
        { role: 'user', content: `${watched}\n\nExcerpt:\n${lines.join('\n')}` },
      ],
    };
  }

  async summarize(match: SummarizedMatch): Promise<string> {
    if (this.#openUntil > 0) {
      // Open: skip; past the cool-down: one trial at a time, the others still skip.
      if (this.#openUntil > Date.now() || this.#trial) throw new ModelSkippedError(this.#openUntil);
      this.#trial = true;
    }
    const trial = this.#trial;
    try {
      const text = await this.#request(match);
      this.#failures = 0;
      this.#openUntil = 0;
      this.#trial = false;
      return text;
    } catch (err) {
      this.#failures++;
      const threshold = Math.max(1, this.#options.breakerFailures ?? 3);
      if (trial || (this.#failures >= threshold && this.#openUntil === 0)) {
        this.#openUntil = Date.now() + this.cooldownMs;
        this.#trial = false;
        if (err instanceof SummaryFailedError) err.openedBreaker = true;
      }
      throw err;
    }
  }

  async #request(match: SummarizedMatch): Promise<string> {
    const attempts = Math.max(1, this.#options.attempts ?? 3);
    const backoff = this.#options.backoffMs ?? 500;
    const body = JSON.stringify(this.requestBody(match));
    let last = '';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) await new Promise((r) => setTimeout(r, backoff * 4 ** (attempt - 2)));
      const res = await this.http.post({
        url: this.endpoint,
        body,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(this.#options.apiKey ? { authorization: this.#options.apiKey.bearer() } : {}),
        },
        timeoutMs: this.#options.timeoutMs,
        keepBodyBytes: 256 * 1024,
      });
      if (res.refused) throw new SummaryFailedError(res.error ?? 'refused', attempt);
      if (res.status === undefined) {
        last = res.error ?? 'no answer';
        continue;
      }
      if (res.status === 408 || res.status === 429 || res.status >= 500) {
        last = `HTTP ${res.status}`;
        continue;
      }
      if (res.status < 200 || res.status >= 300) throw new SummaryFailedError(`HTTP ${res.status}`, attempt);
      const text = contentOf(res.body);
      if (!text) throw new SummaryFailedError('the answer holds no message text', attempt);
      return text;
    }
    throw new SummaryFailedError(last, attempts);
  }
}

function contentOf(body: Buffer | undefined): string | undefined {
  if (!body) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  const content = (parsed as { choices?: { message?: { content?: unknown } }[] })?.choices?.[0]?.message
    ?.content;
  if (typeof content !== 'string') return undefined;
  const text = content.replace(/\s+/g, ' ').trim();
  if (!text) return undefined;
  if (text.length <= MAX_LLM_SUMMARY_CHARS) return text;
  const cut = text.slice(0, MAX_LLM_SUMMARY_CHARS - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), MAX_LLM_SUMMARY_CHARS / 2)).trimEnd()}…`;
}

function clock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const mm = String(Math.floor(s / 60) % 60).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return s >= 3600 ? `${Math.floor(s / 3600)}:${mm}:${ss}` : `${mm}:${ss}`;
}
