import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LmdbEventLog } from '../../ingest/event-log/lmdb-event-log.ts';
import { INGEST_ID_HEADER } from '../../ingest/loader/batch-ingest.ts';
import { loadExample } from '../../schemas/avro-schemas.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { spawnEarshot } from '../support/service-process.ts';
import { tempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

/**
 * HTTP ingest across kill -9: a real service process (`earshot start --roles api`, embedded
 * engines) kills itself with SIGKILL at a chosen point of a batch (`EARSHOT_TEST_CRASH_AT`,
 * inert when unset), is started again without it, and the batch is retried. The event log must
 * hold every record exactly once per key: nothing appended twice, nothing lost.
 */
const json = (name: Parameters<typeof loadExample>[0]) => JSON.parse(JSON.stringify(loadExample(name)));
const EPISODES = 50;
const TOPICS_OF_BATCH = [TOPICS.publishers, TOPICS.podcasts, TOPICS.episodes, TOPICS.transcripts];

function batch(suffix: string) {
  const publisher = json('Publisher');
  publisher.id = `pub_${suffix}`;
  const podcast = json('Podcast');
  podcast.id = `pod_${suffix}`;
  podcast.slug = `pod-${suffix}`;
  podcast.publisher_id = publisher.id;
  const records: { type: string; data: Record<string, unknown> }[] = [
    { type: 'publisher', data: publisher },
    { type: 'podcast', data: podcast },
  ];
  for (let i = 0; i < EPISODES; i++) {
    const episode = json('EpisodePublished');
    episode.id = `ep_${suffix}_${i}`;
    episode.slug = `ep-${suffix}-${i}`;
    episode.podcast_id = podcast.id;
    records.push({ type: 'episode', data: episode });
  }
  for (let i = 0; i < EPISODES; i++) {
    const transcript = json('Transcript');
    transcript.episode_id = `ep_${suffix}_${i}`;
    records.push({ type: 'transcript', data: transcript });
  }
  return records;
}

const RECORDS = 2 + 2 * EPISODES;
const LINES = EPISODES * (json('Transcript').lines as unknown[]).length;

describe('HTTP ingest survives kill -9 between append and acknowledgement', () => {
  const tmp = tempDir('earshot-e2e-ingest-crash-');
  afterAll(() => tmp.remove());
  const token = `eit_${randomBytes(24).toString('base64url')}`;
  const env = (crashAt?: string) => ({
    EARSHOT_DATA_DIR: tmp.dir,
    EARSHOT_DEMO: 'off',
    EARSHOT_INGEST_TOKEN: token,
    LOG_LEVEL: 'warn',
    ...(crashAt ? { EARSHOT_TEST_CRASH_AT: crashAt } : {}),
  });

  async function start(crashAt?: string) {
    const svc = await spawnEarshot(['start', '--roles', 'api'], env(crashAt));
    await waitFor(async () => (await fetch(`${svc.url}/readyz`).catch(() => undefined))?.status === 200, {
      timeoutMs: 90_000,
      stepMs: 100,
      what: `/readyz 200\n${svc.output().slice(-2000)}`,
    });
    return svc;
  }

  async function post(url: string, records: unknown[], key?: string) {
    const res = await fetch(`${url}/v1/ingest/batches`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...(key ? { 'idempotency-key': key } : {}),
      },
      body: JSON.stringify({ records }),
    });
    return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: await res.json() };
  }

  /** Posts a batch to a service that will kill itself during it: no answer, exit by SIGKILL. */
  async function postAndDie(svc: Awaited<ReturnType<typeof start>>, records: unknown[], key?: string) {
    await expect(post(svc.url, records, key)).rejects.toThrow();
    const exit = await svc.exited;
    expect(exit.signal, svc.output().slice(-2000)).toBe('SIGKILL');
    expect(svc.output()).toContain('EARSHOT_TEST_CRASH_AT');
  }

  it('a retried batch publishes nothing twice and reports what was published, with and without a key', async () => {
    const a = batch('a'); // keyed, killed after its records were appended, before they were recorded
    const b = batch('b'); // no key, killed after its first topic (publishers) was appended

    const first = await start('ingest-after-append');
    await postAndDie(first, a, 'batch-a');

    const second = await start('ingest-mid-append');
    try {
      const retryA = await post(second.url, a, 'batch-a');
      expect(retryA.status).toBe(202);
      // The answer the killed attempt would have given: it published everything.
      expect(retryA.body).toEqual({
        received: RECORDS,
        published: RECORDS,
        duplicates: 0,
        transcript_lines: LINES,
        by_type: { publisher: 1, podcast: 1, episode: EPISODES, transcript: EPISODES },
      });
      expect(second.output()).toContain('resolved from the event log');
      const replay = await post(second.url, a, 'batch-a');
      expect(replay).toMatchObject({ status: 202, replayed: 'true', body: retryA.body });
      const unkeyedA = await post(second.url, a);
      expect(unkeyedA.body).toMatchObject({ published: 0, duplicates: RECORDS });
      await postAndDie(second, b);
    } finally {
      await second.stop('SIGKILL');
    }

    const third = await start();
    try {
      const retryB = await post(third.url, b);
      expect(retryB.status).toBe(202);
      // The publisher was in the log before the kill; the rest was not.
      expect(retryB.body).toMatchObject({
        received: RECORDS,
        published: RECORDS - 1,
        duplicates: 1,
        by_type: { podcast: 1, episode: EPISODES, transcript: EPISODES },
      });
      expect((await post(third.url, b)).body).toMatchObject({ published: 0, duplicates: RECORDS });
    } finally {
      const exit = await third.stop('SIGTERM');
      expect(exit, third.output().slice(-2000)).toEqual({ code: 0, signal: null });
    }

    // Every record exactly once per key, and nothing appended twice (end offsets count appends,
    // whatever compaction removed since).
    const log = new LmdbEventLog(path.join(tmp.dir, 'event-log'));
    try {
      for (const topic of TOPICS_OF_BATCH) {
        const keys: string[] = [];
        const ids: string[] = [];
        let appended = 0;
        for (let p = 0; p < topic.partitions; p++) {
          appended += log.partitionOffsets(topic.name, p).end;
          for (const r of log.read(topic.name, p, 0, Number.MAX_SAFE_INTEGER)) {
            keys.push(String(r.key));
            ids.push(String(r.headers[INGEST_ID_HEADER]));
          }
        }
        const expected = topic === TOPICS.publishers || topic === TOPICS.podcasts ? 2 : 2 * EPISODES;
        expect(appended, topic.name).toBe(expected);
        expect(new Set(keys).size, topic.name).toBe(expected);
        expect(keys, topic.name).toHaveLength(expected);
        expect(new Set(ids).size, topic.name).toBe(expected);
      }
    } finally {
      await log.close();
    }
  }, 240_000);
});
