import { describe, expect, it } from 'vitest';
import { ProblemError } from '../../api/problem.ts';
import { bucketsOf, parseInstant, resolveWindow } from '../../api/windows.ts';
import { mentionsSet, sponsorKey } from '../../projections/analytics/episode-sets.ts';
import { occupationTerm } from '../../projections/analytics/occupations.ts';
import { decodeRows } from '../../projections/analytics/rows.ts';
import { primaryLanguage } from '../../schemas/language-tags.ts';

const t = (s: string) => Date.parse(s);

function location(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof ProblemError) return err.options.errors?.[0]?.location;
    throw err;
  }
  return undefined;
}

describe('analytics windows and buckets', () => {
  it('reads a bare since as 00:00 UTC and a bare until as the end of that day; date-times exactly', () => {
    expect(parseInstant('2026-03-01', 'query.since', false)).toBe(t('2026-03-01T00:00:00Z'));
    expect(parseInstant('2026-03-01', 'query.until', true)).toBe(t('2026-03-02T00:00:00Z'));
    expect(parseInstant('2026-03-01T10:30:00+02:00', 'query.until', true)).toBe(t('2026-03-01T08:30:00Z'));
    expect(location(() => parseInstant('2026-02-30', 'query.until', true))).toBe('query.until');
    expect(location(() => parseInstant('last week', 'query.since', false))).toBe('query.since');
  });

  it('reads every RFC 3339 form the request schema accepts, and only the years the store holds', () => {
    const read = (v: string) => parseInstant(v, 'query.since', false);
    expect(read('2026-03-01t10:30:00z')).toBe(t('2026-03-01T10:30:00Z'));
    expect(read('2026-03-01 10:30:00Z')).toBe(t('2026-03-01T10:30:00Z'));
    expect(read('2026-03-01T10:30:00.123456789Z')).toBe(t('2026-03-01T10:30:00.123Z'));
    expect(read('2026-03-01T10:30:00+02')).toBe(t('2026-03-01T08:30:00Z'));
    expect(read('2026-03-01T10:30:00-0230')).toBe(t('2026-03-01T13:00:00Z'));
    expect(read('2016-12-31T23:59:60Z')).toBe(t('2016-12-31T23:59:59.999Z'));
    expect(read('1910-01-01')).toBe(t('1910-01-01T00:00:00Z'));
    expect(read('2024-02-29')).toBe(t('2024-02-29T00:00:00Z'));
    for (const bad of ['2023-02-29', '2026-03-01T24:00:00Z', '2026-03-01T10:30Z', '0001-01-01', '2300-01-01'])
      expect(
        location(() => read(bad)),
        bad,
      ).toBe('query.since');
  });

  it('defaults to the 7 days before now and refuses empty or too long windows', () => {
    const now = t('2026-03-10T12:00:00Z');
    expect(resolveWindow({}, { defaultDays: 7, maxDays: 90, now })).toEqual({
      start: now - 7 * 86_400_000,
      end: now,
    });
    expect(
      resolveWindow({ since: '2026-01-01', until: '2026-03-31' }, { defaultDays: 7, maxDays: 90 }),
    ).toEqual({
      start: t('2026-01-01T00:00:00Z'),
      end: t('2026-04-01T00:00:00Z'),
    });
    expect(
      location(() =>
        resolveWindow({ since: '2026-01-01', until: '2026-04-01' }, { defaultDays: 7, maxDays: 90 }),
      ),
    ).toBe('query.since');
    expect(
      location(() => resolveWindow({ since: '2026-03-02', until: '2026-03-01' }, { defaultDays: 7 })),
    ).toBe('query.since');
  });

  it('covers the window with clipped buckets (Monday weeks, calendar months) and caps them at 1,000', () => {
    const w = { start: t('2026-01-14T06:00:00Z'), end: t('2026-03-03T00:00:00Z') };
    const weeks = bucketsOf(w, 'week');
    expect(weeks[0]).toEqual({
      key: t('2026-01-12T00:00:00Z'),
      start: w.start,
      end: t('2026-01-19T00:00:00Z'),
    });
    expect(weeks.at(-1)).toEqual({
      key: t('2026-03-02T00:00:00Z'),
      start: t('2026-03-02T00:00:00Z'),
      end: w.end,
    });
    expect(bucketsOf(w, 'month').map((b) => new Date(b.start).toISOString())).toEqual([
      '2026-01-14T06:00:00.000Z',
      '2026-02-01T00:00:00.000Z',
      '2026-03-01T00:00:00.000Z',
    ]);
    expect(bucketsOf({ start: 0, end: 1000 * 3_600_000 }, 'hour')).toHaveLength(1000);
    expect(location(() => bucketsOf({ start: 0, end: 1001 * 3_600_000 }, 'hour'))).toBe('query.interval');
  });
});

