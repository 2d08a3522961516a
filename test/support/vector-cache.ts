import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import type { EmbeddingsPort } from '../../projections/embeddings/embeddings-port.ts';
import type { ModelManifest } from '../../projections/embeddings/model-fetch.ts';

/**
 * The vectors the real model gave for each text, kept across runs (per model, keyed by the
 * SHA-256 of its ONNX file and tokenizer): the search test files embed the same generated corpora
 * every run, and the model is most of their CPU time. A text the cache has not seen is embedded
 * by the model and stored; queries never go through it. `EARSHOT_TEST_VECTOR_CACHE=off` turns it
 * off (every text embedded again, as on a machine's first run).
 */
export function vectorCacheEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return !/^(0|off|false|no)$/i.test(env['EARSHOT_TEST_VECTOR_CACHE'] ?? '');
}

const databases = new Map<string, RootDatabase<Buffer, string>>();

function database(manifest: ModelManifest): RootDatabase<Buffer, string> {
  const files = Object.entries(manifest.files)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, f]) => `${name}:${f.sha256}`)
    .join(',');
  const id = createHash('sha256').update(`${manifest.model}\n${files}`).digest('hex').slice(0, 16);
  const dir = path.join(
    process.env['EARSHOT_TEST_CACHE_DIR'] || tmpdir(),
    'earshot-test-vectors',
    `${manifest.model}-${id}`,
  );
  let db = databases.get(dir);
  if (!db) {
    // Several test processes read and write it at once: LMDB takes care of that.
    db = open<Buffer, string>({ path: dir, encoding: 'binary', compression: false });
    databases.set(dir, db);
  }
  return db;
}

const keyOf = (text: string) => createHash('sha256').update(text).digest('base64url');

/**
 * An embeddings port that answers from the cache and hands the texts it has not seen to the
 * model, opened on the first such text (a run with every text cached loads no second model).
 */
export class CachedEmbeddings implements EmbeddingsPort {
  private opened?: Promise<EmbeddingsPort>;
  hits = 0;
  misses = 0;

  constructor(
    private readonly manifest: ModelManifest,
    readonly model: string,
    readonly dimensions: number,
    private readonly openModel: () => Promise<EmbeddingsPort>,
  ) {}

  async embed(texts: string[]): Promise<Float32Array[]> {
    const db = database(this.manifest);
    const out: Float32Array[] = new Array(texts.length);
    const missing: number[] = [];
    texts.forEach((text, i) => {
      const stored = db.get(keyOf(text));
      if (stored && stored.byteLength === this.dimensions * 4) {
        out[i] = new Float32Array(
          stored.buffer.slice(stored.byteOffset, stored.byteOffset + stored.byteLength),
        );
      } else {
        missing.push(i);
      }
    });
    this.hits += texts.length - missing.length;
    this.misses += missing.length;
    if (missing.length > 0) {
      this.opened ??= this.openModel();
      const vectors = await (await this.opened).embed(missing.map((i) => texts[i]!));
      missing.forEach((i, k) => {
        const v = vectors[k]!;
        out[i] = v;
        void db.put(keyOf(texts[i]!), Buffer.from(new Uint8Array(v.buffer, v.byteOffset, v.byteLength)));
      });
    }
    return out;
  }

  async close(): Promise<void> {
    if (this.opened) await (await this.opened).close();
    await database(this.manifest).committed;
  }
}
