import { type Agent, request } from 'undici';
import { type OutboundGuard, OutboundRefusedError, OutboundResolveError } from './outbound-guard.ts';

/**
 * HTTP through the outbound guard: every URL is checked (and canonicalised) by the guard before
 * a request, and connections go through the guard's agent, which checks the address again at
 * connect time. POSTs (webhooks, the chat API) never follow redirects; GETs (feeds) follow a
 * bounded number, each target checked like the first URL.
 */
export interface HttpResult {
  /** HTTP status when a response arrived. */
  status?: number;
  headers?: Record<string, string | string[] | undefined>;
  /** The first bytes of the response body (when asked for). */
  body?: Buffer;
  /** Why no usable response arrived: timeout, connection error, refusal, too many redirects. */
  error?: string;
  /** The destination was refused by the guard: retrying will not help. */
  refused?: boolean;
  durationMs: number;
}

export interface OutboundPost {
  url: string;
  body: string | Buffer;
  headers: Record<string, string>;
  /** End-to-end budget (DNS, connect, send, headers, body). */
  timeoutMs: number;
  /** Keep up to this many bytes of the response body; the rest is discarded. */
  keepBodyBytes?: number;
}

export interface OutboundGet {
  url: string;
  headers: Record<string, string>;
  /** End-to-end budget over every hop (DNS, connect, headers, body). */
  timeoutMs: number;
  /** Redirects followed at most; each target passes the guard before it is requested. */
  maxRedirects: number;
  /** A 2xx body longer than this is an error (the download is stopped). */
  maxBodyBytes: number;
}

export interface GetResult extends HttpResult {
  /** The canonical URL of the last request made (after redirects). */
  url: string;
  redirects: number;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export class OutboundHttp {
  readonly agent: Agent;

  constructor(
    readonly guard: OutboundGuard,
    options: { connections?: number } = {},
  ) {
    this.agent = guard.agent({ connections: options.connections });
  }

  /** POSTs through the guard: check the URL, connect through the guarded agent, never follow redirects. */
  async post(req: OutboundPost): Promise<HttpResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const signal = AbortSignal.timeout(req.timeoutMs);
    try {
      const { url } = await withTimeout(this.guard.check(req.url), req.timeoutMs);
      const res = await request(url, {
        method: 'POST',
        body: req.body,
        headers: req.headers,
        dispatcher: this.agent,
        signal,
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
      });
      let body: Buffer | undefined;
      if (req.keepBodyBytes) {
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of res.body) {
          if (size < req.keepBodyBytes) chunks.push(chunk as Buffer);
          size += (chunk as Buffer).length;
        }
        body = Buffer.concat(chunks).subarray(0, req.keepBodyBytes);
      } else {
        await res.body.dump({ limit: 1 << 20 }).catch(() => undefined);
      }
      return { status: res.statusCode, headers: res.headers, body, durationMs: elapsed() };
    } catch (err) {
      const refused = findRefusal(err);
      if (refused) return { error: `refused: ${refused.message}`, refused: true, durationMs: elapsed() };
      return { error: describeError(err, req.timeoutMs, signal), durationMs: elapsed() };
    }
  }

  /**
   * GETs through the guard, following up to `maxRedirects` redirects (301, 302, 303, 307, 308
   * with a Location); every hop's URL is canonicalised and checked, and its connection pinned to
   * the checked address, exactly like the first. The body is kept for a 2xx answer only.
   */
  async get(req: OutboundGet): Promise<GetResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const remaining = () => Math.max(1, req.timeoutMs - (performance.now() - started));
    const signal = AbortSignal.timeout(req.timeoutMs);
    let target = req.url;
    let redirects = 0;
    try {
      for (;;) {
        const { url } = await withTimeout(this.guard.check(target), remaining());
        target = url.href;
        const res = await request(url, {
          method: 'GET',
          headers: req.headers,
          dispatcher: this.agent,
          signal,
          headersTimeout: remaining(),
          bodyTimeout: remaining(),
        });
        const location = firstHeader(res.headers.location);
        const answered = { status: res.statusCode, headers: res.headers, url: target, redirects };
        if (REDIRECT_STATUSES.has(res.statusCode) && location) {
          await res.body.dump({ limit: 1 << 16 }).catch(() => undefined);
          if (redirects >= req.maxRedirects) {
            return { ...answered, error: `more than ${req.maxRedirects} redirects`, durationMs: elapsed() };
          }
          redirects++;
          target = new URL(location, url).href;
          continue;
        }
        if (res.statusCode < 200 || res.statusCode >= 300) {
          await res.body.dump({ limit: 1 << 16 }).catch(() => undefined);
          return { ...answered, durationMs: elapsed() };
        }
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of res.body) {
          size += (chunk as Buffer).length;
          if (size > req.maxBodyBytes) {
            res.body.destroy();
            return {
              ...answered,
              error: `response body exceeds ${req.maxBodyBytes} bytes`,
              durationMs: elapsed(),
            };
          }
          chunks.push(chunk as Buffer);
        }
        return { ...answered, body: Buffer.concat(chunks), durationMs: elapsed() };
      }
    } catch (err) {
      const refused = findRefusal(err);
      const at = { url: target, redirects, durationMs: elapsed() };
      if (refused) return { ...at, error: `refused: ${refused.message}`, refused: true };
      return { ...at, error: describeError(err, req.timeoutMs, signal) };
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function findRefusal(err: unknown): OutboundRefusedError | undefined {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof OutboundRefusedError) return e;
    if ((e as { code?: unknown }).code === 'EARSHOT_OUTBOUND_REFUSED') {
      return new OutboundRefusedError((e as Error).message);
    }
  }
  return undefined;
}

class BudgetExceeded extends Error {}

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new BudgetExceeded()), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A short, stable description of why a request produced no response. */
export function describeError(err: unknown, timeoutMs: number, signal?: AbortSignal): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: unknown };
  if (
    err instanceof BudgetExceeded ||
    signal?.aborted ||
    e.name === 'TimeoutError' ||
    e.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    e.code === 'UND_ERR_BODY_TIMEOUT'
  ) {
    return `timeout: no complete response within ${Math.round(timeoutMs / 100) / 10} s`;
  }
  if (err instanceof OutboundResolveError) return err.message;
  if (e.code === 'UND_ERR_CONNECT_TIMEOUT') return 'connect timeout';
  const cause = e.cause as { code?: string; message?: string } | undefined;
  if (cause?.code && cause.message) return cause.message;
  return e.message ?? String(err);
}
