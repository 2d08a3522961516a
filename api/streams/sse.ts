import type { ServerResponse } from 'node:http';

export interface SseLimits {
  /**
   * Bytes that may wait for the client. Past half of it a stream stops producing until the client
   * takes them (`drained`, awaited after every event); when more than all of it waits at the next
   * write, or the client has not taken half within `stallMs`, it is sent an `error` event
   * (`slow_consumer`) and closed.
   */
  bufferBytes: number;
  /** How long a stream waits for a client that takes nothing before closing it. */
  stallMs: number;
  /** Interval of the comment lines that keep an idle connection open. */
  heartbeatMs: number;
  /** How long a closing stream has to hand its last bytes over before its socket is destroyed. */
  closeGraceMs: number;
}

/** What an `error` event carries (its data, JSON). */
export interface StreamError {
  error_code: string;
  detail: string;
  [more: string]: unknown;
}

/**
 * One Server-Sent Events response, written by hand on the raw response (the route hijacks the
 * reply): events with an `id` (the resume position) and `retry`, comment heartbeats, an `error`
 * event before an abnormal close. Memory is bounded per stream (SseLimits), so a client that
 * reads slowly or not at all costs at most `bufferBytes`.
 */
export class SseStream {
  /** Aborted when the stream closes, for whatever reason. */
  readonly signal: AbortSignal;
  readonly stats = { events: 0, bytes: 0, maxWaiting: 0 };
  /** Why the stream closed (`client`, `complete`, `slow_consumer`, `shutdown`, an error code). */
  closeReason?: string;
  private readonly abort = new AbortController();
  private ending = false;
  private heartbeat?: NodeJS.Timeout;
  private grace?: NodeJS.Timeout;

  constructor(
    private readonly res: ServerResponse,
    private readonly limits: SseLimits,
  ) {
    this.signal = this.abort.signal;
    res.on('close', () => {
      this.closeReason ??= 'client';
      this.ending = true;
      clearInterval(this.heartbeat);
      clearTimeout(this.grace);
      this.abort.abort();
    });
  }

  get closed(): boolean {
    return this.ending;
  }

  /** Bytes written but not yet taken by the client (Node's buffer; the kernel's comes on top). */
  get waiting(): number {
    return this.res.writableLength;
  }

  /** Sends the headers and the reconnection time, and starts the heartbeat. */
  open(retryMs: number, headers: Record<string, string> = {}): void {
    this.res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // Proxies that buffer responses would hold events back.
      'x-accel-buffering': 'no',
      ...headers,
    });
    this.write(`retry: ${retryMs}\n\n`);
    this.heartbeat = setInterval(() => this.write(': keep-alive\n\n'), this.limits.heartbeatMs);
    this.heartbeat.unref();
  }

  /** An event; `data` is one JSON text (no line breaks). False once the stream is closing. */
  event(name: string, data: string, options: { id?: string; retry?: number } = {}): boolean {
    if (this.ending) return false;
    let block = `event: ${name}\n`;
    if (options.id !== undefined) block += `id: ${options.id}\n`;
    if (options.retry !== undefined) block += `retry: ${options.retry}\n`;
    for (const line of data.split('\n')) block += `data: ${line}\n`;
    this.stats.events++;
    return this.write(`${block}\n`);
  }

  /**
   * Moves the client's resume position without an event for it: a `position` event with an `id`
   * and empty data (browsers set their last event id and dispatch nothing).
   */
  position(id: string): boolean {
    if (this.ending) return false;
    return this.write(`event: position\nid: ${id}\ndata:\n\n`);
  }

  /**
   * Resolves true once less than half the buffer waits for the client; false when the stream
   * closed meanwhile, or the client took nothing for `stallMs` (the stream is then failed with
   * `slow_consumer`).
   */
  async drained(): Promise<boolean> {
    if (this.ending) return false;
    if (this.res.writableLength <= this.limits.bufferBytes / 2) return true;
    const ok = await new Promise<boolean>((resolve) => {
      const done = (value: boolean) => {
        clearTimeout(timer);
        this.res.off('drain', onDrain);
        this.signal.removeEventListener('abort', onAbort);
        resolve(value);
      };
      const onDrain = () => done(true);
      const onAbort = () => done(false);
      const timer = setTimeout(() => done(false), this.limits.stallMs);
      this.res.on('drain', onDrain);
      this.signal.addEventListener('abort', onAbort, { once: true });
    });
    if (!ok && !this.ending) {
      this.fail({
        error_code: 'slow_consumer',
        detail: `the client took nothing for ${this.limits.stallMs} ms; reconnect with Last-Event-ID to resume`,
      });
    }
    return ok && !this.ending;
  }

  /** Sends an `error` event and closes the stream. */
  fail(error: StreamError, retryMs?: number): void {
    if (this.ending) return;
    this.write(
      `event: error\n${retryMs === undefined ? '' : `retry: ${retryMs}\n`}data: ${JSON.stringify(error)}\n\n`,
      true,
    );
    this.end(error.error_code);
  }

  /** Ends the stream (with a new reconnection time when given: a shutdown asks clients to come back). */
  end(reason = 'complete', retryMs?: number): void {
    if (this.ending) return;
    if (retryMs !== undefined) this.write(`retry: ${retryMs}\n\n`, true);
    this.closeReason = reason;
    this.ending = true;
    clearInterval(this.heartbeat);
    this.res.end();
    // A client that takes nothing never lets the end through: its socket goes after a grace time.
    this.grace = setTimeout(() => this.res.destroy(), this.limits.closeGraceMs);
    this.grace.unref();
  }

  /**
   * Writes unless more than the bound already waits: then the client is too slow and the stream
   * fails instead. (Judged before the write, so one event larger than the bound still goes out.)
   */
  private write(chunk: string, closing = false): boolean {
    if (this.ending && !closing) return false;
    if (this.res.destroyed || this.res.writableEnded) return false;
    if (!closing && this.res.writableLength > this.limits.bufferBytes) {
      this.fail({
        error_code: 'slow_consumer',
        detail: `more than ${this.limits.bufferBytes} bytes were waiting for the client; reconnect with Last-Event-ID to resume`,
      });
      return false;
    }
    this.res.write(chunk);
    this.stats.bytes += chunk.length;
    const waiting = this.res.writableLength;
    if (waiting > this.stats.maxWaiting) this.stats.maxWaiting = waiting;
    return true;
  }
}
