import { randomBytes } from 'node:crypto';
import { clusterDown, clusterStatus, clusterUp } from '../../infra/cluster.ts';
import { streamCatalog, streamEpisode } from '../support/cluster-stream.ts';
import { freePortRange } from '../support/free-port.ts';
import { tempDir } from '../support/temp-dir.ts';
import type { Bench, BenchResult } from './bench.ts';

/**
 * The same HTTP ingest on a local cluster of one instance per role and of two, on the real
 * engines (`npm run engines:up`; skipped without them): episodes/s from the first batch sent
 * until every consumer group has caught up, the ratio of the two, and the bottleneck — the
 * consumer group with the most records still to process when the last batch was accepted.
 */
const EPISODES = Number(process.env.EARSHOT_BENCH_CLUSTER_EPISODES ?? 300);
const BATCH = 25;
const EXTRA_LINES = 60;

async function once(instances: number, progress: (m: string) => void) {
  const { scratchDatabase } = await import('../engines/scratch-database.ts');
  const run = randomBytes(4).toString('hex');
  const pod = `pod_bench_${run}`;
  const tmp = tempDir('earshot-bench-cluster-');
  const db = await scratchDatabase('bench_cluster');
  const token = `eit_${randomBytes(24).toString('base64url')}`;
  try {
    const state = await clusterUp({
      dir: tmp.dir,
      counts: {
        api: instances,
        ingest: instances,
        processors: instances,
        projectors: instances,
        senders: instances,
      },
      basePort: await freePortRange(1 + 2 * instances),
      env: {
        DATABASE_URL: db.url,
        EARSHOT_TOPIC_PREFIX: `bc${run}.`,
        EARSHOT_SEARCH_INDEX_PREFIX: `earshot-bc${run}.`,
        EARSHOT_DEMO: 'off',
        EARSHOT_INGEST_TOKEN: token,
        EARSHOT_EMBEDDINGS_FETCH: 'off',
        // No model: keyword indexing only (the embeddings would take both cores of this machine).
        EARSHOT_MODELS_DIR: `${tmp.dir}/no-models`,
        // `cluster up` waits for each instance's "earshot started" line (info).
        LOG_LEVEL: 'info',
      },
      onProgress: (m) => progress(`${instances}×: ${m}`),
    });
    // HTTP batch ingest on the ingest instances (one ingest state shared by them).
    const ingests = state.instances
      .filter((i) => i.role === 'ingest')
      .map((i) => `http://127.0.0.1:${i.port}`);
    let turn = 0;
    const post = async (records: unknown[]) => {
      for (const deadline = Date.now() + 60_000; ; ) {
        const res = await fetch(`${ingests[turn++ % ingests.length]}/v1/ingest/batches`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ records }),
        });
        if (res.status === 202) return;
        const text = await res.text();
        // 409: another instance is still publishing some of these records; try again.
        if (res.status === 409 && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 500));
          continue;
        }
        throw new Error(`ingest answered ${res.status}: ${text}`);
      }
    };
    await post(streamCatalog(pod, run));
    const t0 = Date.now();
    for (let b = 0; b < EPISODES / BATCH; b++) {
      const records = [];
      for (let i = b * BATCH; i < (b + 1) * BATCH; i++) {
        records.push(...streamEpisode(pod, `ep_bench_${run}_${i}`, i, EXTRA_LINES));
      }
      await post(records);
    }
    const ingested = Date.now() - t0;
    const atEnd = await clusterStatus({ dir: tmp.dir });
    const behind = Object.entries(atEnd?.groups ?? {}).sort((a, b) => b[1].lag - a[1].lag);
    for (;;) {
      const status = await clusterStatus({ dir: tmp.dir });
      const groups = Object.values(status?.groups ?? {});
      if (groups.length > 0 && groups.every((g) => g.lag === 0)) break;
      if (Date.now() - t0 > 1_800_000) throw new Error('the cluster did not catch up in 30 minutes');
      await new Promise((r) => setTimeout(r, 1_000));
    }
    const seconds = (Date.now() - t0) / 1000;
    return {
      episodesPerSecond: EPISODES / seconds,
      seconds,
      ingestSeconds: ingested / 1000,
      bottleneck: behind[0]
        ? `${behind[0][0]} (${behind[0][1].lag} records behind when ingest ended)`
        : 'none',
    };
  } finally {
    await clusterDown({ dir: tmp.dir });
    await db.drop().catch(() => undefined);
    tmp.remove();
  }
}

export const clusterBench: Bench = {
  name: 'cluster',
  description:
    'HTTP ingest → every consumer group caught up, on a local cluster of 1 and of 2 instances per role',
  async run(progress) {
    const { missing } = await import('../engines/engines-env.ts');
    const reason = ['KAFKA_BROKERS', 'SCHEMA_REGISTRY_URL', 'DATABASE_URL', 'OPENSEARCH_URL']
      .map((v) => missing(v))
      .find(Boolean);
    if (reason) {
      progress(`skipped: ${reason}`);
      return [];
    }
    const one = await once(1, progress);
    const two = await once(2, progress);
    const note = (r: typeof one) =>
      `${EPISODES} episodes of ${8 + EXTRA_LINES} lines in ${r.seconds.toFixed(1)} s (ingest ${r.ingestSeconds.toFixed(1)} s); bottleneck: ${r.bottleneck}`;
    const results: BenchResult[] = [
      {
        bench: 'cluster',
        metric: 'episodes/s, 1 instance per role',
        value: one.episodesPerSecond,
        unit: 'episodes/s',
        note: note(one),
      },
      {
        bench: 'cluster',
        metric: 'episodes/s, 2 instances per role',
        value: two.episodesPerSecond,
        unit: 'episodes/s',
        note: note(two),
      },
      {
        bench: 'cluster',
        metric: 'throughput ratio, 2 ÷ 1 instances per role',
        value: two.episodesPerSecond / one.episodesPerSecond,
        unit: '×',
      },
    ];
    return results;
  },
};
