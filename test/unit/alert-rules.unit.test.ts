import { describe, expect, it } from 'vitest';
import type { IndexedAlert } from '../../processors/alerts/matching/alert-index.ts';
import { toFact } from '../../processors/alerts/matching/facts.ts';
import { mentionMatch, speakerMatch } from '../../processors/alerts/matching/match-builder.ts';
import type { FactLine, MatcherFacts } from '../../processors/alerts/matching/matcher-facts.ts';
import { EpisodeRenderer } from '../../processors/alerts/matching/windows.ts';
import {
  type Alert,
  DAY_MS,
  digestDeliveryId,
  languageMatches,
  matchId,
  passesFilters,
  periodStart,
  popularityBadge,
  realtimeDeliveryId,
  speakerRolesOf,
} from '../../processors/alerts/model.ts';
import type { PodcastBias } from '../../processors/alerts/presentation/match-document.ts';
import { cachedBiasReader } from '../../processors/alerts/reads/bias.ts';
import { previewId } from '../../processors/alerts/reads/preview.ts';

function entry(over: Partial<Alert> = {}): IndexedAlert {
  const alert: Alert = {
    id: 'alrt_1',
    project_id: 'proj_1',
    title: 't',
    description: null,
    kind: 'ENTITY_MENTION',
    delivery_cadence: 'REALTIME',
    entities: [
      { entity_type: 'COMPANY', entity_id: 'ent_a' },
      { entity_type: 'COMPANY', entity_id: 'ent_b' },
    ],
    notifications: [],
    filters: {},
    is_active: true,
    surface: 'PLATFORM',
    created_at: new Date(0),
    updated_at: new Date(0),
    deleted_at: null,
    activated_at: new Date(0),
    version: 1,
    ...over,
  };
  return {
    alert,
    entities: new Map(alert.entities.map((e) => [e.entity_id, e.entity_type])),
    order: new Map(alert.entities.map((e, i) => [e.entity_id, i])),
    speakerRoles: new Set(speakerRolesOf(alert.filters)),
  };
}

const lines: FactLine[] = Array.from({ length: 10 }, (_, i) => ({
  n: i + 1,
  s: i % 2 ? 'S1' : 'S2',
  r: null,
  a: i * 10,
  b: i * 10 + 10,
  t: `line ${i + 1}`,
}));

function facts(over: Partial<MatcherFacts> = {}): MatcherFacts {
  return {
    episode_id: 'ep_1',
    has_lines: true,
    audio_url: 'https://cdn.example/ep.mp3',
    mentions: {
      language: 'fr-CA',
      podcast_id: 'pod_1',
      published_at: 1,
      detected_at: 2,
      received_at: 3,
      lines: { ent_b: [1, 3, 4, 9] },
      entities: [
        { entity_id: 'ent_a', relevance: 'incidental', mention_count: 7, variants: ['A'] },
        { entity_id: 'ent_b', relevance: 'on_target', mention_count: 4, variants: ['B', 'Bee'] },
      ],
    },
    speakers: {
      language: 'fr-CA',
      podcast_id: 'pod_1',
      published_at: 1,
      identified_at: 2,
      list: [
        { label: 'S1', person_id: 'ent_p', name: 'Pat', role: 'GUEST', line_count: 5 },
        { label: 'S2', person_id: 'ent_h', name: 'Hal', role: 'HOST', line_count: 5 },
      ],
    },
    matched: [],
    touched_at: 0,
    ...over,
  };
}

const ctx = { detectedAt: 100, isBackfilled: false };

