import type { AlertMatched } from '../../../schemas/generated/index.ts';
import type { FactClip, FactLine, FactSpeaker, MatcherFacts } from './matcher-facts.ts';

/**
 * The windows of a match: the transcript around what fired it.
 *
 * ENTITY_MENTION: each mention line with one line of context either side, overlapping or
 * adjacent windows merged, at most MAX_MENTION_WINDOWS in episode order.
 *
 * PODCAST_SPEAKER: the highlight clips of that speaker (with `clip_id`, `clip_title`,
 * `clip_type`), or else its first turns with the line before each for context; at most
 * MAX_SPEAKER_WINDOWS.
 *
 * Lines show the identified speaker's name where known (else the diarization label) and role.
 * `clip_url` is a highlight clip's audio covering the window, or else the episode audio with a
 * media fragment (`#t=start,end`), or null when the episode has no audio url.
 */
export const MAX_MENTION_WINDOWS = 20;
export const MAX_SPEAKER_WINDOWS = 5;
const MAX_WINDOW_LINES = 12;

type Window = AlertMatched['windows'][number];
type Line = Window['lines'][number];

/** Builds windows lazily and once per episode and entity, shared by every alert matched on it. */
export class EpisodeRenderer {
  private lineIndex?: Map<number, number>;
  private readonly names = new Map<string, FactSpeaker>();
  private readonly windows = new Map<string, Window[]>();

  constructor(
    readonly facts: MatcherFacts,
    private readonly lines: FactLine[],
  ) {
    for (const s of facts.speakers?.list ?? []) if (!this.names.has(s.label)) this.names.set(s.label, s);
  }

  private line(l: FactLine, isMention: boolean): Line {
    const who = this.names.get(l.s);
    return {
      number: l.n,
      speaker: who?.name ?? l.s,
      role: who?.role ?? l.r ?? null,
      start_seconds: l.a,
      end_seconds: l.b,
      text: l.t,
      is_mention: isMention,
    };
  }

  private indexOf(lineNumber: number): number | undefined {
    if (!this.lineIndex) {
      const index = new Map<number, number>();
      for (let i = 0; i < this.lines.length; i++) index.set(this.lines[i]!.n, i);
      this.lineIndex = index;
    }
    return this.lineIndex.get(lineNumber);
  }

  private clipUrl(start: number, end: number): string | null {
    const covering = (this.facts.clips ?? []).find(
      (c) => c.audio_url && c.start_seconds <= start && c.end_seconds >= end,
    );
    if (covering) return covering.audio_url;
    const audio = this.facts.audio_url;
    if (!audio) return null;
    return `${audio.split('#')[0]}#t=${round(start)},${round(end)}`;
  }

  mentionWindows(entityId: string): Window[] {
    const cached = this.windows.get(`m:${entityId}`);
    if (cached) return cached;
    const mentionLines = new Set<number>(this.facts.mentions?.lines[entityId] ?? []);
    const ranges: [number, number][] = [];
    const indexes = [...mentionLines]
      .map((n) => this.indexOf(n))
      .filter((i): i is number => i !== undefined)
      .sort((a, b) => a - b);
    for (const i of indexes) {
      const from = Math.max(0, i - 1);
      const to = Math.min(this.lines.length - 1, i + 1);
      const last = ranges.at(-1);
      if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to);
      else ranges.push([from, to]);
    }
    const out = ranges.slice(0, MAX_MENTION_WINDOWS).map(([from, to]) => {
      const lines = this.lines.slice(from, to + 1).slice(0, MAX_WINDOW_LINES);
      const start = lines[0]!.a;
      const end = lines.at(-1)!.b;
      return {
        start_seconds: start,
        end_seconds: end,
        lines: lines.map((l) => this.line(l, mentionLines.has(l.n))),
        clip_url: this.clipUrl(start, end),
        clip_id: null,
        clip_title: null,
        clip_type: null,
      };
    });
    this.windows.set(`m:${entityId}`, out);
    return out;
  }

  speakerWindows(labels: ReadonlySet<string>): Window[] {
    const key = `s:${[...labels].sort().join(',')}`;
    const cached = this.windows.get(key);
    if (cached) return cached;
    const out: Window[] = [];
    const clips = (this.facts.clips ?? [])
      .filter((c): c is FactClip & { speaker: string } => c.speaker !== null && labels.has(c.speaker))
      .sort((a, b) => a.start_seconds - b.start_seconds);
    for (const c of clips.slice(0, MAX_SPEAKER_WINDOWS)) {
      const lines = this.lines
        .filter((l) => l.b > c.start_seconds && l.a < c.end_seconds)
        .slice(0, MAX_WINDOW_LINES);
      out.push({
        start_seconds: c.start_seconds,
        end_seconds: c.end_seconds,
        lines: lines.map((l) => this.line(l, labels.has(l.s))),
        clip_url: c.audio_url ?? this.clipUrl(c.start_seconds, c.end_seconds),
        clip_id: c.id,
        clip_title: c.title,
        clip_type: c.type,
      });
    }
    if (out.length === 0) {
      // No clip of this speaker: their first turns, each with the line before for context.
      let i = 0;
      while (i < this.lines.length && out.length < MAX_SPEAKER_WINDOWS) {
        if (!labels.has(this.lines[i]!.s)) {
          i++;
          continue;
        }
        const from = Math.max(0, i - 1);
        let to = i;
        while (to + 1 < this.lines.length && labels.has(this.lines[to + 1]!.s)) to++;
        const lines = this.lines.slice(from, to + 1).slice(0, MAX_WINDOW_LINES);
        const start = lines[0]!.a;
        const end = lines.at(-1)!.b;
        out.push({
          start_seconds: start,
          end_seconds: end,
          lines: lines.map((l) => this.line(l, labels.has(l.s))),
          clip_url: this.clipUrl(start, end),
          clip_id: null,
          clip_title: null,
          clip_type: null,
        });
        i = to + 1;
      }
    }
    this.windows.set(key, out);
    return out;
  }
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
