import type { Logger } from 'pino';
import type { EmbeddingsPort } from '../embeddings/embeddings-port.ts';
import type { SearchIndex, SearchIndexOptions, VectorBacklog } from './search-index.ts';
import { VectorFiller } from './search-vector-filler.ts';

export interface OpenedSearchEmbeddings {
  /** For query strings, on the API's thread. */
  query?: EmbeddingsPort;
  /** For the projector's batches (a worker thread for the local model). */
  indexing?: EmbeddingsPort;
  /** Why there is no model, when there is none. */
  reason?: string;
}

export interface SearchRuntimeFactories {
  /** Builds the (unopened) index adapter chosen by configuration. */
  createIndex(options: SearchIndexOptions): SearchIndex;
  /** Opens the embeddings adapter chosen by configuration. */
  openEmbeddings(options: {
    query: boolean;
    indexing: boolean;
    fetchIfMissing: boolean;
  }): Promise<OpenedSearchEmbeddings>;
}

/**
 * `ready`: semantic requests are answered; `catching_up`: a model is loaded and the vector filler is
 * embedding what was indexed before (semantic requests answer 503 until that backlog is done);
 * `unavailable`: no model.
 */
export type SemanticState = 'ready' | 'catching_up' | 'unavailable';

export interface SearchStatus {
  engine: string | undefined;
  /**
   * Whether keyword search covers what was ingested when the service started: the indexing has
   * caught up and a refresh made all of it searchable, exact phrases included.
   */
  keyword: boolean;
  /** Whether semantic (and hybrid) requests are answered now. */
  semantic: boolean;
  semantic_state: SemanticState;
  /**
   * Passages and clips still waiting for their vector, and of all (`total`) how many have one
   * (`embedded`), as last counted.
   */
  vector_backlog?: VectorBacklog;
  model?: string;
  dimensions?: number;
  reason?: string;
}

export interface StartVectorsOptions {
  /** Run the vector filler in this process (the projectors role). */
  fill: boolean;
  /**
   * True once the search projector has indexed what was ingested when the service started; the
   * index is then refreshed (keyword search is ready once that refresh is done), the filler starts
   * (keyword indexing first), and semantic search waits for it.
   */
  indexingCaughtUp: () => Promise<boolean>;
  logger: Logger;
  /**
   * How often the backlog is counted while vectors are missing (default 1000 ms; twice that when none are);
   * a quarter of it until keyword search is ready.
   */
  pollMs?: number;
}

/**
 * The search index and its embeddings for one process: opens the embeddings model first (the
 * index of a new deployment takes its vector size from it), then the index, and refuses vectors
 * of a model the index was not built with. Semantic search is off, never faked, while no model
 * is available; keyword search works regardless.
 */
export class SearchRuntime {
  private index?: SearchIndex;
  private embeddings: OpenedSearchEmbeddings = {};
  private reason?: string = 'the search index is not open yet';
  private filler?: VectorFiller;
  private monitor?: NodeJS.Timeout;
  private backlog?: VectorBacklog;
  /** Latched once the backlog left by indexing has been embedded. */
  private vectorsReady = false;
  /** Latched once what was ingested at start has been indexed and refreshed into the index. */
  private keywordCurrent = false;
  private fetching?: Promise<void>;
  private closing = false;
  private poke: () => void = () => {};

  constructor(private readonly factories: SearchRuntimeFactories) {}

  async start(options: {
    query: boolean;
    indexing: boolean;
    fetchIfMissing: boolean;
    logger: Logger;
  }): Promise<void> {
    const started = Date.now();
    // A model that is cached (or a server) opens in about a second; a download runs in the
    // background so that keyword search does not wait for it.
    this.embeddings = await this.factories.openEmbeddings({ ...options, fetchIfMissing: false });
    const port = this.embeddings.query ?? this.embeddings.indexing;
    const index = this.factories.createIndex(port ? { dimensions: port.dimensions, model: port.model } : {});
    await index.open();
    this.index = index;
    this.reason = this.embeddings.reason;
    this.checkModel(options.logger);
    const status = this.status();
    if (port) {
      options.logger.info({ ...status, startupMs: Date.now() - started }, 'search index open');
    } else if (options.fetchIfMissing && (options.query || options.indexing)) {
      this.reason = 'the embeddings model is being fetched';
      this.fetching = this.factories
        .openEmbeddings(options)
        .then(async (opened) => {
          if (this.closing) {
            await opened.query?.close();
            if (opened.indexing !== opened.query) await opened.indexing?.close();
            return;
          }
          this.embeddings = opened;
          this.reason = opened.reason;
          this.checkModel(options.logger);
          const after = this.status();
          if (after.semantic_state === 'unavailable') {
            options.logger.warn({ ...after }, 'semantic search unavailable; keyword search works');
          } else {
            options.logger.info(
              { ...after, fetchMs: Date.now() - started },
              'embeddings model fetched and loaded',
            );
            this.poke();
          }
        })
        .catch((err: unknown) => {
          this.reason = `the embeddings model could not be loaded: ${(err as Error).message}`;
          options.logger.warn({ err }, 'semantic search unavailable; keyword search works');
        });
      options.logger.info({ ...this.status() }, 'search index open; fetching the embeddings model');
    } else {
      options.logger.warn({ ...status }, 'semantic search unavailable; keyword search works');
    }
  }

  /** Refuses vectors of a model the index was not built with. */
  private checkModel(logger: Logger): void {
    const port = this.embeddings.query ?? this.embeddings.indexing;
    const index = this.index;
    if (!port || !index) return;
    if (index.dimensions !== port.dimensions || (index.model && index.model !== port.model)) {
      this.reason =
        `the search index holds ${index.dimensions}-dimension vectors of ${index.model ?? 'another model'}, ` +
        `not of ${port.model} (${port.dimensions}); rebuild the search projection to switch models`;
      void this.closeEmbeddings().catch((err: unknown) => logger.warn({ err }, 'closing the model failed'));
    }
  }

