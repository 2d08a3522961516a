import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { type EmbeddingsPort, l2Normalise } from './embeddings-port.ts';
import { type LocalModel, localModel, MODEL_FILE, MODEL_NAME, TOKENIZER_FILE } from './model-fetch.ts';

export interface OnnxEmbeddingsOptions {
  /** Directory holding `model.onnx` and `tokenizer.json` (see `fetchModel`). */
  modelDir: string;
  /**
   * Which local model the directory holds (its name and pooling); default: the `model` its
   * `manifest.json` records, else MODEL_NAME.
   */
  model?: string;
  /**
   * Threads ORT uses inside one inference. Default 2: on a 2-core machine that nearly doubles
   * throughput over 1 (about 360 vs 195 lines/s in batches of 32); use 1 to leave a core free.
   */
  intraOpNumThreads?: number;
  /** Most texts per inference call; larger calls are split. */
  maxBatchSize?: number;
  /** Tokens per text including [CLS] and [SEP]; all-MiniLM-L6-v2's max_seq_length is 256. */
  maxSeqLength?: number;
  /**
   * What the texts are, for a model that reads them with a role prefix (LocalModel.prefixes):
   * `query` for search queries, `passage` (the default) for what is indexed.
   */
  role?: EmbeddingRole;
}

export type EmbeddingRole = 'query' | 'passage';

const DEFAULT_MAX_SEQ_LENGTH = 256;
const DEFAULT_MAX_BATCH_SIZE = 32;

/**
 * Sentence embeddings from a local BERT-style model (LOCAL_MODELS): WordPiece tokens through the
 * ONNX transformer, pooled as the model defines it (all-MiniLM-L6-v2: mean over the attention
 * mask, as sentence-transformers does; BGE: the [CLS] state), then L2-normalised.
 */
export class OnnxEmbeddings implements EmbeddingsPort {
  readonly model: string;
  readonly dimensions: number;
  readonly #pooling: LocalModel['pooling'];
  readonly #prefix: string;

