import { parentPort, workerData } from 'node:worker_threads';
import { OnnxEmbeddings } from './onnx-embeddings.ts';
import type { WorkerEmbeddingsOptions } from './worker-embeddings.ts';

// The body of WorkerEmbeddings' thread: one OnnxEmbeddings, requests answered in order.
const options = workerData as WorkerEmbeddingsOptions;
const port = parentPort!;

try {
  const model = await OnnxEmbeddings.open({
    modelDir: options.modelDir,
    ...(options.model ? { model: options.model } : {}),
    ...(options.intraOpNumThreads ? { intraOpNumThreads: options.intraOpNumThreads } : {}),
  });
  port.on('message', async (msg: { id?: number; texts?: string[]; close?: boolean }) => {
    if (msg.close) {
      await model.close();
      port.close();
      return;
    }
    try {
      const vectors = await model.embed(msg.texts ?? []);
      port.postMessage(
        { id: msg.id, vectors },
        vectors.map((v) => v.buffer as ArrayBuffer),
      );
    } catch (err) {
      port.postMessage({ id: msg.id, error: (err as Error).message });
    }
  });
  port.postMessage({ ready: true, dimensions: model.dimensions, model: model.model });
} catch (err) {
  port.postMessage({ id: 0, error: `could not load the model: ${(err as Error).message}` });
}
