import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../infra/logger.ts';
import { generateCorpus } from '../../ingest/corpus/generate.ts';
import { BatchIngest } from '../../ingest/loader/batch-ingest.ts';
import { IngestState } from '../../ingest/loader/ingest-state.ts';
import { loadNdjson, rejectsFileFor } from '../../ingest/loader/loader.ts';
import { validateIngestBatch } from '../../ingest/loader/validate.ts';
import { loadExample } from '../../schemas/avro-schemas.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { embeddedBackbone } from '../support/backbone.ts';
import { tempDir } from '../support/temp-dir.ts';
import { countTopic, readTopic } from '../support/topics.ts';

type Backbone = Awaited<ReturnType<typeof embeddedBackbone>>;
const json = (name: Parameters<typeof loadExample>[0]) => JSON.parse(JSON.stringify(loadExample(name)));
const line = (type: string, data: unknown) => JSON.stringify({ type, data });

interface Reject {
  line: number;
  type: string | null;
  id: string | null;
  field: string;
  reason: string;
  errors: { field: string; reason: string }[];
  raw: string;
}

describe('NDJSON loader', () => {
  let bb: Backbone;
  let state: IngestState;
  const files = tempDir('earshot-ingest-');
  beforeEach(async () => {
    bb = await embeddedBackbone();
    state = new IngestState(path.join(bb.dir, 'ingest-state'));
  });
  afterEach(async () => {
    await state.close();
    await bb.close();
  });
  afterAll(() => files.remove());

  it('rejects every kind of invalid record with line, field and reason, while the valid ones are produced', async () => {
    const file = path.join(files.dir, 'mixed.ndjson');
    const noTitle = json('EpisodePublished');
    noTitle.id = 'ep_no_title';
    delete noTitle.title;
    const badPodcast = json('Podcast');
    badPodcast.id = 'pod_bad';
    badPodcast.popularity = 'high';
    const orphan = json('Transcript');
    orphan.episode_id = 'ep_nobody';
    const huge = json('Segments');
    // Every string within the text bound, the record over its topic's.
    huge.segments[0].description = 'a very long description '.repeat(3_500);
    huge.segments = Array.from({ length: 14 }, (_, i) => ({
      ...huge.segments[0],
      id: `seg_${i}`,
      number: i,
    }));
    const nul = json('Podcast');
    nul.id = 'pod_nul';
    nul.title = 'A NUL \u0000 in the title';
    fs.writeFileSync(
      file,
      [
        line('publisher', json('Publisher')), // 1
        line('podcast', json('Podcast')), // 2
        line('episode', json('EpisodePublished')), // 3
        '{"type": "transcript", "data": {"episode_id": ', // 4 malformed JSON
        line('episode', noTitle), // 5 missing required field
        line('podcast', badPodcast), // 6 wrong type
        line('transcript', orphan), // 7 unknown episode
        line('segments', huge), // 8 oversize for its topic
        '', // blank lines are ignored
        line('transcript', json('Transcript')), // 10
        line('clips', json('Clips')), // 11
        line('ad_reads', json('AdReads')), // 12
        line('sponsor', {}), // 13 unknown type
        'x'.repeat(5 * 1024 * 1024), // 14 longer than the input limit below
        line('podcast', nul), // 15 text no store accepts
      ].join('\n'),
    );
    const report = await loadNdjson(file, { producer: bb.producer, state, maxLineBytes: 4 * 1024 * 1024 });
    expect(report.produced).toBe(6);
    expect(report.rejected).toBe(8);
    expect(report.lines).toBe(3);
    const rejects = fs
      .readFileSync(rejectsFileFor(file), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Reject);
    expect(rejects.map((r) => [r.line, r.field])).toEqual([
      [4, '(line)'],
      [5, 'data.title'],
      [6, 'data.popularity'],
      [7, 'data.episode_id'],
      [8, 'data'],
      [13, 'type'],
      [14, '(line)'],
      [15, 'data.title'],
    ]);
    expect(rejects[0]!.reason).toMatch(/^malformed JSON/);
    expect(rejects[1]!.reason).toBe('missing required field (a string)');
    expect(rejects[2]!.reason).toBe('expected null or a number, got string "high"');
    expect(rejects[3]!.reason).toBe('unknown episode ep_nobody (ingest the episode first)');
    expect(rejects[4]!.reason).toMatch(
      /^record of \d+ bytes exceeds the 1048576-byte limit of topic episodes\.segments$/,
    );
    expect(rejects[5]!.reason).toMatch(/^expected one of publisher, podcast/);
    expect(rejects[6]!.reason).toBe('line of 5242880 bytes exceeds the 4194304-byte input limit');
    expect(rejects[7]!.reason).toBe('must not contain the NUL character (U+0000)');
    expect(rejects[1]!.type).toBe('episode');
    expect(rejects[1]!.id).toBe('episode:ep_no_title');
    expect(rejects[4]!.raw.length).toBeLessThanOrEqual(2001);

    expect(countTopic(bb.log, TOPICS.publishers)).toBe(1);
    expect(countTopic(bb.log, TOPICS.podcasts)).toBe(1);
    expect(countTopic(bb.log, TOPICS.episodes)).toBe(1);
    expect(countTopic(bb.log, TOPICS.transcripts)).toBe(1);
    expect(countTopic(bb.log, TOPICS.segments)).toBe(0);
    const [transcript] = await readTopic<{ episode_id: string }>(bb.log, bb.codec, TOPICS.transcripts);
    expect(transcript).toMatchObject({ key: 'ep_91d2c4', value: { episode_id: 'ep_91d2c4' } });
  });

  it('resumes: records already ingested (this run or earlier) are skipped by id, new ones produced', async () => {
    const first = path.join(files.dir, 'first.ndjson');
    const second = path.join(files.dir, 'second.ndjson');
    fs.writeFileSync(
      first,
      [line('podcast', json('Podcast')), line('episode', json('EpisodePublished'))].join('\n'),
    );
    // The second file repeats the episode and adds its transcript: known from the first run.
    fs.writeFileSync(
      second,
      [line('episode', json('EpisodePublished')), line('transcript', json('Transcript'))].join('\n'),
    );
    const a = await loadNdjson(first, { producer: bb.producer, state });
    expect([a.produced, a.skipped]).toEqual([2, 0]);
    const again = await loadNdjson(first, { producer: bb.producer, state });
    expect([again.produced, again.skipped, again.rejected]).toEqual([0, 2, 0]);
    const b = await loadNdjson(second, { producer: bb.producer, state });
    expect([b.produced, b.skipped, b.rejected]).toEqual([1, 1, 0]);
    expect(fs.existsSync(rejectsFileFor(second))).toBe(false);
    expect(countTopic(bb.log, TOPICS.episodes)).toBe(1);
    const forced = await loadNdjson(first, { producer: bb.producer, state, force: true });
    expect(forced.produced).toBe(2);
    expect(countTopic(bb.log, TOPICS.episodes)).toBe(2);
  });

  it('publishes a batch validated all-or-nothing (the HTTP ingest path) and records it as ingested', async () => {
    const batch = [
      { type: 'transcript', data: json('Transcript') },
      { type: 'episode', data: json('EpisodePublished') },
      { type: 'podcast', data: json('Podcast') },
    ];
    // The transcript comes before its episode: the batch is refused as a whole.
    const refused = validateIngestBatch(batch, state);
    expect(refused.ok).toBe(false);
    const accepted = validateIngestBatch([batch[2], batch[1], batch[0]], state);
    expect(accepted.ok).toBe(true);
    if (!accepted.ok) return;
    const batches = new BatchIngest({ producer: bb.producer, log: bb.log, state, logger: silentLogger() });
    const { result } = await batches.publish({ records: accepted.records });
    expect(result).toMatchObject({ published: 3, duplicates: 0, transcript_lines: 3 });
    expect([
      countTopic(bb.log, TOPICS.podcasts),
      countTopic(bb.log, TOPICS.episodes),
      countTopic(bb.log, TOPICS.transcripts),
    ]).toEqual([1, 1, 1]);
    expect(state.knownEpisode('ep_91d2c4')).toBe(true);
    expect(validateIngestBatch([batch[0]], state).ok).toBe(true);
  });

  it('loads a generated corpus directory in dependency order: counts in equal counts on the topics', async () => {
    const dir = path.join(files.dir, 'corpus');
    const manifest = await generateCorpus({
      podcasts: 6,
      episodesPerPodcast: 2,
      linesPerEpisode: [40, 60],
      seed: 3,
      out: dir,
      asOf: Date.UTC(2025, 10, 21),
      chartDays: 2,
    });
    const report = await loadNdjson(dir, { producer: bb.producer, state, batchRecords: 7, inFlight: 3 });
    expect(report.rejected).toBe(0);
    expect(report.lines).toBe(manifest.transcript_lines);
    expect(report.files.map((f) => path.basename(f.file))).toEqual([
      'publishers.ndjson',
      'podcasts.ndjson',
      'entities.ndjson',
      'episodes.ndjson',
      'ad_reads.ndjson',
      'segments.ndjson',
      'clips.ndjson',
      'transcripts.ndjson',
      'chart_rows.ndjson',
      'bias_evaluations.ndjson',
      'rating_snapshots.ndjson',
    ]);
    expect(countTopic(bb.log, TOPICS.entities)).toBe(manifest.counts.entity);
    expect(countTopic(bb.log, TOPICS.transcripts)).toBe(manifest.counts.transcript);
    expect(countTopic(bb.log, TOPICS.charts)).toBe(manifest.counts.chart_row);
    expect(countTopic(bb.log, TOPICS.bias)).toBe(manifest.counts.bias_evaluation);
    expect(countTopic(bb.log, TOPICS.ratings)).toBe(manifest.counts.rating_snapshot);
    expect(report.produced).toBe(Object.values(manifest.counts).reduce((s, n) => s + n, 0));
  });
});
