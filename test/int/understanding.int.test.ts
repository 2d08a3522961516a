import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../infra/logger.ts';
import type { PlantedMention, SpeakerTruth } from '../../ingest/corpus/episode.ts';
import { GROUND_TRUTH_FILES, generateCorpus, type Manifest } from '../../ingest/corpus/generate.ts';
import { readAll } from '../../ingest/corpus/read-corpus.ts';
import { IngestState } from '../../ingest/loader/ingest-state.ts';
import { loadNdjson } from '../../ingest/loader/loader.ts';
import { ConsumerRunner } from '../../processors/consumer-runner.ts';
import { understandingSteps } from '../../processors/context/steps.ts';
import { loadExample } from '../../schemas/avro-schemas.ts';
import type {
  AdReads,
  DeadLetter,
  EpisodePublished,
  MentionsDetected,
  SpeakersIdentified,
  Transcript,
} from '../../schemas/generated/index.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { embeddedBackbone } from '../support/backbone.ts';
import { tempDir } from '../support/temp-dir.ts';
import { readTopic } from '../support/topics.ts';
import { waitFor } from '../support/wait-for.ts';

type Backbone = Awaited<ReturnType<typeof embeddedBackbone>>;

describe('ingest → mention detection and speaker identification (embedded backbone)', () => {
  let bb: Backbone;
  let manifest: Manifest;
  let runners: ConsumerRunner<unknown, unknown>[];
  const corpus = tempDir('earshot-understanding-');

  const latestByKey = async <T>(topic: typeof TOPICS.mentions | typeof TOPICS.speakers) => {
    const all = await readTopic<T>(bb.log, bb.codec, topic);
    return new Map(all.map((r) => [r.key!, r.value]));
  };

  beforeAll(async () => {
    bb = await embeddedBackbone();
    manifest = await generateCorpus({
      podcasts: 6,
      episodesPerPodcast: 3,
      linesPerEpisode: [60, 120],
      seed: 5,
      out: corpus.dir,
      asOf: Date.UTC(2025, 10, 21),
      chartDays: 2,
    });
    const steps = understandingSteps({
      eventLog: bb.log,
      producer: bb.producer,
      dataDir: bb.dir,
      options: { unknownEpisodeWaitMs: 400, pollMs: 50 },
    });
    runners = [steps.context, steps.mentions, steps.speakers].map(
      (def) =>
        new ConsumerRunner(def as never, bb.log, bb.producer, silentLogger(), {
          maxBatchItems: 40,
          maxBatchWaitMs: 50,
        }),
    );
    // The processors run while the loader produces, as in `npm start`.
    for (const r of runners) await r.start();
    const state = new IngestState(path.join(bb.dir, 'ingest-state'));
    const report = await loadNdjson(corpus.dir, { producer: bb.producer, state, batchRecords: 25 });
    await state.close();
    expect(report.rejected).toBe(0);
    await waitFor(async () => (await latestByKey(TOPICS.speakers)).size >= manifest.counts.transcript, {
      timeoutMs: 60_000,
      stepMs: 100,
      what: 'every transcript processed',
    });
  }, 120_000);

  afterAll(async () => {
    for (const r of runners) await r.stop();
    await bb.close();
    corpus.remove();
  });

  it('emits one MentionsDetected and one SpeakersIdentified per transcript: counts in equal counts out', async () => {
    const mentions = await latestByKey<MentionsDetected>(TOPICS.mentions);
    const speakers = await latestByKey<SpeakersIdentified>(TOPICS.speakers);
    const transcripts = await readTopic<Transcript>(bb.log, bb.codec, TOPICS.transcripts);
    expect(mentions.size).toBe(manifest.counts.transcript);
    expect(speakers.size).toBe(manifest.counts.transcript);
    for (const { value: t } of transcripts) {
      expect(mentions.get(t.episode_id)!.episode_id).toBe(t.episode_id);
      // Every line is accounted for by exactly one speaker.
      const lines = speakers.get(t.episode_id)!.speakers.reduce((s, x) => s + x.line_count, 0);
      expect(lines).toBe(t.lines.length);
    }
    const total = [...speakers.values()].reduce(
      (s, e) => s + e.speakers.reduce((a, x) => a + x.line_count, 0),
      0,
    );
    expect(total).toBe(manifest.transcript_lines);
    expect(runners.every((r) => r.stats.deadLettered === 0)).toBe(true);
  });

  it('finds the planted mentions (precision and recall ≥ 0.95) and names the speakers (≥ 0.95)', async () => {
    const mentions = await latestByKey<MentionsDetected>(TOPICS.mentions);
    const truth = (await readAll<PlantedMention>(path.join(corpus.dir, GROUND_TRUTH_FILES.mentions))).filter(
      (m) => m.sense === 'entity',
    );
    const key = (e: string, l: number, id: string) => `${e}|${l}|${id}`;
    const expected = new Map<string, number>();
    for (const m of truth)
      expected.set(
        key(m.episode_id, m.line_number, m.entity_id),
        (expected.get(key(m.episode_id, m.line_number, m.entity_id)) ?? 0) + 1,
      );
    let tp = 0;
    let found = 0;
    for (const event of mentions.values()) {
      for (const m of event.mentions) {
        found++;
        const k = key(event.episode_id, m.line_number, m.entity_id);
        if ((expected.get(k) ?? 0) > 0) {
          expected.set(k, expected.get(k)! - 1);
          tp++;
        }
      }
    }
    expect({ precision: tp / found, recall: tp / truth.length }).toEqual({
      precision: expect.toSatisfy((p: number) => p >= 0.95),
      recall: expect.toSatisfy((r: number) => r >= 0.95),
    });

    const speakers = await latestByKey<SpeakersIdentified>(TOPICS.speakers);
    let right = 0;
    let labels = 0;
    for (const t of await readAll<{ episode_id: string; speakers: SpeakerTruth[] }>(
      path.join(corpus.dir, GROUND_TRUTH_FILES.speakers),
    )) {
      const got = new Map(speakers.get(t.episode_id)!.speakers.map((s) => [s.label, s]));
      for (const s of t.speakers) {
        labels++;
        if (got.get(s.label)?.person_id === s.person_id && got.get(s.label)?.role === s.role) right++;
      }
    }
    expect({ accuracy: right / labels }).toEqual({ accuracy: expect.toSatisfy((a: number) => a >= 0.95) });
  });

  it('waits for an episode that arrives after its transcript, then processes the transcript', async () => {
    const episode = {
      ...(loadExample('EpisodePublished') as EpisodePublished),
      id: 'ep_late',
      podcast_id: 'pod_late',
    };
    const transcript = { ...(loadExample('Transcript') as Transcript), episode_id: 'ep_late' };
    await bb.producer.send(TOPICS.transcripts, [{ key: 'ep_late', value: transcript }]);
    await new Promise((r) => setTimeout(r, 250));
    expect((await latestByKey<MentionsDetected>(TOPICS.mentions)).has('ep_late')).toBe(false);
    await bb.producer.send(TOPICS.episodes, [{ key: 'ep_late', value: episode }]);
    await waitFor(
      async () =>
        (await latestByKey(TOPICS.mentions)).has('ep_late') &&
        (await latestByKey(TOPICS.speakers)).has('ep_late'),
      {
        timeoutMs: 10_000,
        what: 'late transcript processed',
      },
    );
    const speakers = (await latestByKey<SpeakersIdentified>(TOPICS.speakers)).get('ep_late')!;
    expect(speakers.speakers.map((s) => s.label)).toEqual(['SPEAKER_1', 'SPEAKER_2']);
  });

  it('re-emits an episode’s mentions with new ad flags when its ad reads arrive after the transcript', async () => {
    const before = (await latestByKey<MentionsDetected>(TOPICS.mentions)).values().next().value!;
    const line = before.mentions.find((m) => !m.in_ad)!;
    const ads: AdReads = {
      episode_id: before.episode_id,
      ad_reads: [
        {
          id: 'ad_late',
          segment_id: null,
          sponsor_name: 'Late Sponsor',
          company_id: null,
          read_type: 'host_read',
          is_network_promo: false,
          start_seconds: line.start_seconds,
          end_seconds: line.end_seconds,
          first_line: line.line_number,
          last_line: line.line_number,
        },
      ],
    };
    await bb.producer.send(TOPICS.adReads, [{ key: ads.episode_id, value: ads }]);
    await waitFor(
      async () =>
        (await latestByKey<MentionsDetected>(TOPICS.mentions))
          .get(before.episode_id)!
          .mentions.some((m) => m.line_number === line.line_number && m.in_ad),
      { timeoutMs: 10_000, what: 'mentions re-emitted with the new ad read' },
    );
    const after = (await latestByKey<MentionsDetected>(TOPICS.mentions)).get(before.episode_id)!;
    expect(after.mentions.filter((m) => m.line_number !== line.line_number)).toEqual(
      before.mentions.filter((m) => m.line_number !== line.line_number).map((m) => ({ ...m, in_ad: false })),
    );
  });

  it('dead-letters a transcript whose episode never arrives, and keeps processing the others', async () => {
    const orphan = { ...(loadExample('Transcript') as Transcript), episode_id: 'ep_never' };
    const episode = { ...(loadExample('EpisodePublished') as EpisodePublished), id: 'ep_after' };
    const next = { ...(loadExample('Transcript') as Transcript), episode_id: 'ep_after' };
    await bb.producer.send(TOPICS.episodes, [{ key: 'ep_after', value: episode }]);
    await bb.producer.send(TOPICS.transcripts, [
      { key: 'ep_never', value: orphan },
      { key: 'ep_after', value: next },
    ]);
    await waitFor(
      async () =>
        (
          await readTopic<DeadLetter>(bb.log, bb.codec, {
            ...TOPICS.transcripts,
            name: 'episodes.transcripts.dlq',
            partitions: 1,
          })
        ).length >= 2,
      { timeoutMs: 15_000, what: 'dead letters for the orphan transcript' },
    );
    const dead = await readTopic<DeadLetter>(bb.log, bb.codec, {
      ...TOPICS.transcripts,
      name: 'episodes.transcripts.dlq',
      partitions: 1,
    });
    expect(dead.map((d) => [d.value.key, d.value.consumer_group, d.value.step]).sort()).toEqual([
      ['ep_never', 'mentions', 'write'],
      ['ep_never', 'speakers', 'write'],
    ]);
    expect(dead[0]!.value.reason).toMatch(/episode ep_never is unknown/);
    await waitFor(async () => (await latestByKey(TOPICS.mentions)).has('ep_after'), {
      timeoutMs: 10_000,
      what: 'next transcript',
    });
  });
});
