import { CLIP_TYPES } from '../../schemas/event-enums.ts';
import type { AdReads, Clips, Segments, Transcript } from '../../schemas/generated/index.ts';
import type { Participant } from './episode-cast.ts';
import type { Subject } from './episode-phrasing.ts';
import { capitalize, type Piece } from './episode-pieces.ts';
import type { PlantedMention } from './episode-truth.ts';
import type { Rng } from './rng.ts';

/**
 * The records of an episode as it is spoken: transcript lines with their timing and diarization
 * labels, segments, ad reads and clips, and what was planted in each line (mentions, concepts).
 */
export class EpisodeRecorder {
  readonly lines: Transcript['lines'] = [];
  /** Concept ids expressed by each line (index = line number - 1). */
  readonly lineConcepts: string[][] = [];
  readonly mentions: PlantedMention[] = [];
  /** Diarization label of each participant, by key, in order of first line. */
  readonly labels = new Map<string, string>();
  readonly lineCounts = new Map<string, number>();
  readonly participantsByKey = new Map<string, Participant>();
  readonly segments: Segments['segments'] = [];
  readonly adReads: AdReads['ad_reads'] = [];
  /** Non-ad lines mentioning each entity (entity sense). */
  readonly entityLines = new Map<string, Set<number>>();
  readonly entityCounts = new Map<string, number>();
  /** End of the last line, seconds. */
  t = 0;
  private lastKey: string | null = null;
  /** Whether the lines spoken now are an ad read. */
  inAd = false;
  audioUrl = '';

  constructor(
    private readonly rng: Rng,
    private readonly id: string,
    private readonly subject: Subject,
  ) {}

  private labelOf(p: Participant): string {
    let label = this.labels.get(p.key);
    if (!label) {
      label = `SPEAKER_${this.labels.size + 1}`;
      this.labels.set(p.key, label);
    }
    return label;
  }

  say(p: Participant, piece: Piece): number {
    const { rng } = this;
    const number = this.lines.length + 1;
    // Speech recognition without true-casing: a few lines come out all lowercase.
    if (!this.inAd && rng.chance(0.02)) {
      const lower = piece.text.toLowerCase();
      if (lower.length === piece.text.length) piece = { ...piece, text: lower };
    }
    const words = piece.text.split(/\s+/).length;
    const gapSeconds = this.lastKey === p.key ? rng.between(0.05, 0.3) : rng.between(0.2, 0.9);
    const start = this.lines.length === 0 ? rng.between(0.5, 2) : this.t + gapSeconds;
    const pace = p.key === 'advoice' ? 2.9 : 2.5;
    const dur = Math.max(0.8, (words / pace) * rng.between(0.85, 1.2));
    const end = start + dur;
    this.lines.push({
      number,
      speaker: this.labelOf(p),
      role: null,
      start_seconds: Math.round(start * 100) / 100,
      end_seconds: Math.round(end * 100) / 100,
      text: piece.text,
      words: null,
    });
    this.lineConcepts.push(piece.concepts);
    this.t = Math.round(end * 100) / 100;
    this.lastKey = p.key;
    this.lineCounts.set(p.key, (this.lineCounts.get(p.key) ?? 0) + 1);
    for (const m of piece.marks) {
      this.mentions.push({
        episode_id: this.id,
        line_number: number,
        entity_id: m.entityId,
        variant: piece.text.slice(m.start, m.end),
        char_start: m.start,
        char_end: m.end,
        sense: m.sense,
        in_ad: this.inAd,
        ambiguous: m.ambiguous,
      });
      if (m.sense === 'entity') {
        this.entityCounts.set(m.entityId, (this.entityCounts.get(m.entityId) ?? 0) + 1);
        if (!this.inAd) {
          let set = this.entityLines.get(m.entityId);
          if (!set) {
            set = new Set();
            this.entityLines.set(m.entityId, set);
          }
          set.add(number);
        }
      }
    }
    return number;
  }

