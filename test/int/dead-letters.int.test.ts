import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../infra/logger.ts';
import { ConsumerRunner } from '../../processors/consumer-runner.ts';
import {
  listDeadLetterTopics,
  REPLAY_HEADER,
  replayDeadLetters,
  showDeadLetters,
} from '../../processors/dead-letters.ts';
import { catalogProjector } from '../../projections/catalog/catalog-projector.ts';
import { migrate } from '../../projections/state/migrations.ts';
import type { PgliteStateStore } from '../../projections/state/pglite-state-store.ts';
import { loadExample } from '../../schemas/avro-schemas.ts';
import type { Podcast } from '../../schemas/generated/index.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { embeddedBackbone } from '../support/backbone.ts';
import { memoryStateStore } from '../support/state.ts';
import { countTopic } from '../support/topics.ts';
import { waitFor } from '../support/wait-for.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);

const podcast = (id: string, slug: string, updatedAt: number, title = `Podcast ${id}`): Podcast => ({
  ...(loadExample('Podcast') as Podcast),
  id,
  slug,
  directory_id: null,
  title,
  updated_at: updatedAt,
});

/**
 * The dead-letter tools on a real catalog projection: a podcast the state store refuses (its slug
 * taken by another podcast) is dead-lettered; once the other podcast moves to a new slug, the
 * operator replays it, once.
 */
