import type { Logger } from 'pino';
import type { EmbeddingsPort } from '../embeddings/embeddings-port.ts';
import { passageVectorKey } from './passages.ts';
import type { SearchIndex, VectorSource, VectorUpdate } from './search-index.ts';
import { emptySearchStats, type SearchProjectorStats, VectorCache } from './search-projector.ts';
import { clipVectorKey } from './vectors.ts';

export interface VectorFillerOptions {
  index: () => SearchIndex;
  /** The indexing embeddings port; undefined while no model is available (the filler waits). */
  embeddings: () => EmbeddingsPort | undefined;
  logger?: Logger;
  /** Texts whose own embeddings are kept in memory (default 50,000, about 77 MB at 384 dims). */
  cacheSize?: number;
  /** A cache to share; overrides `cacheSize`. */
  cache?: VectorCache;
  /** Texts per embeddings call (default 256). */
  embedBatch?: number;
  /** Episodes embedded per pass; each pass commits its vectors (default 16). */
  episodesPerPass?: number;
  /** Pause when nothing is pending or no model is loaded, unless woken (default 1000 ms). */
  idleMs?: number;
  stats?: SearchProjectorStats;
}

export interface PassResult {
  /** Episodes the pass looked at (0: nothing was pending). */
  episodes: number;
  /** Rows that took a vector. */
  written: number;
  /** The pass stopped early for a newer episode pending: what it embedded is written, the rest waits. */
  yielded?: boolean;
}

/**
 * The vector filler: the catch-up pass that gives indexed passages and clips their vectors.
 *
 * The search projector indexes text without waiting for the model (keyword search is current at
 * once); this loop asks the index which episodes still hold rows without a vector, reads those
 * episodes' passages and clips, embeds the distinct texts not already in memory (an identical
 * passage — an intro, an ad read — is embedded once; a vector a rebuild kept aside for the same
 * text and model is taken instead, lancedb/carried-vectors.ts) and writes the vectors, a pass of a few
 * episodes at a time. Each pass commits on its own, so a crash loses at most the pass in flight: the rows
 * stay without a vector and the next start picks them up again.
 *
 * A vector is written only to a row that still carries the key it was computed for, so a row the
 * projector replaced meanwhile (new text or context) is left for the next pass, and a replay of
 * the topics keeps every vector (the projector keeps stored vectors with unchanged keys).
 */
export class VectorFiller {
  readonly cache: VectorCache;
  readonly stats: SearchProjectorStats;
  private running?: Promise<void>;
  private stopped = true;
  /** Set while stopping: the pass in flight ends early (its rows stay pending). */
  private abort = false;
  private wakeUp?: () => void;
  private timer?: NodeJS.Timeout;
  private warnedAt = 0;

  constructor(private readonly options: VectorFillerOptions) {
    this.cache = options.cache ?? new VectorCache(options.cacheSize ?? 50_000);
    this.stats = options.stats ?? emptySearchStats();
  }

  /** Starts the background loop (idempotent). */
  start(): void {
    if (this.running) return;
    this.stopped = false;
    this.running = this.loop();
  }

  /** Ends the loop after the pass in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.abort = true;
    this.wake();
    await this.running;
    this.running = undefined;
    this.abort = false;
  }

  /** Starts the next pass now (new rows were indexed). */
  wake(): void {
    this.wakeUp?.();
  }

