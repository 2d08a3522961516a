import type { ServerResponse } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { principalOf } from '../plugins/authentication.ts';
import { problem } from '../problem.ts';
import type { SseLimits, SseStream } from './sse.ts';

export interface StreamSettings extends SseLimits {
  /** Streams (live, replay, download) one API key may hold open at once in this process. */
  perKey: number;
  /** Reconnection time sent at the start of every event stream. */
  retryMs: number;
  /** Reconnection time sent to open event streams when the process shuts down. */
  shutdownRetryMs: number;
}

export const DEFAULT_STREAM_SETTINGS: StreamSettings = {
  perKey: 5,
  retryMs: 3000,
  shutdownRetryMs: 1000,
  bufferBytes: 8 * 1024 * 1024,
  stallMs: 30_000,
  heartbeatMs: 15_000,
  closeGraceMs: 10_000,
};

/** Something open that a shutdown must close: an event stream, or a download. */
interface Open {
  shutdown(retryMs: number): void;
}

/**
 * The streams one API process holds open: at most `perKey` per API key (429 with Retry-After
 * beyond), and every one of them closed on shutdown — event streams with a reconnection hint, so
 * clients come back (to this process restarted, or another) with their Last-Event-ID.
 */
export class Streams {
  private readonly perKey = new Map<string, number>();
  private readonly open = new Set<Open>();
  /** `slowMaxWaiting`: the most bytes that ever waited for a client closed as too slow. */
  readonly stats = { opened: 0, refused: 0, slowClosed: 0, slowMaxWaiting: 0 };

  constructor(readonly settings: StreamSettings) {}

  /**
   * Takes one of the key's stream slots for this request, given back when its response closes;
   * a 429 problem when the key holds its limit.
   */
  acquire(request: FastifyRequest, response: ServerResponse): void {
    const key = principalOf(request).keyId;
    const held = this.perKey.get(key) ?? 0;
    if (held >= this.settings.perKey) {
      this.stats.refused++;
      throw problem(
        'rate_limited',
        `This API key already holds ${held} open streams, the most it may hold at once; close one or retry later.`,
        {
          headers: { 'retry-after': '5' },
          resolve: {
            message: `Hold at most ${this.settings.perKey} streams (live, archive replay, bulk download) open per API key.`,
            action: 'retry_later',
          },
        },
      );
    }
    this.perKey.set(key, held + 1);
    this.stats.opened++;
    response.once('close', () => {
      const now = (this.perKey.get(key) ?? 1) - 1;
      if (now > 0) this.perKey.set(key, now);
      else this.perKey.delete(key);
    });
  }

  /** Registers an event stream until it closes. */
  track(stream: SseStream): void {
    const entry: Open = { shutdown: (retryMs) => stream.end('shutdown', retryMs) };
    this.open.add(entry);
    stream.signal.addEventListener(
      'abort',
      () => {
        this.open.delete(entry);
        if (stream.closeReason === 'slow_consumer') {
          this.stats.slowClosed++;
          this.stats.slowMaxWaiting = Math.max(this.stats.slowMaxWaiting, stream.stats.maxWaiting);
        }
      },
      { once: true },
    );
  }

  /** Registers something else that must close on shutdown (a download) until `closed` fires. */
  trackOther(entry: Open, closed: (listener: () => void) => void): void {
    this.open.add(entry);
    closed(() => this.open.delete(entry));
  }

  get size(): number {
    return this.open.size;
  }

  /** Closes every stream: event streams end with `retry: shutdownRetryMs`. */
  shutdown(): void {
    for (const entry of [...this.open]) entry.shutdown(this.settings.shutdownRetryMs);
  }
}
