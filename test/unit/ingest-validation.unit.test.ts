import { describe, expect, it } from 'vitest';
import { parseIngestLine, validateIngestBatch, validateIngestRecord } from '../../ingest/loader/validate.ts';
import { loadExample } from '../../schemas/avro-schemas.ts';

const known = {
  knownEpisode: (id: string) => id === 'ep_91d2c4',
  knownPodcast: (id: string) => id === 'pod_3f9a21',
};
const nothing = { knownEpisode: () => false, knownPodcast: () => false };
const json = (name: Parameters<typeof loadExample>[0]) => JSON.parse(JSON.stringify(loadExample(name)));

describe('validateIngestRecord', () => {
  it('accepts every golden example in its envelope, with topic, key and id', () => {
    const cases = [
      ['publisher', 'Publisher', 'catalog.publishers', 'pub_7c1e0a'],
      ['podcast', 'Podcast', 'catalog.podcasts', 'pod_3f9a21'],
      ['entity', 'Entity', 'catalog.entities', 'ent_c_0042'],
      ['episode', 'EpisodePublished', 'episodes.published', 'ep_91d2c4'],
      ['transcript', 'Transcript', 'episodes.transcripts', 'ep_91d2c4'],
      ['segments', 'Segments', 'episodes.segments', 'ep_91d2c4'],
      ['clips', 'Clips', 'episodes.clips', 'ep_91d2c4'],
      ['ad_reads', 'AdReads', 'episodes.ad-reads', 'ep_91d2c4'],
      ['chart_row', 'ChartSnapshotRow', 'charts.snapshots', 'directory_x/top_podcasts/us/business'],
      ['bias_evaluation', 'BiasEvaluation', 'podcasts.bias-evaluations', 'pod_3f9a21'],
    ] as const;
    for (const [type, schema, topic, key] of cases) {
      const r = validateIngestRecord({ type, data: json(schema) }, known);
      expect(r.ok, `${type}: ${JSON.stringify(r)}`).toBe(true);
      if (r.ok) {
        expect(r.topic.name).toBe(topic);
        expect(r.key).toBe(key);
        expect(r.id.startsWith(`${type}:`)).toBe(true);
      }
    }
  });

  it('lets optional fields be left out (they take their schema default)', () => {
    const { description: _d, website_url: _w, image_url: _i, ...minimal } = json('Publisher');
    expect(validateIngestRecord({ type: 'publisher', data: minimal }, nothing).ok).toBe(true);
  });

  it('names the field and the reason for a missing field, a wrong type, an unknown field and a bad enum', () => {
    const transcript = json('Transcript');
    delete transcript.language;
    transcript.lines[1].start_seconds = 'zero';
    transcript.lines[0].speakr = 'x';
    const r = validateIngestRecord({ type: 'transcript', data: transcript }, known);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual(
      expect.arrayContaining([
        { field: 'data.language', reason: 'missing required field (a string)' },
        { field: 'data.lines.1.start_seconds', reason: 'expected a number, got string "zero"' },
        { field: 'data.lines.0.speakr', reason: 'unknown field' },
      ]),
    );
    const clips = json('Clips');
    clips.clips[0].type = 'BORING';
    const c = validateIngestRecord({ type: 'clips', data: clips }, known);
    expect(c.ok ? [] : c.errors).toEqual([
      {
        field: 'data.clips.0.type',
        reason: expect.stringMatching(/^expected one of SPICY, CONTROVERSIAL.*got string "BORING"$/),
      },
    ]);
  });

  it('rejects bad envelopes: not an object, unknown type, no data, extra keys', () => {
    const errors = (r: ReturnType<typeof validateIngestRecord>) => (r.ok ? [] : r.errors.map((e) => e.field));
    expect(errors(validateIngestRecord([1, 2], known))).toEqual(['(record)']);
    expect(errors(validateIngestRecord({ type: 'podcastz', data: {} }, known))).toEqual(['type']);
    expect(errors(validateIngestRecord({ type: 'podcast' }, known))).toEqual(['data']);
    expect(errors(validateIngestRecord({ type: 'podcast', data: json('Podcast'), extra: 1 }, known))).toEqual(
      ['extra'],
    );
  });

  it('rejects records of unknown episodes and podcasts, and intervals that end before they start', () => {
    const r = validateIngestRecord({ type: 'transcript', data: json('Transcript') }, nothing);
    expect(r.ok ? null : r.errors).toEqual([
      { field: 'data.episode_id', reason: 'unknown episode ep_91d2c4 (ingest the episode first)' },
    ]);
    const e = validateIngestRecord({ type: 'episode', data: json('EpisodePublished') }, nothing);
    expect(e.ok ? null : e.errors[0]!.field).toBe('data.podcast_id');
    const t = json('Transcript');
    t.lines[2].number = 2;
    t.lines[1].end_seconds = 1;
    const bad = validateIngestRecord({ type: 'transcript', data: t }, known);
    expect(bad.ok ? null : bad.errors.map((x) => x.field)).toEqual([
      'data.lines.1.end_seconds',
      'data.lines.2.number',
    ]);
  });

  it("rejects a record larger than its topic's limit", () => {
    const s = json('Segments');
    // Each string within the text bound, the record over its topic's.
    s.segments[0].description = 'x'.repeat(90_000);
    s.segments = Array.from({ length: 12 }, (_, i) => ({ ...s.segments[0], id: `seg_${i}`, number: i }));
    const r = validateIngestRecord({ type: 'segments', data: s }, known);
    expect(r.ok ? null : r.errors[0]!.reason).toMatch(
      /^record of \d+ bytes exceeds the 1048576-byte limit of topic episodes.segments$/,
    );
  });

  it('refuses text no store accepts — NUL, lone surrogates, over-long ids and text — naming each field', () => {
    const podcast = json('Podcast');
    podcast.title = 'Nul\u0000Title';
    podcast.hosts = ['ok', 'half \ud83d pair'];
    podcast.categories[0].slug = 's'.repeat(257);
    podcast.description = 'd'.repeat(100_001);
    const r = validateIngestRecord({ type: 'podcast', data: podcast }, known);
    expect(r.ok ? null : r.errors).toEqual([
      { field: 'data.title', reason: 'must not contain the NUL character (U+0000)' },
      { field: 'data.description', reason: 'must be at most 100,000 characters' },
      { field: 'data.categories.0.slug', reason: 'must be at most 256 characters' },
      { field: 'data.hosts.1', reason: 'must be valid Unicode (a lone UTF-16 surrogate is not)' },
    ]);
    const transcript = json('Transcript');
    transcript.lines[2].text = 'said \u0000 this';
    const t = validateIngestRecord({ type: 'transcript', data: transcript }, known);
    expect(t.ok ? null : t.errors).toEqual([
      { field: 'data.lines.2.text', reason: 'must not contain the NUL character (U+0000)' },
    ]);
    expect(t.ok ? null : t.id).toBe('transcript:ep_91d2c4');
    const entity = json('Entity');
    entity.id = 'ent_\u0000';
    const e = validateIngestRecord({ type: 'entity', data: entity }, known);
    expect(e.ok ? null : [e.id, e.errors[0]!.field]).toEqual([undefined, 'data.id']);
    // Accents, emoji (a surrogate pair) and long ordinary text are fine.
    const fine = json('Podcast');
    fine.title = 'Café 🎙️ — ünïcode';
    fine.description = 'd'.repeat(100_000);
    expect(validateIngestRecord({ type: 'podcast', data: fine }, known).ok).toBe(true);
  });

  it('parses lines, naming malformed JSON', () => {
    expect(parseIngestLine('{"type": "podcast"')).toEqual({
      ok: false,
      errors: [{ field: '(line)', reason: expect.stringMatching(/^malformed JSON: /) }],
    });
  });
});

describe('validateIngestBatch (all or nothing)', () => {
  it('lets later records refer to an episode earlier in the batch', () => {
    const batch = [
      { type: 'podcast', data: json('Podcast') },
      { type: 'episode', data: json('EpisodePublished') },
      { type: 'transcript', data: json('Transcript') },
    ];
    const r = validateIngestBatch(batch, nothing);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.records.map((x) => x.type)).toEqual(['podcast', 'episode', 'transcript']);
  });

  it('lists every invalid record with its index, field and reason, and returns nothing valid', () => {
    const bad = json('Clips');
    bad.clips[0].engagement_score = 'high';
    const r = validateIngestBatch(
      [
        { type: 'transcript', data: json('Transcript') },
        { type: 'clips', data: bad },
        { type: 'podcast', data: json('Podcast') },
      ],
      nothing,
    );
    expect(r).toEqual({
      ok: false,
      errors: [
        {
          index: 0,
          field: 'data.episode_id',
          reason: 'unknown episode ep_91d2c4 (ingest the episode first)',
        },
        { index: 1, field: 'data.clips.0.engagement_score', reason: 'expected a number, got string "high"' },
      ],
    });
  });
});
