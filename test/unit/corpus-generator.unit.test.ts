import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCatalog } from '../../ingest/corpus/catalog.ts';
import type { PlantedMention, SpeakerTruth } from '../../ingest/corpus/episode.ts';
import { speechTokens } from '../../ingest/corpus/episode-script.ts';
import type { TailTruth } from '../../ingest/corpus/episode-truth.ts';
import {
  GROUND_TRUTH_FILES,
  generateCorpus,
  type Manifest,
  RECORD_FILES,
} from '../../ingest/corpus/generate.ts';
import { readAll } from '../../ingest/corpus/read-corpus.ts';
import { Rng } from '../../ingest/corpus/rng.ts';
import { allTemplateTexts, PACKS } from '../../ingest/corpus/vocabulary/index.ts';
import { contentStems, phraseForm, QUERIES } from '../../ingest/corpus/vocabulary/queries.ts';
import { Gazetteer } from '../../processors/mentions/gazetteer.ts';
import { tokenize } from '../../processors/mentions/tokenize.ts';
import { loadSchema } from '../../schemas/avro-schemas.ts';
import type {
  AdReads,
  Clips,
  Entity,
  EpisodePublished,
  Podcast,
  Segments,
  Transcript,
} from '../../schemas/generated/index.ts';
import { tempDir } from '../support/temp-dir.ts';

const AS_OF = Date.UTC(2025, 10, 21);
const SIZES = { podcasts: 12, episodesPerPodcast: 3, linesPerEpisode: [60, 110] as const };