describe('alert rules', () => {
  it('filters by relevance and by the top 5% of charting podcasts, the same everywhere', () => {
    expect(passesFilters({}, { relevance: 'incidental', popularity: null })).toBe(true);
    expect(passesFilters({ relevance: 'RELEVANT' }, { relevance: 'incidental', popularity: 99 })).toBe(false);
    expect(passesFilters({ relevance: 'RELEVANT' }, { relevance: 'on_target', popularity: null })).toBe(true);
    expect(passesFilters({ source_popularity: 'POPULAR' }, { relevance: 'on_target', popularity: 95 })).toBe(
      true,
    );
    expect(
      passesFilters({ source_popularity: 'POPULAR' }, { relevance: 'on_target', popularity: 94.9 }),
    ).toBe(false);
    expect(
      passesFilters({ source_popularity: 'POPULAR' }, { relevance: 'on_target', popularity: null }),
    ).toBe(false);
    expect([99.5, 97, 85, 50, null].map(popularityBadge)).toEqual([
      'Top Podcast',
      'Very Popular',
      'Popular',
      null,
      null,
    ]);
  });

  it('matches languages by tag or primary subtag', () => {
    expect(languageMatches(undefined, 'de')).toBe(true);
    expect(languageMatches([], 'de')).toBe(true);
    expect(languageMatches(['fr'], 'fr-CA')).toBe(true);
    expect(languageMatches(['FR-ca'], 'fr-CA')).toBe(true);
    expect(languageMatches(['fr-CA'], 'fr-FR')).toBe(false);
    expect(languageMatches(['fr'], 'fry')).toBe(false);
  });

  it('derives ids deterministically', () => {
    expect(matchId('a', 'e')).toBe(matchId('a', 'e'));
    expect(matchId('a', 'e')).not.toBe(matchId('a', 'f'));
    expect(realtimeDeliveryId('m1')).not.toBe(realtimeDeliveryId('m2'));
    expect(digestDeliveryId('a', 'DAILY', 0)).not.toBe(digestDeliveryId('a', 'WEEKLY', 0));
  });

  it('puts digest windows on UTC days and Monday-to-Monday weeks', () => {
    const wed = Date.UTC(2025, 10, 19, 15, 30); // Wednesday 19 November 2025
    expect(periodStart('DAILY', wed)).toBe(Date.UTC(2025, 10, 19));
    expect(periodStart('WEEKLY', wed)).toBe(Date.UTC(2025, 10, 17));
    expect(periodStart('WEEKLY', Date.UTC(2025, 10, 17))).toBe(Date.UTC(2025, 10, 17));
    expect(periodStart('WEEKLY', Date.UTC(2025, 10, 16, 23))).toBe(Date.UTC(2025, 10, 10));
    expect(Date.UTC(2025, 10, 17) + 7 * DAY_MS).toBe(Date.UTC(2025, 10, 24));
  });

  it('makes the mention match about the most relevant entity, with merged context windows', () => {
    const m = mentionMatch(entry(), new EpisodeRenderer(facts(), lines), ctx)!;
    expect(m).toMatchObject({
      id: matchId('alrt_1', 'ep_1'),
      entity_id: 'ent_b',
      mention_count: 4,
      mention_variants: ['B', 'Bee'],
      relevance: 'on_target',
      roles: [],
      detected_at: 100,
    });
    // Mentions on lines 1, 3, 4 and 9: windows 1-5 and 8-10.
    expect(m.windows.map((w) => w.lines.map((l) => l.number))).toEqual([
      [1, 2, 3, 4, 5],
      [8, 9, 10],
    ]);
    expect(m.windows[0]!.lines.map((l) => l.is_mention)).toEqual([true, false, true, true, false]);
    expect(m.windows[0]!.lines[1]).toMatchObject({ speaker: 'Pat', role: 'GUEST' });
    expect(m.windows[1]!.clip_url).toBe('https://cdn.example/ep.mp3#t=70,100');
  });

  it('gates mention and speaker matches on languages', () => {
    const r = new EpisodeRenderer(facts(), lines);
    expect(mentionMatch(entry({ filters: { languages: ['en'] } }), r, ctx)).toBeUndefined();
    expect(mentionMatch(entry({ filters: { languages: ['fr'] } }), r, ctx)).toBeDefined();
  });

  it('fires speaker alerts on non-host roles by default, on hosts only when asked', () => {
    const r = new EpisodeRenderer(facts(), lines);
    const people = [
      { entity_type: 'PERSON' as const, entity_id: 'ent_p' },
      { entity_type: 'PERSON' as const, entity_id: 'ent_h' },
    ];
    const guestOnly = speakerMatch(entry({ kind: 'PODCAST_SPEAKER', entities: [people[1]!] }), r, ctx);
    expect(guestOnly).toBeUndefined();
    const both = speakerMatch(entry({ kind: 'PODCAST_SPEAKER', entities: people }), r, ctx)!;
    expect(both).toMatchObject({
      entity_id: 'ent_p',
      roles: ['GUEST'],
      mention_count: 5,
      mention_variants: [],
    });
    // No clips: the speaker's first turns, each with the line before.
    expect(both.windows[0]!.lines.map((l) => [l.number, l.is_mention])).toEqual([
      [1, false],
      [2, true],
    ]);
    const host = speakerMatch(
      entry({ kind: 'PODCAST_SPEAKER', entities: [people[1]!], filters: { speaker_roles: ['HOST'] } }),
      r,
      ctx,
    );
    expect(host).toMatchObject({ entity_id: 'ent_h', roles: ['HOST'] });
  });

  it('turns input records into compact facts', () => {
    const result = toFact({
      topic: 'episodes.transcripts',
      partition: 0,
      offset: 0,
      key: 'ep_1',
      headers: {},
      timestamp: 0,
      value: {
        episode_id: 'ep_1',
        language: 'en',
        lines: [
          { number: 1, speaker: 'S1', role: null, start_seconds: 0, end_seconds: 1, text: 'hi', words: [] },
        ],
        transcribed_at: 0,
      },
    });
    expect(result).toEqual({
      kind: 'ok',
      items: [
        {
          kind: 'transcript',
          episode_id: 'ep_1',
          language: 'en',
          lines: [{ n: 1, s: 'S1', r: null, a: 0, b: 1, t: 'hi' }],
        },
      ],
    });
    expect(
      toFact({ topic: 'other', partition: 0, offset: 0, key: null, headers: {}, timestamp: 0, value: {} })
        .kind,
    ).toBe('skip');
  });

  it('derives preview ids from the count-affecting settings only', () => {
    const a = previewId('p', 'ENTITY_MENTION', ['e2', 'e1'], ['FR', 'en'], undefined);
    expect(previewId('p', 'ENTITY_MENTION', ['e1', 'e2'], ['en', 'fr'], undefined)).toBe(a);
    expect(previewId('p', 'ENTITY_MENTION', ['e1'], ['en', 'fr'], undefined)).not.toBe(a);
    expect(previewId('q', 'ENTITY_MENTION', ['e1', 'e2'], ['en', 'fr'], undefined)).not.toBe(a);
    const s = previewId('p', 'PODCAST_SPEAKER', ['e1'], [], undefined);
    expect(
      previewId(
        'p',
        'PODCAST_SPEAKER',
        ['e1'],
        [],
        ['GUEST', 'PANELIST', 'CORRESPONDENT', 'AUDIENCE', 'SOUNDBITE_SPEAKER'],
      ),
    ).toBe(s);
    expect(previewId('p', 'PODCAST_SPEAKER', ['e1'], [], ['GUEST'])).not.toBe(s);
  });

  it('caches podcast bias for the senders, podcasts without an evaluation included', async () => {
    const bias: PodcastBias = {
      bias: 'CENTER',
      lean_score: 0.1,
      is_political: true,
      political_context: 'US',
      evaluated_at: '2026-01-01T00:00:00.000Z',
    };
    const asked: string[][] = [];
    let t = 0;
    const reader = cachedBiasReader(
      {
        async biasOf(ids) {
          asked.push([...ids].sort());
          return new Map(ids.filter((id) => id === 'pod_a').map((id) => [id, bias]));
        },
      },
      60_000,
      () => t,
    );
    expect([...(await reader.biasOf(['pod_a', 'pod_b', 'pod_a']))]).toEqual([['pod_a', bias]]);
    t = 59_000;
    expect([...(await reader.biasOf(['pod_b', 'pod_a']))]).toEqual([['pod_a', bias]]);
    expect(asked).toEqual([['pod_a', 'pod_b']]);
    t = 61_000;
    await reader.biasOf(['pod_b', 'pod_c']);
    expect(asked).toEqual([
      ['pod_a', 'pod_b'],
      ['pod_b', 'pod_c'],
    ]);
  });
});
