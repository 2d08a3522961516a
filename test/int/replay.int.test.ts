import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../infra/logger.ts';
import { replayGroup } from '../../infra/operations.ts';
import { ConsumerRunner, type ProcessorDefinition } from '../../processors/consumer-runner.ts';
import { ok } from '../../processors/step-result.ts';
import { loadExample } from '../../schemas/avro-schemas.ts';
import type { EpisodePublished } from '../../schemas/generated/index.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { embeddedBackbone } from '../support/backbone.ts';
import { waitFor } from '../support/wait-for.ts';

type Backbone = Awaited<ReturnType<typeof embeddedBackbone>>;

/** A derived view: episodes per podcast, written idempotently (keyed by episode id). */
class EpisodesPerPodcast {
  readonly episodes = new Map<string, string>();
  writes = 0;
  async write(items: { episodeId: string; podcastId: string }[]) {
    this.writes += items.length;
    for (const i of items) this.episodes.set(i.episodeId, i.podcastId);
  }
  counts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const podcast of this.episodes.values()) out[podcast] = (out[podcast] ?? 0) + 1;
    return out;
  }
}

describe('replay', () => {
  let bb: Backbone;
  beforeAll(async () => {
    bb = await embeddedBackbone();
    const base = loadExample('EpisodePublished') as EpisodePublished;
    await bb.producer.send(
      TOPICS.episodes,
      Array.from({ length: 300 }, (_, i) => ({
        key: `ep_${i}`,
        value: { ...base, id: `ep_${i}`, podcast_id: `pod_${i % 7}` },
      })),
    );
  });
  afterAll(async () => bb.close());

  async function project(groupId: string, view: EpisodesPerPodcast) {
    const def: ProcessorDefinition<EpisodePublished, { episodeId: string; podcastId: string }> = {
      name: 'episodes-per-podcast',
      groupId,
      inputs: [TOPICS.episodes],
      handle: (r) => ok({ episodeId: r.value.id, podcastId: r.value.podcast_id }),
      sink: view,
    };
    const runner = new ConsumerRunner(def, bb.log, bb.producer, silentLogger(), {
      maxBatchItems: 64,
      maxBatchWaitMs: 20,
    });
    await runner.start();
    await waitFor(async () => (await runner.lag()).every((p) => p.lag === 0), { what: 'caught up' });
    await runner.stop();
  }

  it('rebuilds the same derived counts when a topic is replayed from offset 0 into a fresh group', async () => {
    const first = new EpisodesPerPodcast();
    await project('episodes-per-podcast', first);
    const expected = Object.fromEntries(
      Array.from({ length: 7 }, (_, p) => [`pod_${p}`, p < 300 % 7 ? 43 : 42]),
    );
    expect(first.counts()).toEqual(expected);

    const { toProcess } = await replayGroup(bb.log, {
      topic: TOPICS.episodes.name,
      group: 'rebuild-1',
      fromOffset: 0,
    });
    expect(toProcess).toBe(300);
    const rebuilt = new EpisodesPerPodcast();
    await project('rebuild-1', rebuilt);
    expect(rebuilt.counts()).toEqual(first.counts());
  });

  it('replaying an existing group into the same view changes nothing (idempotent writes)', async () => {
    const view = new EpisodesPerPodcast();
    await project('episodes-per-podcast-2', view);
    const before = view.counts();
    expect(view.writes).toBe(300);
    await replayGroup(bb.log, { topic: TOPICS.episodes.name, group: 'episodes-per-podcast-2', fromTime: 0 });
    await project('episodes-per-podcast-2', view);
    expect(view.writes).toBe(600);
    expect(view.counts()).toEqual(before);
  });
});
