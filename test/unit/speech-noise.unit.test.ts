import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlantedMention, SpeakerTruth } from '../../ingest/corpus/episode.ts';
import { evaluateMentions, evaluateSpeakers } from '../../ingest/corpus/evaluate.ts';
import { GROUND_TRUTH_FILES, generateCorpus, RECORD_FILES } from '../../ingest/corpus/generate.ts';
import { readAll } from '../../ingest/corpus/read-corpus.ts';
import type { Entity, Transcript } from '../../schemas/generated/index.ts';
import { tempDir } from '../support/temp-dir.ts';

/**
 * Issue 21, case 5: a generator that lies less. With `speechNoise`, episodes come out as real
 * diarized speech-to-text does — generic labels, a public figure named right after a cue, merged
 * turns with several hand-offs inside, lower-case transcripts, consistent misspellings — with the
 * ground truth following every change, and the precision / recall and speaker figures are
 * measured on them.
 */
describe('corpus generator with the noise of real speech', () => {
  const tmp = tempDir('earshot-noise-');
  let transcripts: Transcript[];
  let entities: Map<string, Entity>;
  let mentions: PlantedMention[];
  let speakers: Map<string, SpeakerTruth[]>;
  beforeAll(async () => {
    await generateCorpus({
      podcasts: 24,
      episodesPerPodcast: 5,
      linesPerEpisode: [120, 220],
      seed: 5,
      out: tmp.dir,
      asOf: Date.UTC(2025, 10, 21),
      chartDays: 1,
      speechNoise: true,
    });
    const file = (f: string) => path.join(tmp.dir, f);
    transcripts = await readAll<Transcript>(file(RECORD_FILES.transcript));
    entities = new Map((await readAll<Entity>(file(RECORD_FILES.entity))).map((e) => [e.id, e]));
    mentions = await readAll<PlantedMention>(file(GROUND_TRUTH_FILES.mentions));
    speakers = new Map(
      (
        await readAll<{ episode_id: string; speakers: SpeakerTruth[] }>(file(GROUND_TRUTH_FILES.speakers))
      ).map((s) => [s.episode_id, s.speakers]),
    );
  }, 120_000);
  afterAll(() => tmp.remove());

  it('has every noise mode in it, and a ground truth that matches the text', () => {
    const labels = new Set(transcripts.flatMap((t) => t.lines.map((l) => l.speaker)));
    expect(labels.has('Guest')).toBe(true);
    expect(labels.has('Unknown')).toBe(true);
    const names = new Set([...entities.values()].map((e) => e.name));
    expect([...labels].some((l) => names.has(l))).toBe(true);
    // Merged turns of many words with several hand-off cues inside.
    const longest = Math.max(...transcripts.flatMap((t) => t.lines.map((l) => l.text.split(/\s+/).length)));
    expect(longest).toBeGreaterThan(400);
    // Lower-case transcripts.
    expect(transcripts.some((t) => t.lines.every((l) => l.text === l.text.toLowerCase()))).toBe(true);
    // Known misspellings, in the catalog and in the text; and ones the catalog does not know.
    const byId = new Map(transcripts.map((t) => [t.episode_id, t]));
    const listed = mentions.filter((m) => entities.get(m.entity_id)?.variants.includes(m.variant));
    expect(listed.length).toBeGreaterThan(10);
    const unlisted = mentions.filter((m) => {
      const e = entities.get(m.entity_id);
      return (
        e?.kind === 'PERSON' &&
        m.variant.toLowerCase() !== e.name.toLowerCase() &&
        !e.variants.includes(m.variant) &&
        m.variant.split(' ').length > 1
      );
    });
    expect(unlisted.length).toBeGreaterThan(0);
    // A public figure named right after a cue, who never speaks.
    const figureAfterThanks = mentions.filter((m) => {
      const line = byId.get(m.episode_id)!.lines[m.line_number - 1]!;
      const tail = /(said as much last week|would not agree, of course|put it, nobody saw this coming)\.$/;
      // The last sentence: "Thanks for having me, Dana. Ravi Petrakis said as much last week."
      const last = line.text.lastIndexOf('. ', line.text.length - 2);
      return /^(thanks|thank you)/i.test(line.text) && tail.test(line.text) && m.char_start > last;
    });
    expect(figureAfterThanks.length).toBeGreaterThan(0);
    for (const m of figureAfterThanks)
      expect(speakers.get(m.episode_id)!.some((s) => s.person_id === m.entity_id)).toBe(false);
    // The ground truth follows the text: every planted mention is where it says, every label speaks.
    for (const m of mentions) {
      const line = byId.get(m.episode_id)!.lines[m.line_number - 1]!;
      expect(line.text.slice(m.char_start, m.char_end)).toBe(m.variant);
    }
    for (const t of transcripts) {
      const truth = speakers.get(t.episode_id)!;
      expect(new Set(truth.map((s) => s.label))).toEqual(new Set(t.lines.map((l) => l.speaker)));
      for (const s of truth) expect(t.lines.filter((l) => l.speaker === s.label)).toHaveLength(s.line_count);
    }
  });

  it('is measured by the same figures: mentions ≥ 0.95, hosts ≥ 95 %, credited guests ≥ 90 %, no non-speaker', async () => {
    const m = await evaluateMentions(tmp.dir);
    expect(m.overall.precision).toBeGreaterThanOrEqual(0.95);
    expect(m.overall.recall).toBeGreaterThanOrEqual(0.95);
    expect(m.ambiguous.precision).toBeGreaterThanOrEqual(0.9);
    expect(m.ambiguous.recall).toBeGreaterThanOrEqual(0.9);
    const s = await evaluateSpeakers(tmp.dir);
    expect(s.hostIdentified / s.hostEpisodes).toBeGreaterThanOrEqual(0.95);
    expect(s.creditedIdentified / s.creditedGuests).toBeGreaterThanOrEqual(0.9);
    expect(s.neverSpoke).toBe(0);
  });
});