describe('analytics rows', () => {
  it('counts a line once per entity however often it names it, and flags ad lines', () => {
    const mention = (entity_id: string, line_number: number, variant: string, in_ad = false) => ({
      entity_id,
      line_number,
      speaker: 'SPEAKER_1',
      start_seconds: line_number,
      end_seconds: line_number + 1,
      variant,
      char_start: 0,
      char_end: 1,
      in_ad,
      matched: variant,
      match: 'alias',
    });
    const set = mentionsSet({
      episode_id: 'ep',
      podcast_id: 'pod',
      published_at: 1000,
      language: 'fr-CA',
      detector_version: 'x',
      mentions: [
        mention('a', 1, 'A'),
        mention('a', 1, 'Alpha'),
        mention('a', 2, 'A', true),
        mention('b', 2, 'B', true),
      ],
      entities: [{ entity_id: 'a', relevance: 'on_target', mention_count: 3, variants: ['A', 'Alpha'] }],
      detected_at: 5,
    });
    expect(set.version).toBe(5);
    expect(decodeRows(set.tables.mention_lines).map((r) => [r[0], r[3], r[6], r[7]])).toEqual([
      ['a', 1, 0, 'fr'],
      ['a', 2, 1, 'fr'],
      ['b', 2, 1, 'fr'],
    ]);
    expect(decodeRows(set.tables.entity_episodes).map((r) => [r[0], r[5], r[6], r[7]])).toEqual([
      ['a', 2, 1, 'on_target'],
      ['b', 1, 1, 'incidental'],
    ]);
    // Whole rows, in table column order, awkward strings included (the set is encoded by hand).
    const odd = 'ent "quoted" \\ tab\t ünï 🎙️';
    const full = mentionsSet({
      episode_id: 'ep "1"',
      podcast_id: 'pod\n2',
      published_at: 1_795_000_000_123,
      language: '',
      detector_version: 'x',
      mentions: [{ ...mention(odd, 7, 'v', false), speaker: 'SPEAKER "1"' }, mention(odd, 7, 'w', true)],
      entities: [
        { entity_id: odd, relevance: 'on_target', mention_count: 2, variants: ['v', 'w "x"'] },
        { entity_id: 'quiet', relevance: 'incidental', mention_count: 0, variants: [] },
      ],
      detected_at: 1_795_000_000_999,
    });
    const v = 1_795_000_000_999 * 4 + 1;
    expect(decodeRows(full.tables.mention_lines)).toEqual([
      [odd, 1_795_000_000_123, 'ep "1"', 7, 'pod\n2', 'SPEAKER "1"', 1, '', v, 0],
    ]);
    expect(decodeRows(full.tables.entity_episodes)).toEqual([
      [odd, 1_795_000_000_123, 'ep "1"', 'pod\n2', '', 1, 1, 'on_target', 2, ['v', 'w "x"'], v, 0],
      ['quiet', 1_795_000_000_123, 'ep "1"', 'pod\n2', '', 0, 0, 'incidental', 0, [], v, 0],
    ]);
    expect(full.tables.mention_lines!.count).toBe(1);
    expect(full.tables.mention_lines!.json.endsWith('\n')).toBe(true);
    expect(primaryLanguage('en_GB')).toBe('en');
    expect(sponsorKey(null, '  Acme  Mattress ')).toBe('name:acme mattress');
  });

  it('reads occupation terms through codes of the other system and everyday names', () => {
    expect(occupationTerm('19-3011').slugs).toContain('economist');
    expect(occupationTerm('Doctor').slugs).toContain('physician');
    expect(occupationTerm('Chief executive')).toEqual({
      text: 'chief executive',
      slugs: ['chief-executive'],
    });
  });
});
