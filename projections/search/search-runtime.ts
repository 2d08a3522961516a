import type { Logger } from 'pino';
import type { EmbeddingsPort } from '../embeddings/embeddings-port.ts';
import type { SearchIndex, SearchIndexOptions } from './search-index.ts';

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

export interface SearchStatus {
  engine: string | undefined;
  keyword: boolean;
  semantic: boolean;
  model?: string;
  dimensions?: number;
  reason?: string;
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

  constructor(private readonly factories: SearchRuntimeFactories) {}

  async start(options: {
    query: boolean;
    indexing: boolean;
    fetchIfMissing: boolean;
    logger: Logger;
  }): Promise<void> {
    const started = Date.now();
    this.embeddings = await this.factories.openEmbeddings(options);
    const port = this.embeddings.query ?? this.embeddings.indexing;
    const index = this.factories.createIndex(port ? { dimensions: port.dimensions, model: port.model } : {});
    await index.open();
    this.index = index;
    this.reason = this.embeddings.reason;
    if (port && (index.dimensions !== port.dimensions || (index.model && index.model !== port.model))) {
      this.reason =
        `the search index holds ${index.dimensions}-dimension vectors of ${index.model ?? 'another model'}, ` +
        `not of ${port.model} (${port.dimensions}); rebuild the search projection to switch models`;
      await this.closeEmbeddings();
    }
    const status = this.status();
    if (status.semantic) {
      options.logger.info({ ...status, startupMs: Date.now() - started }, 'search ready');
    } else {
      options.logger.warn({ ...status }, 'semantic search unavailable; keyword search works');
    }
  }

  get searchIndex(): SearchIndex {
    if (!this.index) throw new Error('search is not started');
    return this.index;
  }

  get opened(): boolean {
    return this.index !== undefined;
  }

  queryEmbeddings(): EmbeddingsPort | undefined {
    return this.embeddings.query;
  }

  indexingEmbeddings(): EmbeddingsPort | undefined {
    return this.embeddings.indexing;
  }

  /** Why semantic search is unavailable; undefined when it works. */
  unavailableReason(): string | undefined {
    return this.embeddings.query || this.embeddings.indexing ? undefined : this.reason;
  }

  status(): SearchStatus {
    const port = this.embeddings.query ?? this.embeddings.indexing;
    const out: SearchStatus = {
      engine: this.index?.kind,
      keyword: this.index !== undefined,
      semantic: this.index !== undefined && port !== undefined,
    };
    if (port) {
      out.model = port.model;
      out.dimensions = port.dimensions;
    } else {
      out.reason = this.reason ?? 'no embeddings model';
    }
    return out;
  }

  private async closeEmbeddings(): Promise<void> {
    const { query, indexing } = this.embeddings;
    this.embeddings = {};
    await query?.close();
    if (indexing !== query) await indexing?.close();
  }

  async close(): Promise<void> {
    await this.closeEmbeddings();
    await this.index?.close();
    this.index = undefined;
  }
}