describe('corpus generator', () => {
  const tmp = tempDir('earshot-corpus-');
  let a: string;
  let manifest: Manifest;
  beforeAll(async () => {
    a = path.join(tmp.dir, 'a');
    manifest = await generateCorpus({ ...SIZES, seed: 7, out: a, asOf: AS_OF, chartDays: 5 });
  });
  afterAll(() => tmp.remove());

  it('is deterministic for a seed: same seed, same bytes; another seed, another corpus', async () => {
    const b = path.join(tmp.dir, 'b');
    const c = path.join(tmp.dir, 'c');
    await generateCorpus({ ...SIZES, seed: 7, out: b, asOf: AS_OF, chartDays: 5 });
    await generateCorpus({ ...SIZES, seed: 8, out: c, asOf: AS_OF, chartDays: 5 });
    for (const file of [...Object.values(RECORD_FILES), ...Object.values(GROUND_TRUTH_FILES)]) {
      expect(fs.readFileSync(path.join(b, file)).equals(fs.readFileSync(path.join(a, file))), file).toBe(
        true,
      );
    }
    expect(
      fs
        .readFileSync(path.join(c, RECORD_FILES.transcript))
        .equals(fs.readFileSync(path.join(a, RECORD_FILES.transcript))),
    ).toBe(false);
  });

  it('writes every record type as valid Avro values in {type, data} envelopes, with a manifest of counts', async () => {
    const schemaOf: Record<string, Parameters<typeof loadSchema>[0]> = {
      publisher: 'Publisher',
      podcast: 'Podcast',
      entity: 'Entity',
      episode: 'EpisodePublished',
      transcript: 'Transcript',
      segments: 'Segments',
      clips: 'Clips',
      ad_reads: 'AdReads',
      chart_row: 'ChartSnapshotRow',
      bias_evaluation: 'BiasEvaluation',
      rating_snapshot: 'RatingSnapshot',
    };
    for (const [type, file] of Object.entries(RECORD_FILES)) {
      const lines = fs.readFileSync(path.join(a, file), 'utf8').trim().split('\n');
      expect(lines.length, file).toBe(manifest.counts[type as keyof typeof RECORD_FILES]);
      const schema = loadSchema(schemaOf[type]!).type;
      for (const line of lines) {
        const record = JSON.parse(line) as { type: string; data: unknown };
        expect(record.type).toBe(type);
        expect(schema.isValid(record.data), `${type}: ${line.slice(0, 200)}`).toBe(true);
      }
    }
    expect(manifest.counts.episode).toBe(36);
    expect(manifest.seed).toBe(7);
    expect(manifest.as_of).toBe(new Date(AS_OF).toISOString());
  });

  it('plants only mentions the ground truth knows: no template word is an alias of the catalog', () => {
    const catalog = generateCatalog(new Rng(7).fork('catalog'), { podcasts: 200, asOf: AS_OF });
    const g = new Gazetteer();
    for (const e of catalog.entities) g.add(e);
    const hits: string[] = [];
    for (const text of allTemplateTexts()) {
      const plain = text.replace(/\{[^}]*\}/g, ' ');
      for (const m of g.match(tokenize(plain))) hits.push(`${plain} → ${m.entries[0]!.entityId}`);
    }
    expect(hits).toEqual([]);
  });

  it('has paraphrase queries whose relevant lines share no content word with the query, and phrases that occur', () => {
    const concepts = new Map(
      Object.values(PACKS).flatMap((p) => p.topics.flatMap((t) => t.concepts.map((c) => [c.id, c]))),
    );
    const texts = allTemplateTexts().map(phraseForm);
    for (const q of QUERIES) {
      if (q.kind === 'keyword') {
        expect(
          texts.some((t) => t.includes(phraseForm(q.phrase!))),
          q.id,
        ).toBe(true);
        continue;
      }
      const concept = concepts.get(q.concept!);
      expect(concept, q.id).toBeDefined();
      if (q.kind !== 'paraphrase') continue;
      const query = contentStems(q.text, q.lang);
      for (const line of concept!.lines) {
        const shared = [...contentStems(line, q.lang)].filter((w) => query.has(w));
        expect(shared, `${q.id}: ${line}`).toEqual([]);
      }
    }
  });

  it('covers languages, formats, segment and ad types, speaker roles, both senses of ambiguous names, realistic timings', async () => {
    const podcasts = await readAll<Podcast>(path.join(a, RECORD_FILES.podcast));
    expect(new Set(podcasts.map((p) => p.language.slice(0, 2)))).toEqual(new Set(['en', 'fr', 'de', 'es']));
    expect(podcasts.filter((p) => p.language.startsWith('en')).length).toBeGreaterThan(podcasts.length / 2);
    expect(podcasts.every((p) => p.directory_id !== null && p.hosts.length > 0)).toBe(true);

    const episodes = await readAll<EpisodePublished>(path.join(a, RECORD_FILES.episode));
    for (const e of episodes) {
      expect(e.published_at).toBeLessThan(AS_OF);
      expect(e.published_at).toBeGreaterThan(AS_OF - 120 * 86_400_000);
    }

    const segments = await readAll<Segments>(path.join(a, RECORD_FILES.segments));
    const types = new Set(segments.flatMap((s) => s.segments.map((x) => x.type)));
    expect([...types].sort()).toEqual([
      'AD',
      'INTERVIEW',
      'INTRO',
      'OUTRO',
      'PERSONAL_BANTER',
      'TOPIC_DISCUSSION',
      'TRANSITION',
    ]);
    const ads = (await readAll<AdReads>(path.join(a, RECORD_FILES.ad_reads))).flatMap((x) => x.ad_reads);
    expect(new Set(ads.map((x) => x.read_type))).toEqual(new Set(['host_read', 'pre_recorded']));
    expect(ads.some((x) => x.is_network_promo)).toBe(true);
    expect(ads.some((x) => !x.is_network_promo && x.company_id)).toBe(true);

    const clips = (await readAll<Clips>(path.join(a, RECORD_FILES.clips))).flatMap((c) => c.clips);
    expect(new Set(clips.map((c) => c.type)).size).toBe(13);

    const speakers = await readAll<{ speakers: SpeakerTruth[] }>(path.join(a, GROUND_TRUTH_FILES.speakers));
    expect(new Set(speakers.flatMap((s) => s.speakers.map((x) => x.role)))).toEqual(
      new Set(['HOST', 'GUEST', 'PANELIST', 'CORRESPONDENT', 'AUDIENCE', 'SOUNDBITE_SPEAKER']),
    );

    const mentions = await readAll<PlantedMention>(path.join(a, GROUND_TRUTH_FILES.mentions));
    const ambiguous = mentions.filter((m) => m.ambiguous);
    expect(ambiguous.some((m) => m.sense === 'entity')).toBe(true);
    expect(ambiguous.some((m) => m.sense === 'other' && /^[A-Z]/.test(m.variant))).toBe(true);
    const entities = await readAll<Entity>(path.join(a, RECORD_FILES.entity));
    expect(entities.some((e) => e.kind === 'PERSON' && e.handles.length > 0)).toBe(true);
    expect(entities.some((e) => e.company?.ticker && e.company.domain)).toBe(true);
    expect(entities.some((e) => e.kind === 'KNOWLEDGE_GRAPH_ENTITY')).toBe(true);

    // Timings: lines in order, about 2.5 words a second, turns between speakers.
    let words = 0;
    let seconds = 0;
    for (const t of await readAll<Transcript>(path.join(a, RECORD_FILES.transcript))) {
      let previousEnd = 0;
      for (const l of t.lines) {
        expect(l.start_seconds).toBeGreaterThanOrEqual(previousEnd);
        expect(l.end_seconds).toBeGreaterThan(l.start_seconds);
        previousEnd = l.end_seconds;
        words += l.text.split(/\s+/).length;
        seconds += l.end_seconds - l.start_seconds;
      }
      expect(new Set(t.lines.map((l) => l.speaker)).size).toBeGreaterThan(1);
    }
    expect(words / seconds).toBeGreaterThan(2);
    expect(words / seconds).toBeLessThan(3.2);
  });

  it('writes relevance judgements for keyword, paraphrase and mixed queries that match the lines', async () => {
    const judgements = await readAll<{
      query_id: string;
      episode_id: string;
      line_number: number;
      grade: number;
    }>(path.join(a, GROUND_TRUTH_FILES.relevance));
    const kinds = new Set(judgements.map((j) => QUERIES.find((q) => q.id === j.query_id)!.kind));
    expect(kinds).toEqual(new Set(['keyword', 'paraphrase', 'mixed']));
    const transcripts = new Map(
      (await readAll<Transcript>(path.join(a, RECORD_FILES.transcript))).map((t) => [t.episode_id, t]),
    );
    for (const j of judgements.slice(0, 500)) {
      const q = QUERIES.find((x) => x.id === j.query_id)!;
      const line = transcripts.get(j.episode_id)!.lines[j.line_number - 1]!;
      if (q.kind === 'keyword') expect(phraseForm(line.text)).toContain(phraseForm(q.phrase!));
      if (q.kind === 'paraphrase') {
        const query = contentStems(q.text, q.lang);
        expect(
          [...contentStems(line.text, q.lang)].filter((w) => query.has(w)),
          line.text,
        ).toEqual([]);
      }
    }
  });

  it('lists the concept lines left out of a paraphrase query for sharing a word with it as unjudged', async () => {
    // The relevance bench's corpus: large enough for team names like "Austin Athletic" to turn up
    // in the transfer concept's lines ("athlete moving to a new team").
    const dir = path.join(tmp.dir, 'relevance');
    const manifest = await generateCorpus({
      podcasts: 36,
      episodesPerPodcast: 4,
      seed: 42,
      out: dir,
      asOf: Date.UTC(2026, 5, 1),
    });
    const unjudged = await readAll<{ query_id: string; episode_id: string; line_number: number }>(
      path.join(dir, GROUND_TRUTH_FILES.unjudged),
    );
    expect(unjudged.length).toBeGreaterThan(0);
    expect(unjudged.length).toBe(manifest.paraphrase_overlaps_excluded);
    const judged = new Set(
      (
        await readAll<{ query_id: string; episode_id: string; line_number: number }>(
          path.join(dir, GROUND_TRUTH_FILES.relevance),
        )
      ).map((j) => `${j.query_id}/${j.episode_id}:${j.line_number}`),
    );
    const transcripts = new Map(
      (await readAll<Transcript>(path.join(dir, RECORD_FILES.transcript))).map((t) => [t.episode_id, t]),
    );
    for (const u of unjudged) {
      const q = QUERIES.find((x) => x.id === u.query_id)!;
      expect(q.kind).toBe('paraphrase');
      expect(judged.has(`${u.query_id}/${u.episode_id}:${u.line_number}`)).toBe(false);
      const line = transcripts.get(u.episode_id)!.lines[u.line_number - 1]!;
      const query = contentStems(q.text, q.lang);
      expect(
        [...contentStems(line.text, q.lang)].some((w) => query.has(w)),
        line.text,
      ).toBe(true);
    }
  });
});

