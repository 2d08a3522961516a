import type { Client } from '@opensearch-project/opensearch';
import { chunks } from '../index-rows.ts';
import type { VectorModel } from '../search-index.ts';
import type { Json } from './mappings.ts';

/**
 * Vectors kept aside through a rebuild of the search index, as on LanceDB
 * (../lancedb/carried-vectors.ts says why): the rebuild copies the vector indexes' keys and vectors
 * into one `carried_vectors` index (server side, `_reindex`) with the model they came from, then
 * deletes the index's other indexes. Nothing searches it; the vector filler looks keys up in it.
 */

export const CARRIED_INDEX = 'carried_vectors';

/**
 * Copies the vectors of `sources` (those holding any) into the carried index: added to an earlier
 * rebuild's of the same model (a rebuild run again before the filler finished keeps both), else
 * replacing it. With nothing to copy, an earlier carried index stays. Returns the vectors copied.
 */
export async function carryVectors(
  client: Client,
  carried: string,
  sources: string[],
  meta: VectorModel,
): Promise<number> {
  const present: string[] = [];
  for (const index of sources) {
    const count = await client.count({ index }, { ignore: [404] });
    if (count.statusCode !== 404 && Number((count.body as Json).count) > 0) present.push(index);
  }
  if (present.length === 0) return 0;
  const earlier = await carriedMeta(client, carried);
  if (earlier?.model === meta.model && earlier.dimensions === meta.dimensions) {
    return copy(client, present, carried);
  }
  await client.indices.delete({ index: carried }, { ignore: [404] });
  await client.indices.create({
    index: carried,
    body: {
      settings: { index: { number_of_shards: 1, number_of_replicas: 0 } },
      mappings: {
        dynamic: 'strict',
        _meta: { ...meta },
        properties: {
          vector_key: { type: 'keyword' },
          // Kept in _source only, not even parsed: read back whole, never searched.
          vector: { type: 'object', enabled: false },
        },
      },
    } as never,
  });
  return copy(client, present, carried);
}

/**
 * `_reindex` of `present` into `carried`, run as a task and waited for by polling: waited for in
 * the request, OpenSearch 2.x answers with a resource-usage header per batch, which overflows an
 * HTTP client's header limit on a large index (and one request would have to stay open for it).
 */
async function copy(client: Client, present: string[], carried: string): Promise<number> {
  const started = await client.reindex({
    wait_for_completion: false,
    refresh: true,
    body: {
      source: { index: present, _source: ['vector_key', 'vector'], size: 2000 },
      dest: { index: carried },
    } as never,
  });
  const task = String((started.body as Json).task);
  for (;;) {
    // Waits up to 30 s a call; still running, the answer is a timeout error (408 or 500).
    const res = await client.tasks.get(
      { task_id: task, wait_for_completion: true, timeout: '30s' },
      { ignore: [408, 500], requestTimeout: 60_000 },
    );
    const body = res.body as Json;
    if (res.statusCode !== 200 && body?.error?.type !== 'timeout_exception') {
      throw new Error(`carrying vectors: task ${task}: ${JSON.stringify(body?.error ?? body)}`);
    }
    if (body?.completed) {
      // The finished task's record stays in `.tasks` until deleted.
      await client.delete({ index: '.tasks', id: task }, { ignore: [404] }).catch(() => {});
      const r = body.response ?? {};
      const failure = body.error ?? r.failures?.[0];
      if (failure) throw new Error(`carrying vectors failed: ${JSON.stringify(failure)}`);
      return Number(r.created ?? 0) + Number(r.updated ?? 0);
    }
  }
}

/** The model and dimensions of the carried index, or undefined when there is none. */
export async function carriedMeta(client: Client, carried: string): Promise<VectorModel | undefined> {
  const res = await client.indices.getMapping({ index: carried }, { ignore: [404] });
  if (res.statusCode === 404) return undefined;
  const meta = (res.body as Json)[carried]?.mappings?._meta;
  return meta?.model && meta?.dimensions
    ? { model: meta.model, dimensions: Number(meta.dimensions) }
    : undefined;
}

/** The carried vectors of these keys (one per key). */
export async function lookUpCarried(
  client: Client,
  carried: string,
  keys: string[],
): Promise<Map<string, Float32Array>> {
  const out = new Map<string, Float32Array>();
  for (const part of chunks([...new Set(keys)], 1000)) {
    const res = await client.search(
      {
        index: carried,
        body: {
          size: part.length,
          query: { terms: { vector_key: part } },
          // The same text is in many passages (an intro, an ad read): one document per key.
          collapse: { field: 'vector_key' },
          _source: ['vector_key', 'vector'],
        },
      },
      { ignore: [404] },
    );
    if (res.statusCode === 404) return new Map();
    for (const hit of (res.body as Json).hits.hits) {
      out.set(hit._source.vector_key, Float32Array.from(hit._source.vector as number[]));
    }
  }
  return out;
}

/** Deletes the carried index; returns how many vectors it held. */
export async function dropCarried(client: Client, carried: string): Promise<number> {
  const count = await client.count({ index: carried }, { ignore: [404] });
  if (count.statusCode === 404) return 0;
  await client.indices.delete({ index: carried }, { ignore: [404] });
  return Number((count.body as Json).count ?? 0);
}
