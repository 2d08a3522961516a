import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { loadConfig } from '../../infra/config.ts';
import { silentLogger } from '../../infra/logger.ts';
import { startService } from '../../infra/service.ts';
import { RECORD_FILES } from '../../ingest/corpus/generate.ts';
import { BatchIngest } from '../../ingest/loader/batch-ingest.ts';
import { IngestState } from '../../ingest/loader/ingest-state.ts';
import { loadNdjson } from '../../ingest/loader/loader.ts';
import { validateIngestBatch } from '../../ingest/loader/validate.ts';
import { spawnTsWorker } from '../../projections/embeddings/worker-embeddings.ts';
import { tempDir } from '../support/temp-dir.ts';
import type { Bench, BenchResult } from './bench.ts';
import { percentile } from './bench.ts';
import { benchCorpus } from './bench-corpus.ts';

/** The month of the bench corpus replayed and downloaded (the corpus ends on 2025-11-21). */
const MONTH = '2025-10';
/** Where the live episodes' transcripts come from (re-keyed, sent as new episodes). */
const LIVE_SOURCE_MONTH = '2025-09';
const LIVE_CLIENTS = 100;
const LIVE_EPISODES = 40;
const LIVE_INTERVAL_MS = 1000;
const RUNS = 3;
const KEY = 'esk_bench_streams_0123456789abcdefghijkl';
const MB = 1024 * 1024;

type Line = { type: string; data: Record<string, unknown> };

async function* lines(file: string): AsyncGenerator<string> {
  if (!fs.existsSync(file)) return;
  for await (const line of readline.createInterface({
    input: fs.createReadStream(file),
    crlfDelay: Infinity,
  })) {
    if (line.length > 0) yield line;
  }
}

/**
 * A month of the corpus in a directory of its own: the whole catalog, and the episodes published in
 * `month` with their transcripts, segments, clips and ad reads. Also returns, for the live
 * measurement, `spare` episodes of another month with their transcripts.
 */
async function monthOfCorpus(dir: string, out: string, month: string, spareMonth: string, spares: number) {
  fs.mkdirSync(out, { recursive: true });
  const keep = new Set<string>();
  const spareEpisodes = new Map<string, Line>();
  for await (const line of lines(path.join(dir, RECORD_FILES.episode))) {
    const r = JSON.parse(line) as Line;
    const at = new Date(r.data.published_at as number).toISOString();
    if (at.startsWith(month)) keep.add(r.data.id as string);
    else if (at.startsWith(spareMonth) && spareEpisodes.size < spares)
      spareEpisodes.set(r.data.id as string, r);
  }
  const spareTranscripts = new Map<string, Line>();
  for (const type of [
    'publisher',
    'podcast',
    'entity',
    'episode',
    'transcript',
    'segments',
    'clips',
    'ad_reads',
  ] as const) {
    const file = RECORD_FILES[type];
    const write = fs.createWriteStream(path.join(out, file));
    const scoped = !['publisher', 'podcast', 'entity'].includes(type);
    for await (const line of lines(path.join(dir, file))) {
      if (!scoped) {
        write.write(`${line}\n`);
        continue;
      }
      const r = JSON.parse(line) as Line;
      const id = (r.data.id ?? r.data.episode_id) as string;
      if (keep.has(id)) write.write(`${line}\n`);
      else if (type === 'transcript' && spareEpisodes.has(id)) spareTranscripts.set(id, r);
    }
    await new Promise((resolve) => write.end(resolve));
  }
  const spare = [...spareEpisodes.values()]
    .filter((e) => spareTranscripts.has(e.data.id as string))
    .map((e) => ({ episode: e, transcript: spareTranscripts.get(e.data.id as string)! }));
  return { episodes: keep.size, spare };
}