  private async loop(): Promise<void> {
    const idle = this.options.idleMs ?? 1000;
    let failures = 0;
    while (!this.stopped) {
      let pause = 0;
      try {
        const r = await this.runOnce();
        failures = 0;
        if (r === undefined || r.episodes === 0) pause = idle;
        else if (r.written === 0) pause = idle; // rows changed under us; let the projector settle
      } catch (err) {
        failures++;
        pause = Math.min(30_000, idle * 2 ** Math.min(failures, 5));
        if (Date.now() - this.warnedAt > 60_000) {
          this.warnedAt = Date.now();
          this.options.logger?.warn({ err, retryInMs: pause }, 'search vector filler pass failed; retrying');
        }
      }
      if (pause > 0 && !this.stopped) await this.sleep(pause);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(this.timer);
        this.wakeUp = undefined;
        resolve();
      };
      this.wakeUp = done;
      this.timer = setTimeout(done, ms);
      this.timer.unref();
    });
  }

  /**
   * One pass over at most `episodesPerPass` episodes with rows lacking a vector. Undefined when no
   * model is loaded.
   */
  async runOnce(): Promise<PassResult | undefined> {
    const port = this.options.embeddings();
    if (!port) return undefined;
    const index = this.options.index();
    const passStarted = performance.now();
    const episodeIds = await index.pendingVectorEpisodes(this.options.episodesPerPass ?? 16);
    if (episodeIds.length === 0) return { episodes: 0, written: 0 };
    const { passages, clips } = await index.vectorSources(episodeIds);
    const plan = [...planVectors('passages', passages), ...planVectors('clips', clips)];
    if (plan.length === 0) {
      // Every row has its vector (the episode leaves the list), or only rows read mid-replacement
      // remain: their keys did not match their text. Retry later.
      await index.settleVectors(episodeIds);
      return { episodes: episodeIds.length, written: 0 };
    }

    // Own embeddings of every distinct text: from memory, else from the model.
    const own = new Map<string, Float32Array>();
    const missing = new Set<string>();
    for (const { text } of plan) {
      if (own.has(text) || missing.has(text)) continue;
      const v = this.cache.get(text);
      if (v) own.set(text, v);
      else missing.add(text);
    }
    // Then from the vectors a rebuild kept aside, by the key of the text (same model only).
    if (missing.size > 0) {
      const keyOf = new Map<string, string>();
      for (const p of plan) if (missing.has(p.text)) keyOf.set(p.key, p.text);
      const carried = await index.carriedVectors(port.model, port.dimensions, [...keyOf.keys()]);
      for (const [key, v] of carried) {
        const text = keyOf.get(key);
        if (text === undefined || v.length !== port.dimensions) continue;
        own.set(text, v);
        this.cache.set(text, v);
        missing.delete(text);
        this.stats.vectorsCarried++;
      }
    }
    const texts = [...missing];
    const batch = this.options.embedBatch ?? 256;
    const embedStarted = performance.now();
    let yielded = false;
    for (let i = 0; i < texts.length; i += batch) {
      if (this.abort) return { episodes: episodeIds.length, written: 0 };
      // Fresh first: a pass over a backfill can take minutes, so between calls it gives way to an
      // episode published after those it holds (the pending list is newest first): what it has
      // embedded is written below, its other rows stay pending for a later pass.
      if (i > 0 && (await this.newerPending(index, episodeIds))) {
        yielded = true;
        break;
      }
      const chunk = texts.slice(i, i + batch);
      const vectors = await port.embed(chunk);
      chunk.forEach((text, k) => {
        own.set(text, vectors[k]!);
        this.cache.set(text, vectors[k]!);
      });
      this.stats.textsEmbedded += chunk.length;
    }
    const embedMs = performance.now() - embedStarted;
    this.stats.embedMs += embedMs;

    const updates = (kind: 'passages' | 'clips'): VectorUpdate[] =>
      plan
        .filter((p) => p.kind === kind && own.has(p.text))
        .map((p) => ({ id: p.id, vector_key: p.key, vector: own.get(p.text)! }));
    const writeStarted = performance.now();
    const written =
      (await index.putVectors('passages', updates('passages'))) +
      (await index.putVectors('clips', updates('clips')));
    await index.settleVectors(episodeIds);
    index.scheduleRefresh();
    const writeMs = performance.now() - writeStarted;
    this.stats.writeMs += writeMs;
    this.stats.vectorsWritten += written;
    this.options.logger?.debug(
      {
        episodes: episodeIds.length,
        embedded: texts.length,
        written,
        ms: Math.round(performance.now() - passStarted),
        embedMs: Math.round(embedMs),
        writeMs: Math.round(writeMs),
        yielded,
      },
      'search vectors filled',
    );
    return { episodes: episodeIds.length, written, ...(yielded ? { yielded } : {}) };
  }

  /** Whether the newest pending episode is not one of this pass's (a newer one came in). */
  private async newerPending(index: SearchIndex, passEpisodes: string[]): Promise<boolean> {
    const [newest] = await index.pendingVectorEpisodes(1);
    return newest !== undefined && !passEpisodes.includes(newest);
  }

  /**
   * Runs passes until nothing is pending (tests, benchmarks, rebuilds). Passes that write nothing
   * (rows read while the projector replaces them) are retried for up to `idleMs` of no progress,
   * measured in time rather than passes, so a busy machine does not cut the wait short.
   */
  async drain(options: { timeoutMs?: number; idleMs?: number } = {}): Promise<void> {
    const deadline = Date.now() + (options.timeoutMs ?? 3_600_000);
    const idleMs = options.idleMs ?? 30_000;
    let lastProgress = Date.now();
    for (;;) {
      const r = await this.runOnce();
      if (r === undefined) throw new Error('no embeddings model: vectors cannot be filled');
      if (r.episodes === 0) return;
      if (r.written > 0) lastProgress = Date.now();
      if (Date.now() > deadline || Date.now() - lastProgress > idleMs) {
        throw new Error(
          `vector filler did not drain: ${JSON.stringify(await this.options.index().vectorBacklog())}`,
        );
      }
      if (r.written === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * What a pass computes: each passage or clip lacking a vector — provided the key the row carries
 * is the key of the text read with it. A mismatch means the row was read while the projector was
 * replacing it; it is left for a later pass.
 */
export function planVectors(
  kind: 'passages' | 'clips',
  rows: VectorSource[],
): (VectorSource & { kind: 'passages' | 'clips'; key: string })[] {
  const keyOf = kind === 'passages' ? passageVectorKey : clipVectorKey;
  const out: (VectorSource & { kind: 'passages' | 'clips'; key: string })[] = [];
  for (const r of rows) {
    if (r.has_vector) continue;
    const key = keyOf(r.text);
    if (r.vector_key === null || r.vector_key === key) out.push({ ...r, kind, key });
  }
  return out;
}