describe('dead letters: list, show, replay', () => {
  let bb: Awaited<ReturnType<typeof embeddedBackbone>>;
  let state: PgliteStateStore;
  let runner: ConsumerRunner<unknown, unknown> | undefined;
  const lag = async () => (await runner!.lag()).reduce((s, p) => s + p.lag, 0);
  const titles = async () =>
    (
      await state.query<{ id: string; title: string }>('SELECT id, title FROM catalog_podcasts ORDER BY id')
    ).map((r) => `${r.id}:${r.title}`);

  beforeAll(async () => {
    bb = await embeddedBackbone();
    state = memoryStateStore();
    await migrate(state);
    runner = new ConsumerRunner(catalogProjector(state) as never, bb.log, bb.producer, silentLogger(), {
      maxBatchItems: 100,
      maxBatchWaitMs: 20,
      retryBaseMs: 5,
      retryMaxMs: 20,
    });
    await runner.start();
  });
  afterAll(async () => {
    await runner?.stop();
    await state?.close();
    await bb?.close();
  });

  it('lists the dead-letter topics with what they hold, and shows each record decoded with where it came from and why', async () => {
    await bb.producer.send(TOPICS.podcasts, [{ key: 'pod_a', value: podcast('pod_a', 'shared-slug', 1000) }]);
    await waitFor(async () => (await lag()) === 0, { what: 'pod_a projected' });
    await bb.producer.send(TOPICS.podcasts, [
      { key: 'pod_b', value: podcast('pod_b', 'shared-slug', 1000) },
      { key: 'pod_nul', value: podcast('pod_nul', 'nul-slug', 1000, 'Nul \u0000 title') },
      { key: 'pod_c', value: podcast('pod_c', 'own-slug', 1000) },
    ]);
    await waitFor(async () => (await lag()) === 0, { what: 'caught up past the refused records' });
    expect(await titles()).toEqual(['pod_a:Podcast pod_a', 'pod_c:Podcast pod_c']);

    const topics = await listDeadLetterTopics(bb.log);
    expect(topics.find((t) => t.topic === 'catalog.podcasts.dlq')).toEqual({
      topic: 'catalog.podcasts.dlq',
      source: 'catalog.podcasts',
      records: 2,
    });
    expect(topics.filter((t) => t.records > 0)).toHaveLength(1);

    const shown = await showDeadLetters(bb.log, bb.codec, 'catalog.podcasts');
    expect(shown.map((d) => [d.letter.key, d.letter.step, d.letter.consumer_group])).toEqual(
      expect.arrayContaining([
        ['pod_b', 'write', 'projector.catalog'],
        ['pod_nul', 'write', 'projector.catalog'],
      ]),
    );
    const b = shown.find((d) => d.letter.key === 'pod_b')!;
    expect(b.letter.reason).toMatch(/^write failed: duplicate key value violates unique constraint/);
    expect(b.decoded).toMatchObject({ id: 'pod_b', slug: 'shared-slug' });
    expect(b.letter.source_topic).toBe('catalog.podcasts');
    const nul = shown.find((d) => d.letter.key === 'pod_nul')!;
    expect(nul.letter.reason).toMatch(/unsupported Unicode escape sequence \(embedded 22P05\)/);
    const only = await showDeadLetters(bb.log, bb.codec, 'catalog.podcasts.dlq', {
      offsets: [b.position.offset],
    });
    expect(only.map((d) => d.letter.key)).toEqual(['pod_b']);
    await expect(showDeadLetters(bb.log, bb.codec, 'catalog.podcasts', { offsets: [99] })).rejects.toThrow(
      /no dead letter at offset 99/,
    );
    await expect(showDeadLetters(bb.log, bb.codec, 'no.such.topic')).rejects.toThrow(/unknown topic/);
  });

  it('replays a dead letter after the fix, once: a second replay finds the first and appends nothing', async () => {
    const [b] = await showDeadLetters(bb.log, bb.codec, 'catalog.podcasts').then((all) =>
      all.filter((d) => d.letter.key === 'pod_b'),
    );
    // The fix: the podcast holding the slug moves to another one.
    await bb.producer.send(TOPICS.podcasts, [{ key: 'pod_a', value: podcast('pod_a', 'a-new-slug', 2000) }]);
    await waitFor(async () => (await lag()) === 0, { what: 'pod_a moved' });

    const dry = await replayDeadLetters(bb.log, bb.codec, 'catalog.podcasts', {
      offsets: [b!.position.offset],
      dryRun: true,
    });
    expect(dry.map((o) => o.outcome)).toEqual(['would-replay']);
    const before = countTopic(bb.log, TOPICS.podcasts);
    const first = await replayDeadLetters(bb.log, bb.codec, 'catalog.podcasts', {
      offsets: [b!.position.offset],
    });
    expect(first).toEqual([
      expect.objectContaining({
        outcome: 'replayed',
        source: {
          topic: 'catalog.podcasts',
          partition: b!.letter.source_partition,
          offset: b!.letter.source_offset,
        },
        at: expect.objectContaining({ topic: 'catalog.podcasts', partition: b!.letter.source_partition }),
      }),
    ]);
    expect(countTopic(bb.log, TOPICS.podcasts)).toBe(before + 1);
    const replayed = bb.log.read('catalog.podcasts', first[0]!.at!.partition, first[0]!.at!.offset, 1)[0]!;
    expect(replayed.headers[REPLAY_HEADER]).toBe(`catalog.podcasts.dlq:0:${b!.position.offset}`);
    expect(replayed.value).toEqual(b!.letter.value);
    await waitFor(async () => (await titles()).includes('pod_b:Podcast pod_b'), { what: 'pod_b projected' });

    const again = await replayDeadLetters(bb.log, bb.codec, 'catalog.podcasts', {
      offsets: [b!.position.offset],
    });
    expect(again).toEqual([expect.objectContaining({ outcome: 'already-replayed', at: first[0]!.at })]);
    expect(countTopic(bb.log, TOPICS.podcasts)).toBe(before + 1);
  });

  it('does not replay a record whose key has a newer record on its compacted topic', async () => {
    const nul = (await showDeadLetters(bb.log, bb.codec, 'catalog.podcasts')).find(
      (d) => d.letter.key === 'pod_nul',
    )!;
    await bb.producer.send(TOPICS.podcasts, [
      { key: 'pod_nul', value: podcast('pod_nul', 'nul-slug', 3000, 'Fixed') },
    ]);
    const before = countTopic(bb.log, TOPICS.podcasts);
    const outcomes = await replayDeadLetters(bb.log, bb.codec, 'catalog.podcasts', {
      offsets: [nul.position.offset],
    });
    expect(outcomes.map((o) => o.outcome)).toEqual(['superseded']);
    expect(countTopic(bb.log, TOPICS.podcasts)).toBe(before);
  });

  it('`earshot dlq list|show|replay` on the data dir, while another process holds the log', async () => {
    const env = { ...process.env, EARSHOT_DATA_DIR: bb.dir, LOG_LEVEL: 'warn' };
    const earshot = (...args: string[]) =>
      run(process.execPath, [path.join(root, 'bin/earshot.js'), 'dlq', ...args], { cwd: root, env });
    const list = await earshot('list', '--json');
    expect(JSON.parse(list.stdout)).toEqual([
      { topic: 'catalog.podcasts.dlq', source: 'catalog.podcasts', records: 2 },
    ]);
    const show = await earshot('show', 'catalog.podcasts');
    expect(show.stdout).toMatch(/source {2}catalog\.podcasts partition \d+ offset \d+ {2}key pod_b/);
    expect(show.stdout).toMatch(/reason {2}write failed: duplicate key value/);
    expect(show.stdout).toMatch(/value {3}\{"id":"pod_b"/);
    const replay = await earshot('replay', 'catalog.podcasts', '--all');
    expect(replay.stdout).toMatch(/already replayed/);
    expect(replay.stdout).toMatch(/0 replayed, 1 already replayed, 1 superseded/);
    const bad = await earshot('replay', 'catalog.podcasts').catch((e: { code: number; stderr: string }) => e);
    expect(bad).toMatchObject({ code: 2 });
    expect((bad as { stderr: string }).stderr).toMatch(/give --offset <offsets> or --all/);
  }, 60_000);
});
