import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateSpeakers } from '../../ingest/corpus/evaluate.ts';
import { generateCorpus } from '../../ingest/corpus/generate.ts';
import { Gazetteer } from '../../processors/mentions/gazetteer.ts';
import { identifySpeakers } from '../../processors/speakers/identify.ts';
import { loadExample } from '../../schemas/avro-schemas.ts';
import type {
  Entity,
  EpisodePublished,
  Podcast,
  SpeakersIdentified,
  Transcript,
} from '../../schemas/generated/index.ts';
import { tempDir } from '../support/temp-dir.ts';

const base = loadExample('Entity') as Entity;
const person = (id: string, name: string, occupation: string, code: string, field: string): Entity => ({
  ...base,
  id,
  slug: id,
  kind: 'PERSON',
  name,
  aliases: [],
  nicknames: [],
  handles: [],
  context_terms: [],
  company: null,
  category: { slug: 'people', name: 'People' },
  person: {
    title: null,
    company_id: null,
    occupation: { code, system: 'isco08', slug: occupation, title: occupation, group: null },
    field: { code: '0', slug: field, title: field },
    standing: 'established',
    seniority: 'senior',
    practicing: true,
  },
});

const dana = person('ent_p_4410', 'Dana Whitfield', 'journalist', '2642', 'journalism-reporting');
const marcus = person('ent_p_5120', 'Marcus Oyelaran', 'economist', '2631', 'economics');
const people = new Map([dana, marcus].map((e) => [e.id, e]));
const gazetteer = new Gazetteer();
for (const e of people.values()) gazetteer.add(e);
const deps = { gazetteer, entity: (id: string) => people.get(id), identifiedAt: 1763683200000 };
const podcast = loadExample('Podcast') as Podcast;
const episode = loadExample('EpisodePublished') as EpisodePublished;

function lines(...rows: [string, string][]): Transcript {
  return {
    episode_id: episode.id,
    language: 'en-US',
    transcribed_at: 0,
    lines: rows.map(([speaker, text], i) => ({
      number: i + 1,
      speaker,
      role: null,
      start_seconds: i * 5,
      end_seconds: i * 5 + 4,
      text,
      words: null,
    })),
  };
}

describe('speaker identification', () => {
  it('identifies the golden transcript’s speakers as in the golden SpeakersIdentified example', () => {
    const transcript = loadExample('Transcript') as Transcript;
    const got = identifySpeakers(transcript, { episode, podcast, adReads: [] }, deps);
    const golden = loadExample('SpeakersIdentified') as SpeakersIdentified;
    const essentials = (s: SpeakersIdentified) =>
      s.speakers.map(({ label, person_id, name, role, line_count, capacity }) => ({
        label,
        person_id,
        name,
        role,
        line_count,
        capacity,
      }));
    expect(essentials(got)).toEqual(essentials(golden));
    expect(got.speakers[1]!.in_field).toBe(true);
    expect(got.speakers[0]!.in_field).toBe(false);
    expect({ ...got, speakers: [] }).toEqual({ ...golden, speakers: [] });
  });

  it('uses self-introductions and hand-offs, not label order, when nobody is credited', () => {
    const t = lines(
      ['SPEAKER_1', 'Honestly, the Fed hiked again.'],
      ['SPEAKER_2', 'Welcome back to The Margin Call, I’m Dana Whitfield.'],
      ['SPEAKER_2', 'With me in the studio is Marcus Oyelaran, who works as chief economist.'],
      ['SPEAKER_1', 'Thanks for having me, Dana.'],
      ['SPEAKER_3', 'We have a caller on the line, Maria in Denver. Go ahead.'],
      ['SPEAKER_4', 'Hi, thanks for taking my call.'],
      ['SPEAKER_2', 'Here’s what Marcus Oyelaran said earlier this week.'],
    );
    const noCredits = { ...episode, people: [] };
    const got = identifySpeakers(
      t,
      { episode: noCredits, podcast: { ...podcast, hosts: [] }, adReads: [] },
      deps,
    );
    const by = Object.fromEntries(got.speakers.map((s) => [s.label, [s.person_id, s.role, s.line_count]]));
    expect(by.SPEAKER_1).toEqual(['ent_p_5120', 'GUEST', 2]);
    expect(by.SPEAKER_2).toEqual(['ent_p_4410', 'GUEST', 3]);
    expect(by.SPEAKER_4).toEqual([null, 'AUDIENCE', 1]);
    expect(got.speakers.find((s) => s.label === 'SPEAKER_4')!.name).toBe('Maria');
  });

  it('treats a voice heard only inside ad reads as recorded audio, and a podcast host as HOST', () => {
    const t = lines(
      ['SPEAKER_1', 'Hello and welcome, I’m Dana Whitfield.'],
      ['SPEAKER_2', 'Lumen Bank. Banking that keeps up. Visit lumenbank.com.'],
      ['SPEAKER_1', 'And we are back.'],
    );
    const ad = {
      id: 'ad1',
      segment_id: null,
      sponsor_name: 'Lumen Bank',
      company_id: null,
      read_type: 'pre_recorded' as const,
      is_network_promo: false,
      start_seconds: 5,
      end_seconds: 9,
      first_line: null,
      last_line: null,
    };
    const got = identifySpeakers(t, { episode: { ...episode, people: [] }, podcast, adReads: [ad] }, deps);
    expect(got.speakers.map((s) => [s.label, s.person_id, s.role])).toEqual([
      ['SPEAKER_1', 'ent_p_4410', 'HOST'],
      ['SPEAKER_2', null, 'SOUNDBITE_SPEAKER'],
    ]);
  });

  describe('on a generated corpus', () => {
    const tmp = tempDir('earshot-speakers-');
    beforeAll(async () => {
      await generateCorpus({
        podcasts: 12,
        episodesPerPodcast: 3,
        linesPerEpisode: [60, 110],
        seed: 11,
        out: tmp.dir,
        asOf: Date.UTC(2025, 10, 21),
        chartDays: 1,
      });
    });
    afterAll(() => tmp.remove());

    it('names at least 95% of diarized speakers with the right person and role', async () => {
      const result = await evaluateSpeakers(tmp.dir);
      expect(result.labels).toBeGreaterThan(100);
      expect(result.accuracy).toBeGreaterThanOrEqual(0.95);
    });
  });
});