  /**
   * Vectors: counts the lines and clips still without a vector, runs the vector filler when
   * `fill`, and opens semantic search once the backlog left by indexing is done. Keyword search
   * needs none of this.
   */
  startVectors(options: StartVectorsOptions): void {
    if (this.monitor || !this.index) return;
    const index = this.index;
    if (options.fill) {
      this.filler = new VectorFiller({
        index: () => index,
        embeddings: () => this.embeddings.indexing,
        logger: options.logger,
      });
    }
    const poll = options.pollMs ?? 1000;
    const started = Date.now();
    let indexed = false;
    const tick = async () => {
      if (!indexed) indexed = await options.indexingCaughtUp();
      if (indexed && !this.keywordCurrent) {
        // Rows the projector wrote since the last scheduled refresh are not in LanceDB's
        // full-text index yet (phrase queries miss them) and OpenSearch shows writes at its next
        // refresh: keyword search is ready once this refresh has folded them in.
        const refreshStarted = Date.now();
        await index.refresh();
        this.keywordCurrent = true;
        options.logger.info(
          { readyMs: Date.now() - started, refreshMs: Date.now() - refreshStarted },
          'keyword search ready',
        );
      }
      if (this.keywordCurrent) this.filler?.start();
      if (!this.embeddings.query && !this.embeddings.indexing) return;
      this.backlog = await index.vectorBacklog();
      if (!this.vectorsReady && indexed && this.backlog.embedded === this.backlog.total) {
        this.vectorsReady = true;
        options.logger.info(
          { ...this.status(), catchUpMs: Date.now() - started, vectors: this.filler?.stats },
          'semantic search ready',
        );
        // Every row has its vector: what a rebuild kept aside for the filler is not needed again.
        if (this.filler) {
          const dropped = await index.dropCarriedVectors();
          if (dropped > 0)
            options.logger.info({ vectors: dropped }, 'vectors kept aside by the rebuild dropped');
        }
      }
    };
    const loop = () => {
      this.monitor = setTimeout(
        () => {
          tick()
            .catch((err: unknown) =>
              options.logger.warn(
                { err },
                'search readiness check (refresh, vector backlog) failed; retrying',
              ),
            )
            .finally(() => {
              if (this.monitor) loop();
            });
        },
        // Counted every `poll` while vectors are missing, so that answers report their coverage.
        !this.keywordCurrent
          ? poll / 4
          : this.vectorsReady && this.backlog?.embedded === this.backlog?.total
            ? poll * 2
            : poll,
      );
      this.monitor.unref();
    };
    this.poke = () => {
      this.filler?.wake();
    };
    loop();
  }

  /** New rows were indexed: the filler starts its next pass now. */
  notifyIndexed(): void {
    this.filler?.wake();
  }

  get searchIndex(): SearchIndex {
    if (!this.index) throw new Error('search is not started');
    return this.index;
  }

  /**
   * Keyword search answers over everything ingested at start: the index is open and, when this
   * process indexes (`startVectors`), it has caught up and refreshed. Latched.
   */
  get keywordReady(): boolean {
    if (!this.index) return false;
    return this.monitor === undefined || this.keywordCurrent;
  }

  queryEmbeddings(): EmbeddingsPort | undefined {
    return this.embeddings.query;
  }

  indexingEmbeddings(): EmbeddingsPort | undefined {
    return this.embeddings.indexing;
  }

  /** Why semantic search is unavailable; undefined when it works. */
  unavailableReason(): string | undefined {
    const state = this.semanticState();
    if (state === 'ready') return undefined;
    if (state === 'unavailable') return this.reason ?? 'no embeddings model';
    const b = this.backlog;
    return b
      ? `the search index is still embedding what it indexed before the model was ready (${b.passages} passages and ${b.clips} clips to go)`
      : 'the search index is still embedding what it indexed before the model was ready';
  }

  /**
   * How much of the index has vectors while some of it has none (`embedded` of `total` passages
   * and clips, as last counted); undefined once every row has its vector or when not counted.
   * Semantic and hybrid answers carry it (`semantic_coverage`).
   */
  semanticCoverage(): { embedded: number; total: number } | undefined {
    const b = this.backlog;
    if (!b || b.embedded >= b.total) return undefined;
    return { embedded: b.embedded, total: b.total };
  }

  semanticState(): SemanticState {
    if (!this.index || (!this.embeddings.query && !this.embeddings.indexing)) return 'unavailable';
    // Without startVectors (a process that only reads, e.g. tests), vectors are taken as they are.
    if (this.monitor === undefined) return 'ready';
    return this.vectorsReady ? 'ready' : 'catching_up';
  }

  status(): SearchStatus {
    const port = this.embeddings.query ?? this.embeddings.indexing;
    const state = this.semanticState();
    const out: SearchStatus = {
      engine: this.index?.kind,
      keyword: this.keywordReady,
      semantic: state === 'ready',
      semantic_state: state,
    };
    if (this.backlog) out.vector_backlog = this.backlog;
    if (port) {
      out.model = port.model;
      out.dimensions = port.dimensions;
    }
    const reason = this.unavailableReason();
    if (reason) out.reason = reason;
    return out;
  }

  private async closeEmbeddings(): Promise<void> {
    const { query, indexing } = this.embeddings;
    this.embeddings = {};
    await query?.close();
    if (indexing !== query) await indexing?.close();
  }

  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.monitor);
    this.monitor = undefined;
    await this.filler?.stop();
    await this.fetching;
    await this.closeEmbeddings();
    await this.index?.close();
    this.index = undefined;
  }
}
