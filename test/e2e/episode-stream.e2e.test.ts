import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { loadExample } from '../../schemas/avro-schemas.ts';
import { freePortRange } from '../support/free-port.ts';
import { spawnEarshot } from '../support/service-process.ts';
import { sseClient } from '../support/sse-client.ts';
import { tempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

const json = (name: Parameters<typeof loadExample>[0]) => JSON.parse(JSON.stringify(loadExample(name)));

/** An episode of the example podcast through batch ingest: the episode, its clips and transcript. */
function episodeRecords(id: string, publishedAt: number) {
  const episode = json('EpisodePublished');
  Object.assign(episode, {
    id,
    slug: `${id}-slug`,
    guid: id,
    published_at: publishedAt,
    title: `Episode ${id}`,
  });
  const transcript = json('Transcript');
  transcript.episode_id = id;
  transcript.transcribed_at = Date.now();
  const clips = json('Clips');
  clips.episode_id = id;
  clips.clips = clips.clips.map((c: { id: string }) => ({ ...c, id: `${id}-${c.id}` }));
  return [
    { type: 'episode', data: episode },
    { type: 'clips', data: clips },
    { type: 'transcript', data: transcript },
  ];
}

/**
 * The live stream of a real service process (`earshot start`, embedded engines): an episode sent
 * over `POST /v1/ingest/batches` reaches a connected EventSource once it is processed; the
 * service is killed with SIGKILL and started again on the same data dir, and the same
 * EventSource, reconnecting by itself with its Last-Event-ID, receives every episode exactly once.
 */
describe('live episode stream across kill -9', () => {
  const tmp = tempDir('earshot-e2e-stream-');
  afterAll(() => tmp.remove());
  const key = `esk_${randomBytes(24).toString('base64url')}`;
  const token = `eit_${randomBytes(24).toString('base64url')}`;
  const secrets = randomBytes(32).toString('base64');

  const urlOf = (port: number) => `http://127.0.0.1:${port}`;

  /** `earshot start` on a given port, so a restart is where clients reconnect to. */
  async function start(port: number) {
    const svc = await spawnEarshot(['start'], {
      PORT: String(port),
      EARSHOT_DATA_DIR: tmp.dir,
      EARSHOT_DEMO: 'off',
      EARSHOT_EMBEDDINGS_FETCH: 'off',
      EARSHOT_BOOTSTRAP_API_KEY: key,
      EARSHOT_INGEST_TOKEN: token,
      EARSHOT_SECRETS_KEY: secrets,
      LOG_LEVEL: 'warn',
    });
    await waitFor(async () => (await fetch(`${urlOf(port)}/readyz`).catch(() => undefined))?.status === 200, {
      timeoutMs: 90_000,
      stepMs: 100,
      what: `/readyz 200\n${svc.output().slice(-2000)}`,
    });
    return svc;
  }

  async function ingest(url: string, records: unknown[]) {
    const res = await fetch(`${url}/v1/ingest/batches`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ records }),
    });
    expect(res.status, await res.clone().text()).toBe(202);
  }

  it('delivers ingested episodes, and after kill -9 and a restart resumes from Last-Event-ID with no gap and no duplicate', async () => {
    // Below the ephemeral range: after the kill, no outgoing connection can take it meanwhile.
    const port = await freePortRange();
    let svc = await start(port);
    const url = urlOf(port);
    const client = sseClient(`${url}/v1/podcasts/episodes/stream`, key);
    try {
      const podcast = json('Podcast');
      const publisher = json('Publisher');
      await ingest(url, [
        { type: 'publisher', data: publisher },
        { type: 'podcast', data: podcast },
      ]);
      await client.waitForEvents('position', 1);
      const at = Date.UTC(2025, 10, 20, 8);
      const sentAt = Date.now();
      await ingest(url, episodeRecords('ep_live_a', at));
      await client.waitForEvents('episode', 1, 30_000);
      expect(client.episodes()[0]).toMatchObject({ id: 'ep_live_a', podcast: { id: podcast.id } });
      expect(client.of('episode')[0]!.at - sentAt).toBeLessThan(15_000);
      await ingest(url, episodeRecords('ep_live_b', at + 60_000));
      await client.waitForEvents('episode', 2, 30_000);
      // Acknowledged, then the process dies, perhaps before it processed the episode.
      await ingest(url, episodeRecords('ep_live_c', at + 120_000));
      svc.child.kill('SIGKILL');
      expect((await svc.exited).signal).toBe('SIGKILL');
      const before = client.connections;

      svc = await start(port);
      await ingest(url, episodeRecords('ep_live_d', at + 180_000));
      await client.waitForEvents('episode', 4, 60_000);
      await new Promise((r) => setTimeout(r, 1000));
      expect(client.connections).toBeGreaterThan(before);
      expect(client.episodes().map((e) => e.id)).toEqual([
        'ep_live_a',
        'ep_live_b',
        'ep_live_c',
        'ep_live_d',
      ]);
    } finally {
      client.close();
      const exit = await svc.stop('SIGTERM');
      expect(exit.code, svc.output().slice(-2000)).toBe(0);
    }
  }, 240_000);
});
