import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../infra/logger.ts';
import { replayGroup } from '../../infra/operations.ts';
import { ConsumerRunner } from '../../processors/consumer-runner.ts';
import { catalogProjector } from '../../projections/catalog/catalog-projector.ts';
import { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import { migrate } from '../../projections/state/migrations.ts';
import type { PgliteStateStore } from '../../projections/state/pglite-state-store.ts';
import { loadExample } from '../../schemas/avro-schemas.ts';
import type { Entity, EpisodePublished, Podcast, Publisher } from '../../schemas/generated/index.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { embeddedBackbone } from '../support/backbone.ts';
import { memoryStateStore } from '../support/state.ts';
import { waitFor } from '../support/wait-for.ts';

type Backbone = Awaited<ReturnType<typeof embeddedBackbone>>;

describe('catalog projection', () => {
  let bb: Backbone;
  let state: PgliteStateStore;
  let reader: CatalogReader;
  const publisher = loadExample('Publisher') as Publisher;
  const podcast = loadExample('Podcast') as Podcast;
  const company = loadExample('Entity') as Entity;
  const episode = loadExample('EpisodePublished') as EpisodePublished;

  async function runUntilCaughtUp(group = 'projector.catalog') {
    const def = { ...catalogProjector(state, () => reader.invalidate()), groupId: group };
    const runner = new ConsumerRunner(def, bb.log, bb.producer, silentLogger(), {
      maxBatchItems: 500,
      maxBatchWaitMs: 20,
    });
    await runner.start();
    await waitFor(async () => (await runner.lag()).every((p) => p.lag === 0), { what: 'catalog caught up' });
    await runner.stop();
    return runner;
  }

  beforeAll(async () => {
    bb = await embeddedBackbone();
    state = memoryStateStore();
    await migrate(state);
    reader = new CatalogReader(state);
    await bb.producer.send(TOPICS.publishers, [{ key: publisher.id, value: publisher }]);
    await bb.producer.send(TOPICS.podcasts, [{ key: podcast.id, value: podcast }]);
    const person: Entity = {
      ...company,
      id: 'ent_p_4410',
      slug: 'dana-whitfield',
      kind: 'PERSON',
      name: 'Dana Whitfield',
      company: null,
      person: {
        title: 'Host',
        company_id: company.id,
        occupation: null,
        field: null,
        standing: 'established',
        seniority: 'senior',
        practicing: true,
      },
    };
    await bb.producer.send(TOPICS.entities, [
      { key: company.id, value: company },
      { key: person.id, value: person },
      // An older version arriving later must not roll the newer one back.
      {
        key: company.id,
        value: { ...company, name: 'Apple Computer', updated_at: company.updated_at - 1000 },
      },
    ]);
    await bb.producer.send(TOPICS.episodes, [{ key: episode.id, value: episode }]);
    await runUntilCaughtUp();
  });
  afterAll(async () => {
    await bb.close();
    await state.close();
  });

  it('resolves podcasts by id, slug and numeric directory id', async () => {
    for (const ref of [podcast.id, podcast.slug, String(podcast.directory_id)]) {
      expect((await reader.podcast(ref))?.id, ref).toBe(podcast.id);
    }
    expect(await reader.podcast('no-such-show')).toBeUndefined();
    const row = await reader.podcast(podcast.id);
    expect(row).toMatchObject({
      title: podcast.title,
      hosts: podcast.hosts,
      categories: podcast.categories,
      popularity: podcast.popularity,
    });
  });

  it('resolves companies by id, slug and domain, and keeps the newest version', async () => {
    for (const ref of [company.id, company.slug, 'apple.com', 'https://www.Apple.com/about']) {
      expect((await reader.company(ref))?.id, ref).toBe(company.id);
    }
    expect(await reader.company('dana-whitfield')).toBeUndefined();
    expect((await reader.entity(company.slug))?.name).toBe('Apple Inc.');
  });

  it('reads entities in bulk in the order asked, leaving out what does not resolve', async () => {
    const rows = await reader.entities(['dana-whitfield', 'nobody', company.id, 'ent_p_4410']);
    expect(rows.map((r) => r.id)).toEqual(['ent_p_4410', company.id]);
  });

  it('resolves episodes and publishers', async () => {
    expect((await reader.episode(episode.slug))?.published_at).toEqual(new Date(episode.published_at));
    expect((await reader.publisher(publisher.slug))?.name).toBe(publisher.name);
  });

  it('is idempotent under replay', async () => {
    const before = await state.query('SELECT * FROM catalog_entities ORDER BY id');
    await replayGroup(bb.log, { topic: TOPICS.entities.name, group: 'projector.catalog', fromOffset: 0 });
    await runUntilCaughtUp();
    expect(await state.query('SELECT * FROM catalog_entities ORDER BY id')).toEqual(before);
  });

  it('dead-letters a record whose slug is taken by another id, and projects the rest', async () => {
    await bb.producer.send(TOPICS.podcasts, [
      { key: 'pod_clash', value: { ...podcast, id: 'pod_clash', directory_id: null } },
      { key: 'pod_fine', value: { ...podcast, id: 'pod_fine', slug: 'a-fine-show', directory_id: null } },
    ]);
    const runner = await runUntilCaughtUp();
    expect(runner.stats.deadLettered).toBe(1);
    expect((await reader.podcast('a-fine-show'))?.id).toBe('pod_fine');
    expect((await reader.podcast(podcast.slug))?.id).toBe(podcast.id);
    const dlq = bb.log.read(TOPICS.podcasts.deadLetter, 0, 0, 10);
    expect(dlq).toHaveLength(1);
    expect(dlq[0]!.key).toBe('pod_clash');
  });
});