function worker<T>(
  job: Record<string, unknown>,
  onMessage?: (msg: { type: string }) => void,
): {
  done: Promise<T>;
  post: (msg: unknown) => void;
  stop: () => Promise<number>;
} {
  const w = spawnTsWorker(new URL('./stream-clients.ts', import.meta.url), job);
  const done = new Promise<T>((resolve, reject) => {
    w.on('message', (msg: { type: string }) => {
      onMessage?.(msg);
      if (msg.type === 'done') resolve(msg as T);
      if (msg.type === 'failed') reject(new Error(JSON.stringify(msg)));
    });
    w.on('error', reject);
  });
  return { done, post: (msg) => w.postMessage(msg), stop: () => w.terminate() };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Issue 16's figures, measured on one service process with every role on embedded engines
 * (`startService`), its clients in a worker thread (their own event loop and core):
 *
 * - live: 100 EventSources on `GET /v1/podcasts/episodes/stream`; 40 episodes (transcripts of the
 *   bench corpus, about 230 lines each) go through the ingest path (validation + BatchIngest) one
 *   a second; each event is timed from the moment its episode's records were handed to ingest to
 *   its arrival at each client (detection, speakers, the archive projector, the live feed, SSE);
 * - archive: a month of the bench corpus (the catalog and October's episodes, loaded through the
 *   NDJSON loader and processed by the service), replayed with `GET …/archive/stream` and
 *   downloaded with `GET …/archive/download` (gzip, decoded by the client), three runs each,
 *   medians; the download's first run builds the days (cold), the others serve the builds.
 */
export const streamsBench: Bench = {
  name: 'streams',
  description: `live stream latency with ${LIVE_CLIENTS} clients; archive replay vs bulk download of a month of the bench corpus (one service process, embedded engines)`,
  async run(progress) {
    const { dir } = await benchCorpus(progress);
    const tmp = tempDir('earshot-bench-streams-');
    const month = await monthOfCorpus(
      dir,
      path.join(tmp.dir, 'month'),
      MONTH,
      LIVE_SOURCE_MONTH,
      LIVE_EPISODES,
    );
    progress(
      `${month.episodes} episodes published in ${MONTH}; ${month.spare.length} spare for the live stream`,
    );
    const config = loadConfig(
      {},
      {
        EARSHOT_DATA_DIR: path.join(tmp.dir, 'data'),
        EARSHOT_DEMO: 'off',
        EARSHOT_EMBEDDINGS_FETCH: 'off',
        PORT: 0,
        MCP_PORT: 0,
        LOG_LEVEL: 'silent',
        EARSHOT_BOOTSTRAP_API_KEY: KEY,
        EARSHOT_STREAMS_PER_KEY: LIVE_CLIENTS + 10,
      },
    );
    const service = await startService(config, silentLogger());
    const ingestState = new IngestState(path.join(tmp.dir, 'ingest-state'));
    const results: BenchResult[] = [];
    try {
      const url = service.url!;
      const { platform } = service;
      const caughtUp = async () => {
        for (const r of service.runners) if ((await r.lag()).some((p) => p.lag > 0)) return false;
        return true;
      };
      const t0 = performance.now();
      await loadNdjson(path.join(tmp.dir, 'month'), { producer: platform.producer, state: ingestState });
      progress(
        `loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s; waiting for the service to process it`,
      );
      while (!(await caughtUp())) await new Promise((r) => setTimeout(r, 500));
      const [{ n }] = (await platform.state.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM archive_episodes WHERE complete AND to_char(day, 'YYYY-MM') = $1`,
        [MONTH],
      )) as [{ n: number }];
      progress(
        `processed in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${n} episodes of ${MONTH} in the archive`,
      );

      // ── archive: replay vs download ──
      const replays: { episodes: number; bytes: number; ms: number }[] = [];
      for (let i = 0; i < RUNS; i++) {
        const r = await worker<{ episodes: number; bytes: number; ms: number }>({
          mode: 'replay',
          url: `${url}/v1/podcasts/episodes/archive/stream?period=${MONTH}`,
          key: KEY,
        }).done;
        replays.push(r);
        progress(
          `replay ${i + 1}: ${r.episodes} episodes, ${(r.bytes / MB).toFixed(1)} MB in ${(r.ms / 1000).toFixed(2)} s`,
        );
      }
      type Download = { episodes: number; bytes: number; wire: number; ms: number; encoding: string };
      const downloads: Download[] = [];
      for (let i = 0; i < RUNS + 1; i++) {
        const d = await worker<Download>({
          mode: 'download',
          url: `${url}/v1/podcasts/episodes/archive/download?period=${MONTH}`,
          key: KEY,
        }).done;
        downloads.push(d);
        progress(
          `download ${i === 0 ? '(cold) ' : ''}${i}: ${d.episodes} episodes, ${(d.bytes / MB).toFixed(1)} MB (${(d.wire / MB).toFixed(1)} MB ${d.encoding}) in ${(d.ms / 1000).toFixed(2)} s`,
        );
      }
      if (replays.some((r) => r.episodes !== n) || downloads.some((d) => d.episodes !== n))
        throw new Error(`replay and download disagree with the archive's ${n} episodes`);
      const replayEps = median(replays.map((r) => (r.episodes / r.ms) * 1000));
      const replayMBs = median(replays.map((r) => r.bytes / MB / (r.ms / 1000)));
      const warm = downloads.slice(1);
      const downloadEps = median(warm.map((d) => (d.episodes / d.ms) * 1000));
      const downloadMBs = median(warm.map((d) => d.bytes / MB / (d.ms / 1000)));
      const wireMBs = median(warm.map((d) => d.wire / MB / (d.ms / 1000)));
      const cold = downloads[0]!;

      // ── live: 100 clients, episodes through the ingest path ──
      const sentAt = new Map<string, number>();
      const latencies: number[] = [];
      const arrivals: { id: string; at: number }[] = [];
      let ready: () => void = () => {};
      const connected = new Promise<void>((resolve) => {
        ready = resolve;
      });
      const clients = worker<never>(
        { mode: 'live', url: `${url}/v1/podcasts/episodes/stream`, key: KEY, clients: LIVE_CLIENTS },
        (msg) => {
          if (msg.type === 'ready') ready();
          if (msg.type === 'episode') {
            const m = msg as unknown as { id: string; at: number };
            const sent = sentAt.get(m.id);
            if (sent !== undefined) {
              latencies.push(m.at - sent);
              arrivals.push(m);
            }
          }
        },
      );
      await connected;
      progress(`${LIVE_CLIENTS} live clients connected; sending ${LIVE_EPISODES} episodes, one a second`);
      const batches = new BatchIngest({
        producer: platform.producer,
        log: platform.eventLog,
        state: ingestState,
        logger: silentLogger(),
      });
      for (const [i, { episode, transcript }] of month.spare.entries()) {
        const id = `ep_live_bench_${i}`;
        const now = Date.now();
        const records = [
          {
            type: 'episode',
            data: { ...episode.data, id, slug: `${id}-slug`, guid: id, published_at: now - 600_000 },
          },
          { type: 'clips', data: { episode_id: id, clips: [] } },
          { type: 'transcript', data: { ...transcript.data, episode_id: id, transcribed_at: now } },
        ];
        const checked = validateIngestBatch(records, ingestState);
        if (!checked.ok) throw new Error(`ingest refused: ${JSON.stringify(checked.errors.slice(0, 3))}`);
        sentAt.set(id, now);
        await batches.publish({ records: checked.records });
        await new Promise((r) => setTimeout(r, LIVE_INTERVAL_MS));
      }
      const expected = month.spare.length * LIVE_CLIENTS;
      const deadline = Date.now() + 60_000;
      while (latencies.length < expected && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 200));
      clients.post({ type: 'close' });
      await new Promise((r) => setTimeout(r, 200));
      await clients.stop();
      latencies.sort((a, b) => a - b);
      // Where the time goes: ingest → fully processed (the episode joins the live order), and from
      // there to each client.
      const readyAt = new Map(
        (
          await platform.state.query<{ episode_id: string; ready_at: Date }>(
            'SELECT episode_id, ready_at FROM archive_live WHERE episode_id = ANY($1::text[])',
            [[...sentAt.keys()]],
          )
        ).map((r) => [r.episode_id, new Date(r.ready_at).getTime()]),
      );
      const processing = [...sentAt].map(([id, at]) => readyAt.get(id)! - at).sort((a, b) => a - b);
      const delivery = arrivals.map((a) => a.at - readyAt.get(a.id)!).sort((a, b) => a - b);
      progress(
        `ingest → fully processed p50 ${percentile(processing, 50)} ms, p99 ${percentile(processing, 99)} ms; processed → received p50 ${percentile(delivery, 50)} ms, p99 ${percentile(delivery, 99)} ms`,
      );
      progress(
        `live: ${latencies.length}/${expected} events; p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms, max ${latencies.at(-1)} ms`,
      );
      if (latencies.length < expected)
        throw new Error(`only ${latencies.length} of ${expected} live events arrived`);

      const note = `${n} episodes of ${MONTH} (${(replays[0]!.bytes / MB).toFixed(1)} MB of records)`;
      results.push(
        {
          bench: 'streams',
          metric: `live: transcript ingested → event received, p99, ${LIVE_CLIENTS} clients`,
          value: percentile(latencies, 99),
          unit: 'ms',
          target: { op: '<=', value: 1000 },
          note: `${latencies.length} events; p50 ${percentile(latencies, 50)} ms, max ${latencies.at(-1)} ms`,
        },
        { bench: 'streams', metric: 'live: p50', value: percentile(latencies, 50), unit: 'ms' },
        {
          bench: 'streams',
          metric: 'live: ingest → fully processed (in the live order), p99',
          value: percentile(processing, 99),
          unit: 'ms',
          note: `p50 ${percentile(processing, 50)} ms`,
        },
        {
          bench: 'streams',
          metric: `live: fully processed → received by ${LIVE_CLIENTS} clients, p99`,
          value: percentile(delivery, 99),
          unit: 'ms',
          note: `p50 ${percentile(delivery, 50)} ms`,
        },
        {
          bench: 'streams',
          metric: 'archive replay (SSE)',
          value: Math.round(replayEps),
          unit: 'episodes/s',
          note,
        },
        {
          bench: 'streams',
          metric: 'archive replay (SSE)',
          value: Number(replayMBs.toFixed(1)),
          unit: 'MB/s',
        },
        {
          bench: 'streams',
          metric: 'bulk download (gzip, built)',
          value: Math.round(downloadEps),
          unit: 'episodes/s',
          note,
        },
        {
          bench: 'streams',
          metric: 'bulk download (gzip, built), NDJSON decoded',
          value: Number(downloadMBs.toFixed(1)),
          unit: 'MB/s',
        },
        {
          bench: 'streams',
          metric: 'bulk download (gzip, built), on the wire',
          value: Number(wireMBs.toFixed(1)),
          unit: 'MB/s',
        },
        {
          bench: 'streams',
          metric: 'bulk download, first request (builds the days)',
          value: Math.round((cold.episodes / cold.ms) * 1000),
          unit: 'episodes/s',
        },
        {
          bench: 'streams',
          metric: 'bulk download ÷ replay (episodes/s)',
          value: Number((downloadEps / replayEps).toFixed(1)),
          unit: '×',
          target: { op: '>=', value: 3 },
        },
      );
      return results;
    } finally {
      await ingestState.close();
      await service.stop();
      tmp.remove();
    }
  },
};
