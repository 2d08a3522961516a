import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type Dispatcher, request } from 'undici';
import type { FetchModelOptions, ModelSource, SourceContext } from './model-fetch.ts';

/*
 * The HTTP side of fetching a model: GET with redirects and a size cap, streamed downloads that
 * hash as they write and report progress, and checksum parsing.
 */

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const PROGRESS_STEP = 1 << 20;

interface Response200 {
  res: Dispatcher.ResponseData;
  url: string;
  linkedEtag: string | undefined;
}

async function get(url: string, ctx: FetchModelOptions): Promise<Response200> {
  const timeout = ctx.idleTimeoutMs ?? 60_000;
  let current = url;
  let linkedEtag: string | undefined;
  // Redirects are followed by hand so headers on the hops (the hub's X-Linked-Etag) are kept.
  for (let hop = 0; hop <= 5; hop++) {
    const res = await request(current, {
      method: 'GET',
      headers: { 'user-agent': 'earshot-model-fetch' },
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
    linkedEtag ??= unquote(header(res.headers, 'x-linked-etag'));
    if (REDIRECT_STATUSES.has(res.statusCode)) {
      await res.body.dump();
      const location = header(res.headers, 'location');
      if (!location) throw new Error(`GET ${current}: HTTP ${res.statusCode} without Location`);
      current = new URL(location, current).href;
      continue;
    }
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new Error(`GET ${current}: HTTP ${res.statusCode}`);
    }
    return { res, url: current, linkedEtag };
  }
  throw new Error(`GET ${url}: too many redirects`);
}

export async function getText(url: string, ctx: FetchModelOptions): Promise<string> {
  const { res } = await get(url, ctx);
  return res.body.text();
}

export interface Downloaded {
  bytes: number;
  sha1: string;
  sha256: string;
  linkedEtag: string | undefined;
}

export async function download(
  url: string,
  dest: string,
  source: ModelSource,
  ctx: SourceContext,
): Promise<Downloaded> {
  const { res, linkedEtag } = await get(url, ctx);
  const length = Number(header(res.headers, 'content-length'));
  const totalBytes = Number.isFinite(length) && length > 0 ? length : undefined;
  const sha1 = createHash('sha1');
  const sha256 = createHash('sha256');
  let receivedBytes = 0;
  let reported = 0;
  const report = (done: boolean) => {
    reported = receivedBytes;
    ctx.keepAlive();
    ctx.onProgress?.({ source, url, receivedBytes, totalBytes, done });
  };
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      sha1.update(chunk);
      sha256.update(chunk);
      receivedBytes += chunk.length;
      if (receivedBytes - reported >= PROGRESS_STEP) report(false);
      done(null, chunk);
    },
  });
  await pipeline(res.body, meter, createWriteStream(dest));
  if (totalBytes !== undefined && receivedBytes !== totalBytes) {
    throw new Error(`GET ${url}: truncated (${receivedBytes} of ${totalBytes} bytes)`);
  }
  report(true);
  return { bytes: receivedBytes, sha1: sha1.digest('hex'), sha256: sha256.digest('hex'), linkedEtag };
}

function header(headers: Dispatcher.ResponseData['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function unquote(value: string | undefined): string | undefined {
  return value?.replace(/^W\//, '').replace(/^"|"$/g, '');
}

// --- helpers -------------------------------------------------------------------------------

export function parseSha1(text: string): string {
  // Checksum files hold the digest, sometimes followed by a file name.
  const match = /\b[0-9a-f]{40}\b/i.exec(text);
  if (!match) throw new Error(`unreadable SHA-1 checksum file: ${JSON.stringify(text.slice(0, 80))}`);
  return match[0].toLowerCase();
}

export async function hashFile(file: string, algorithm: 'sha1' | 'sha256'): Promise<string> {
  const hash = createHash(algorithm);
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as NodeJS.ErrnoException).code;
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err.message}${code && !err.message.includes(code) ? ` (${code})` : ''}${cause}`;
}

// --- cross-process lock ------------------------------------------------------------------------
