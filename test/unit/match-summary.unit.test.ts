import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ApiKey } from '../../processors/alerts/summaries/chat-summarizer.ts';
import {
  extractiveSummary,
  MAX_SUMMARY_CHARS,
  type SummarizedMatch,
} from '../../processors/alerts/summaries/extractive.ts';

type Line = SummarizedMatch['windows'][number]['lines'][number];
const line = (speaker: string, text: string, is_mention = false, at = 0): Line => ({
  number: at / 6 + 1,
  speaker,
  role: null,
  start_seconds: at,
  end_seconds: at + 6,
  text,
  is_mention,
});
const windowOf = (...lines: Line[]): SummarizedMatch['windows'][number] => ({
  start_seconds: lines[0]!.start_seconds,
  end_seconds: lines.at(-1)!.end_seconds,
  lines,
  clip_url: null,
  clip_id: null,
  clip_title: null,
  clip_type: null,
});

/** The sentences a summary is made of, with the speaker prefixes and separators taken off. */
function sentencesOf(summary: string): string[] {
  return summary.split(' … ').map((part) => part.replace(/^[^:]+: /, ''));
}

describe('extractive match summary', () => {
  const match: SummarizedMatch = {
    kind: 'ENTITY_MENTION',
    mention_variants: ['Apple', 'Tim Cook'],
    windows: [
      windowOf(
        line('Dana', 'Welcome back. Today we talk about phones.', false, 0),
        line('Marcus', 'Thanks. Apple shares barely moved after the Fed decision.', true, 6),
        line('Dana', 'Why do you think that is?', false, 12),
      ),
      windowOf(
        line('Marcus', 'Pineapple prices are another story.', false, 60),
        line('Marcus', 'Tim Cook said as much. Apple and Tim Cook both expected it!', true, 66),
      ),
    ],
  };

  it('picks the sentences that cover every matched term, in transcript order, with speakers', () => {
    // "Apple and Tim Cook both expected it!" names both terms: the greedy cover takes it first;
    // the minimum of two sentences adds the earliest other sentence naming a term.
    expect(extractiveSummary(match)).toBe(
      'Marcus: Apple shares barely moved after the Fed decision. … Apple and Tim Cook both expected it!',
    );
  });

  it('takes only text of the windows, and every term it covers appears in it', () => {
    const summary = extractiveSummary(match);
    const texts = match.windows.flatMap((w) => w.lines.map((l) => l.text));
    for (const s of sentencesOf(summary)) expect(texts.some((t) => t.includes(s))).toBe(true);
    for (const term of match.mention_variants) expect(summary).toContain(term);
    // whole words only: "Pineapple" does not name Apple
    expect(summary).not.toContain('Pineapple');
  });

  it('is deterministic and independent of variant case and accents', () => {
    const again = extractiveSummary({ ...match, mention_variants: ['APPLE', 'tim cook'] });
    expect(again).toBe(extractiveSummary(match));
    const accented = extractiveSummary({
      kind: 'ENTITY_MENTION',
      mention_variants: ['Nestle'],
      windows: [windowOf(line('A', 'We met Nestlé on Monday.', true), line('B', 'Fine.', false, 6))],
    });
    // only sentences naming a term or on a mention line fill up to the minimum
    expect(accented).toBe('A: We met Nestlé on Monday.');
  });

  it('falls back to mention lines when no variant appears verbatim', () => {
    const summary = extractiveSummary({
      kind: 'ENTITY_MENTION',
      mention_variants: ['Alphabet'],
      windows: [
        windowOf(line('A', 'Intro.', false), line('B', 'Google parent results beat estimates.', true, 6)),
      ],
    });
    expect(summary).toBe('B: Google parent results beat estimates.');
  });

  it("summarizes a speaker match by the speaker's first substantial sentences", () => {
    const summary = extractiveSummary({
      kind: 'PODCAST_SPEAKER',
      mention_variants: [],
      windows: [
        windowOf(
          line('Marcus', 'Right.', false, 0),
          line('Marcus', 'Rates will stay high for longer than people think.', false, 6),
          line('Marcus', 'That matters for housing. It matters for startups too.', false, 12),
        ),
      ],
    });
    expect(summary).toBe(
      'Marcus: Rates will stay high for longer than people think. … That matters for housing.',
    );
  });

  it('is cut at a word when too long, and empty for empty windows', () => {
    const long = 'Apple '.repeat(200).trim();
    const summary = extractiveSummary({
      kind: 'ENTITY_MENTION',
      mention_variants: ['Apple'],
      windows: [windowOf(line('A', long, true))],
    });
    expect(summary.length).toBeLessThanOrEqual(MAX_SUMMARY_CHARS);
    expect(summary.endsWith('Apple…')).toBe(true);
    expect(extractiveSummary({ kind: 'ENTITY_MENTION', mention_variants: ['x'], windows: [] })).toBe('');
  });
});

describe('chat model API key', () => {
  it('never prints, serialises or inspects as its value', () => {
    const key = new ApiKey('sk-very-secret');
    expect(JSON.stringify({ key })).not.toContain('sk-very-secret');
    expect(inspect({ key })).not.toContain('sk-very-secret');
    expect(`${key}`).toBe('[REDACTED]');
    expect(key.bearer()).toBe('Bearer sk-very-secret');
  });
});