  segment(
    type: Segments['segments'][number]['type'],
    title: string,
    body: () => void,
    extra: { readType?: 'host_read' | 'pre_recorded'; topics?: string[] } = {},
  ): Segments['segments'][number] | null {
    const firstLine = this.lines.length + 1;
    body();
    const lastLine = this.lines.length;
    if (lastLine < firstLine) return null;
    const start = this.lines[firstLine - 1]!.start_seconds;
    const end = this.lines[lastLine - 1]!.end_seconds;
    const number = this.segments.length + 1;
    const seg: Segments['segments'][number] = {
      id: `seg_${this.id.slice(3)}_${number}`,
      number,
      title,
      type,
      start_seconds: start,
      end_seconds: end,
      first_line: firstLine,
      last_line: lastLine,
      description:
        type === 'TOPIC_DISCUSSION' || type === 'INTERVIEW'
          ? `${capitalize(this.subject.topic.concepts[0]!.headline)} and more.`
          : null,
      summary: type === 'TOPIC_DISCUSSION' || type === 'INTERVIEW' ? this.lines[firstLine - 1]!.text : null,
      audio_url: `${this.audioUrl}#t=${start},${end}`,
      read_type: extra.readType ?? null,
      // the subject's topic (a discussion of a second topic names it)
      topics:
        extra.topics ?? (type === 'TOPIC_DISCUSSION' || type === 'INTERVIEW' ? [this.subject.topic.id] : []),
    };
    this.segments.push(seg);
    return seg;
  }

  recordAd(
    seg: Segments['segments'][number],
    sponsorName: string,
    companyId: string | null,
    readType: 'host_read' | 'pre_recorded',
    promo: boolean,
  ): void {
    const withLines = this.rng.chance(0.85);
    this.adReads.push({
      id: `ad_${this.id.slice(3)}_${this.adReads.length + 1}`,
      segment_id: seg.id,
      sponsor_name: sponsorName,
      company_id: companyId,
      read_type: readType,
      is_network_promo: promo,
      start_seconds: seg.start_seconds,
      end_seconds: seg.end_seconds,
      first_line: withLines ? seg.first_line : null,
      last_line: withLines ? seg.last_line : null,
    });
  }

  /**
   * Clips cut from the discussions: `typeOffset` turns the clip types over the corpus, `intro`
   * writes a clip's intro statement for its speaker (undefined when not a catalog person).
   */
  clips(
    typeOffset: number,
    intro: (speaker: string | undefined, headline: string) => string,
  ): Clips['clips'] {
    const { rng } = this;
    const candidates = this.segments.filter((s) => s.type === 'TOPIC_DISCUSSION' || s.type === 'INTERVIEW');
    const clips: Clips['clips'] = [];
    const count = candidates.length === 0 ? 0 : rng.int(2, 5);
    for (let k = 0; k < count; k++) {
      const seg = rng.pick(candidates);
      const len = rng.int(2, 5);
      const first = rng.int(seg.first_line, Math.max(seg.first_line, seg.last_line - len + 1));
      const last = Math.min(seg.last_line, first + len - 1);
      const span = this.lines.slice(first - 1, last);
      const counts = new Map<string, number>();
      for (const l of span) counts.set(l.speaker, (counts.get(l.speaker) ?? 0) + 1);
      const speaker = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
      const type = CLIP_TYPES[(typeOffset + k) % CLIP_TYPES.length]!;
      const key = [...this.labels].find(([, l]) => l === speaker)?.[0];
      const person = key ? this.participantsByKey.get(key)?.person : null;
      const headline =
        this.subject.topic.concepts.find((c) =>
          span.some((_, i) => this.lineConcepts[first - 1 + i]?.includes(c.id)),
        )?.headline ?? this.subject.main.headline;
      const start = span[0]!.start_seconds;
      const end = span.at(-1)!.end_seconds;
      clips.push({
        id: `clip_${this.id.slice(3)}_${k + 1}`,
        type,
        title: `${capitalize(headline)} (${type.toLowerCase().replace(/_/g, ' ')})`,
        description: span[0]!.text,
        intro_statement: intro(person?.entity.name, headline),
        engagement_score: Math.round(rng.normal(55, 18, 3, 99) * 10) / 10,
        start_seconds: start,
        end_seconds: end,
        audio_url: `${this.audioUrl}#t=${start},${end}`,
        segment_id: seg.id,
        speaker,
      });
    }
    return clips;
  }

  addWordTimings(): void {
    for (const line of this.lines) {
      const words = line.text.split(/\s+/);
      const step = (line.end_seconds - line.start_seconds) / words.length;
      line.words = words.map((word, i) => ({
        word,
        start_seconds: Math.round((line.start_seconds + i * step) * 100) / 100,
        end_seconds: Math.round((line.start_seconds + (i + 1) * step) * 100) / 100,
        confidence: Math.round(this.rng.between(0.82, 0.995) * 1000) / 1000,
      }));
    }
  }
}
