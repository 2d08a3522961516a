import path from 'node:path';
import type { EmbeddingsAvailability, EmbeddingsPort } from '../../projections/embeddings/embeddings-port.ts';
import {
  type FetchProgress,
  fetchModel,
  findCachedModel,
  MODEL_NAME,
} from '../../projections/embeddings/model-fetch.ts';
import { OnnxEmbeddings } from '../../projections/embeddings/onnx-embeddings.ts';
import { OpenAiEmbeddings } from '../../projections/embeddings/openai-embeddings.ts';

/**
 * An embeddings adapter chosen from a plain configuration, for tests of the adapters: the server
 * when a URL is given, else the cached local model, else none with the reason. The service
 * chooses its adapters in infra/composition.ts from its Config.
 */
export interface EmbeddingsConfig {
  /** OpenAI-compatible server; when set it is used instead of the local model. */
  url?: string;
  /** Model name sent to the server. */
  model?: string;
  apiKey?: string;
  /** Vector size the server returns; when unset one probe request finds it. */
  dimensions?: number;
  /** Retries per server request after a 429, 5xx or network error (adapter default when unset). */
  maxRetries?: number;
  /** Where the local model is cached (`<data dir>/models`). */
  modelsDir: string;
  /** ORT intra-op threads for the local model. */
  threads?: number;
  /** Download the local model when it is not cached yet, instead of reporting it unavailable. */
  fetchIfMissing?: boolean;
  onProgress?: (progress: FetchProgress) => void;
}

export interface OpenedEmbeddings {
  port?: EmbeddingsPort;
  availability: EmbeddingsAvailability;
}

/** `<EARSHOT_DATA_DIR or ./data>/models`. */
export function modelsDirOf(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env['EARSHOT_DATA_DIR'] || './data', 'models');
}

export function embeddingsConfigFromEnv(env: NodeJS.ProcessEnv = process.env): EmbeddingsConfig {
  const number = (name: string) => {
    const raw = env[name];
    if (!raw) return undefined;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1) {
      throw new Error(`${name} must be a positive integer, got ${raw}`);
    }
    return value;
  };
  const config: EmbeddingsConfig = {
    modelsDir: modelsDirOf(env),
    fetchIfMissing: /^(1|on|true|yes)$/i.test(env['EARSHOT_EMBEDDINGS_FETCH'] ?? ''),
  };
  if (env['EARSHOT_EMBEDDINGS_URL']) config.url = env['EARSHOT_EMBEDDINGS_URL'];
  if (env['EARSHOT_EMBEDDINGS_MODEL']) config.model = env['EARSHOT_EMBEDDINGS_MODEL'];
  if (env['EARSHOT_EMBEDDINGS_API_KEY']) config.apiKey = env['EARSHOT_EMBEDDINGS_API_KEY'];
  const dimensions = number('EARSHOT_EMBEDDINGS_DIMENSIONS');
  if (dimensions) config.dimensions = dimensions;
  const threads = number('EARSHOT_EMBEDDINGS_THREADS');
  if (threads) config.threads = threads;
  return config;
}

/**
 * Picks the embeddings adapter: the configured server, else the cached local model, else none.
 * Never substitutes made-up vectors; without a port, semantic search must answer unavailable.
 */
export async function openEmbeddings(config: EmbeddingsConfig): Promise<OpenedEmbeddings> {
  if (config.url) {
    try {
      const port = await OpenAiEmbeddings.open({
        url: config.url,
        model: config.model ?? 'all-MiniLM-L6-v2',
        ...(config.apiKey ? { apiKey: config.apiKey } : {}),
        ...(config.dimensions ? { dimensions: config.dimensions } : {}),
        ...(config.maxRetries !== undefined ? { maxRetries: config.maxRetries } : {}),
      });
      return { port, availability: available(port) };
    } catch (err) {
      return unavailable(`embeddings server ${config.url} failed: ${message(err)}`);
    }
  }

  let cached = await findCachedModel(config.modelsDir);
  if (!cached && config.fetchIfMissing) {
    try {
      cached = await fetchModel({
        modelsDir: config.modelsDir,
        ...(config.onProgress ? { onProgress: config.onProgress } : {}),
      });
    } catch (err) {
      return unavailable(message(err));
    }
  }
  if (!cached) {
    return unavailable(
      `no embeddings server configured (EARSHOT_EMBEDDINGS_URL) and ${MODEL_NAME} is not cached in ${config.modelsDir}`,
    );
  }
  try {
    const port = await OnnxEmbeddings.open({
      modelDir: cached.dir,
      ...(config.threads ? { intraOpNumThreads: config.threads } : {}),
    });
    return { port, availability: available(port) };
  } catch (err) {
    return unavailable(`${MODEL_NAME} in ${cached.dir} could not be loaded: ${message(err)}`);
  }
}

function available(port: EmbeddingsPort): EmbeddingsAvailability {
  return { available: true, model: port.model, dimensions: port.dimensions };
}

function unavailable(reason: string): OpenedEmbeddings {
  return { availability: { available: false, reason } };
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