  readonly #session: InferenceSession;
  readonly #tokenizer: Tokenizer;
  readonly #clsId: number;
  readonly #sepId: number;
  readonly #padId: number;
  readonly #maxSeqLength: number;
  readonly #maxBatchSize: number;
  readonly #outputName: string;
  // One inference at a time: concurrent runs would only fight over the same cores.
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  private constructor(
    session: InferenceSession,
    tokenizer: Tokenizer,
    tokenizerJson: TokenizerJson,
    options: OnnxEmbeddingsOptions & { model: string },
  ) {
    const spec = localModel(options.model);
    this.model = spec.name;
    this.#pooling = spec.pooling;
    this.#prefix = spec.prefixes?.[options.role ?? 'passage'] ?? '';
    this.#session = session;
    this.#tokenizer = tokenizer;
    this.#maxSeqLength = options.maxSeqLength ?? DEFAULT_MAX_SEQ_LENGTH;
    this.#maxBatchSize = options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE;
    // BERT's position embeddings stop at 512.
    if (this.#maxSeqLength < 3 || this.#maxSeqLength > 512) throw new Error('maxSeqLength must be 3..512');
    if (this.#maxBatchSize < 1) throw new Error('maxBatchSize must be positive');
    this.#clsId = tokenId(tokenizer, '[CLS]');
    this.#sepId = tokenId(tokenizer, '[SEP]');
    this.#padId = tokenizerJson.padding?.pad_id ?? tokenId(tokenizer, '[PAD]');

    for (const input of ['input_ids', 'attention_mask']) {
      if (!session.inputNames.includes(input)) {
        throw new Error(`${MODEL_FILE} has no ${input} input (inputs: ${session.inputNames.join(', ')})`);
      }
    }
    this.#outputName = session.outputNames.includes('last_hidden_state')
      ? 'last_hidden_state'
      : session.outputNames[0]!;
    const outputIndex = session.outputNames.indexOf(this.#outputName);
    const meta = session.outputMetadata[outputIndex];
    const hidden = meta?.isTensor ? meta.shape[2] : undefined;
    if (typeof hidden !== 'number') {
      throw new Error(`${MODEL_FILE}: cannot tell the hidden size of its output`);
    }
    this.dimensions = hidden;
  }

  static async open(options: OnnxEmbeddingsOptions): Promise<OnnxEmbeddings> {
    const model = options.model ?? (await manifestModel(options.modelDir)) ?? MODEL_NAME;
    localModel(model); // an unknown name fails before the session is built
    const tokenizerJson = JSON.parse(
      await readFile(path.join(options.modelDir, TOKENIZER_FILE), 'utf8'),
    ) as TokenizerJson;
    // Truncation and padding are done here, per batch, so the file's fixed 128 padding is unused.
    const tokenizer = new Tokenizer(tokenizerJson, {});
    const session = await InferenceSession.create(path.join(options.modelDir, MODEL_FILE), {
      executionProviders: ['cpu'],
      graphOptimizationLevel: 'all',
      executionMode: 'sequential',
      intraOpNumThreads: options.intraOpNumThreads ?? 2,
      interOpNumThreads: 1,
      // Idle pool threads sleep instead of spinning, leaving the cores to the rest of the process.
      extra: { session: { intra_op: { allow_spinning: '0' } } },
    });
    try {
      return new OnnxEmbeddings(session, tokenizer, tokenizerJson, { ...options, model });
    } catch (err) {
      await session.release();
      throw err;
    }
  }

  /**
   * Token ids the model sees for `text`: [CLS] + WordPiece ids of the role's prefix and the text,
   * truncated to fit, + [SEP].
   */
  tokenize(text: string): number[] {
    const limit = this.#maxSeqLength - 2;
    return [this.#clsId, ...this.#wordPieceIds(this.#prefix + text, limit), this.#sepId];
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (this.#closed) throw new Error('embeddings port is closed');
    if (texts.length === 0) return [];
    const tokenized = texts.map((text) => this.tokenize(text));
    // Longest first, so each batch pads to lengths close to its own and little compute is wasted.
    const order = tokenized.map((_, i) => i).sort((a, b) => tokenized[b]!.length - tokenized[a]!.length);
    const out = new Array<Float32Array>(texts.length);
    for (let start = 0; start < order.length; start += this.#maxBatchSize) {
      const indexes = order.slice(start, start + this.#maxBatchSize);
      const vectors = await this.#enqueue(() => this.#runBatch(indexes.map((i) => tokenized[i]!)));
      indexes.forEach((i, k) => {
        out[i] = vectors[k]!;
      });
    }
    return out;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#queue.catch(() => {});
    await this.#session.release();
  }

  #wordPieceIds(text: string, limit: number): number[] {
    // Long texts: tokenize a prefix cut at a space. Normalisation and pre-tokenisation work per
    // character and split on spaces, so the prefix's ids are exactly the first ids of the whole.
    for (let cut = limit * 16; cut < text.length; cut *= 4) {
      const space = text.indexOf(' ', cut);
      if (space < 0) break;
      const ids = this.#tokenizer.encode(text.slice(0, space), { add_special_tokens: false }).ids;
      if (ids.length >= limit) return ids.slice(0, limit);
    }
    return this.#tokenizer.encode(text, { add_special_tokens: false }).ids.slice(0, limit);
  }

  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => {});
    return run;
  }

  async #runBatch(batch: number[][]): Promise<Float32Array[]> {
    // A call still running when close() came in must not touch the released session.
    if (this.#closed) throw new Error('embeddings port is closed');
    const rows = batch.length;
    const cols = Math.max(...batch.map((ids) => ids.length));
    const inputIds = new BigInt64Array(rows * cols).fill(BigInt(this.#padId));
    const attentionMask = new BigInt64Array(rows * cols);
    batch.forEach((ids, r) => {
      for (let c = 0; c < ids.length; c++) {
        inputIds[r * cols + c] = BigInt(ids[c]!);
        attentionMask[r * cols + c] = 1n;
      }
    });
    const dims = [rows, cols];
    const feeds: Record<string, Tensor> = {
      input_ids: new Tensor('int64', inputIds, dims),
      attention_mask: new Tensor('int64', attentionMask, dims),
    };
    if (this.#session.inputNames.includes('token_type_ids')) {
      feeds['token_type_ids'] = new Tensor('int64', new BigInt64Array(rows * cols), dims);
    }
    const result = await this.#session.run(feeds, [this.#outputName]);
    const output = result[this.#outputName]!;
    try {
      const hidden = output.data as Float32Array;
      const dim = this.dimensions;
      return batch.map((ids, r) => {
        if (this.#pooling === 'cls') {
          const base = r * cols * dim;
          return l2Normalise(Float32Array.from(hidden.subarray(base, base + dim)));
        }
        // Mean over the real tokens only; padded positions carry no meaning.
        const v = new Float32Array(dim);
        for (let t = 0; t < ids.length; t++) {
          const base = (r * cols + t) * dim;
          for (let d = 0; d < dim; d++) v[d]! += hidden[base + d]!;
        }
        for (let d = 0; d < dim; d++) v[d]! /= ids.length;
        return l2Normalise(v);
      });
    } finally {
      output.dispose();
    }
  }
}

/** The `model` recorded in the directory's `manifest.json` (written by fetchModel), if any. */
async function manifestModel(dir: string): Promise<string | undefined> {
  try {
    const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as {
      model?: unknown;
    };
    return typeof manifest.model === 'string' ? manifest.model : undefined;
  } catch {
    return undefined;
  }
}

interface TokenizerJson {
  padding?: { pad_id?: number } | null;
}

function tokenId(tokenizer: Tokenizer, token: string): number {
  const id = tokenizer.token_to_id(token);
  if (id === undefined) throw new Error(`${TOKENIZER_FILE} has no ${token} token`);
  return id;
}