describe('corpus generator with realistic turn lengths', () => {
  const tmp = tempDir('earshot-corpus-turns-');
  afterAll(() => tmp.remove());

  it('draws long-tailed turns, monologues of 1,000+ tokens, each ending with a planted concept', async () => {
    const out = path.join(tmp.dir, 'realistic');
    await generateCorpus({ ...SIZES, seed: 7, out, asOf: AS_OF, chartDays: 1, turns: 'realistic' });
    const transcripts = await readAll<Transcript>(path.join(out, RECORD_FILES.transcript));
    const tokens = transcripts
      .flatMap((t) => t.lines)
      .map((l) => speechTokens(l.text))
      .sort((x, y) => x - y);
    const mean = tokens.reduce((s, t) => s + t, 0) / tokens.length;
    // Most turns stay short; the tail is long.
    expect(tokens[Math.floor(tokens.length / 2)]!).toBeLessThan(60);
    expect(mean).toBeGreaterThan(80);
    expect(tokens.filter((t) => t >= 1000).length).toBeGreaterThan(5);

    const tails = await readAll<TailTruth>(path.join(out, GROUND_TRUTH_FILES.tails));
    expect(tails.length).toBeGreaterThan(5);
    for (const tail of tails) {
      const line = transcripts
        .find((t) => t.episode_id === tail.episode_id)!
        .lines.find((l) => l.number === tail.line_number)!;
      expect(tail.tokens).toBeGreaterThanOrEqual(1000);
      expect(line.text.endsWith(tail.text)).toBe(true);
      // Only the last sentence says the tail's concept: the rest of the turn never does.
      expect(line.text.slice(0, -tail.text.length)).not.toContain(tail.text);
    }
  });

  it('keeps the planted tails true under speech noise: merged turns renumber them, lower case rewrites them', async () => {
    const out = path.join(tmp.dir, 'realistic-noise');
    await generateCorpus({
      ...SIZES,
      seed: 7,
      out,
      asOf: AS_OF,
      chartDays: 1,
      turns: 'realistic',
      speechNoise: true,
    });
    const transcripts = await readAll<Transcript>(path.join(out, RECORD_FILES.transcript));
    const tails = await readAll<TailTruth>(path.join(out, GROUND_TRUTH_FILES.tails));
    expect(tails.length).toBeGreaterThan(5);
    for (const tail of tails) {
      const line = transcripts
        .find((t) => t.episode_id === tail.episode_id)!
        .lines.find((l) => l.number === tail.line_number)!;
      expect(tail.tokens).toBeGreaterThanOrEqual(1000);
      expect(line.text.endsWith(tail.text)).toBe(true);
    }
  });
});
