import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { EmbeddingsPort } from './embeddings-port.ts';

export interface WorkerEmbeddingsOptions {
  modelDir: string;
  /** See OnnxEmbeddingsOptions.model. */
  model?: string;
  /** ORT intra-op threads inside the worker. */
  intraOpNumThreads?: number;
}

type Reply =
  | { id: number; vectors?: Float32Array[]; error?: string }
  | { ready: true; dimensions: number; model: string };

/**
 * The local ONNX model in a worker thread. Inference and tokenisation block the thread they run
 * on (about 100 ms per batch of 32 lines), so the projector embeds through this port and the API
 * thread stays free to answer; queries embed one short text on the API thread's own instance.
 */
export class WorkerEmbeddings implements EmbeddingsPort {
  #nextId = 1;
  readonly #pending = new Map<number, { resolve: (v: Float32Array[]) => void; reject: (e: Error) => void }>();
  #closed = false;

  private constructor(
    private readonly worker: Worker,
    readonly dimensions: number,
    readonly model: string,
  ) {
    worker.on('message', (msg: Reply) => {
      if ('ready' in msg) return;
      const p = this.#pending.get(msg.id);
      if (!p) return;
      this.#pending.delete(msg.id);
      if (msg.error !== undefined) p.reject(new Error(msg.error));
      else p.resolve(msg.vectors!);
    });
    worker.on('error', (err) => this.#failAll(err));
    worker.on('exit', (code) => this.#failAll(new Error(`embeddings worker exited with code ${code}`)));
  }

  static async open(options: WorkerEmbeddingsOptions): Promise<WorkerEmbeddings> {
    const worker = spawnTsWorker(new URL('./embeddings-worker.ts', import.meta.url), options);
    let cleanup = () => {};
    const ready = await new Promise<{ dimensions: number; model: string }>((resolve, reject) => {
      const onMessage = (msg: Reply) => {
        if ('ready' in msg) resolve(msg);
        else if (msg.error) reject(new Error(msg.error));
      };
      const onExit = (code: number) => reject(new Error(`embeddings worker exited with code ${code}`));
      worker.on('message', onMessage);
      worker.on('error', reject);
      worker.on('exit', onExit);
      cleanup = () => {
        worker.off('message', onMessage);
        worker.off('error', reject);
        worker.off('exit', onExit);
      };
    }).finally(() => cleanup());
    return new WorkerEmbeddings(worker, ready.dimensions, ready.model);
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    if (this.#closed) return Promise.reject(new Error('embeddings port is closed'));
    if (texts.length === 0) return Promise.resolve([]);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, texts });
    });
  }

  #failAll(err: Error): void {
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.worker.postMessage({ close: true });
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => void this.worker.terminate().then(() => resolve()), 5000);
      this.worker.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    this.#failAll(new Error('embeddings port is closed'));
  }
}

/**
 * Starts a worker running a TypeScript module: the worker registers the same TypeScript loader
 * the process uses, then imports the module.
 */
export function spawnTsWorker(module: URL, workerData: unknown): Worker {
  const require = createRequire(import.meta.url);
  const loader = pathToFileURL(require.resolve('tsx/esm/api').replace(/index\.cjs$/, 'index.mjs')).href;
  const code = `import(${JSON.stringify(loader)}).then((m) => { m.register(); return import(${JSON.stringify(module.href)}); });`;
  return new Worker(code, { eval: true, workerData });
}
