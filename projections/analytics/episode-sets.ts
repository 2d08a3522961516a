import type {
  AdReads,
  Clips,
  MentionsDetected,
  Segments,
  SpeakersIdentified,
  Transcript,
} from '../../schemas/generated/index.ts';
import { bit, type EncodedRows, encodeRows, languageKey, type Row } from './rows.ts';
import { type SetKind, TABLES, type TableName } from './tables.ts';

/**
 * Episode-scoped record sets: every row one event writes for its episode (transcript lines and
 * words, speakers, segments, clips, ad reads, mention lines and their rollup), encoded at once.
 * Pure functions, like rows.ts: a replay writes what the first pass wrote.
 */
/** Every row of one episode's record set of one kind, at one version. */
export interface EpisodeSet {
  kind: SetKind;
  episodeId: string;
  /** Set version; rows carry `4 × version + 1` (ad reads with known facts `+ 2`), markers `4 × version`. */
  version: number;
  /** Each table's rows, already encoded (see `encodeRows`). */
  tables: Partial<Record<TableName, EncodedRows>>;
  /** Speaker sets: the guests' person ids (the guest totals to recompute, rollups.ts). */
  persons?: string[];
}

function encodeTables(tables: Partial<Record<TableName, Row[]>>): Partial<Record<TableName, EncodedRows>> {
  const out: Partial<Record<TableName, EncodedRows>> = {};
  for (const [table, rows] of Object.entries(tables) as [TableName, Row[]][]) out[table] = encodeRows(rows);
  return out;
}

/** The version rows of a set carry (markers carry `4 × version`). */
export const ROW_VERSION = (setVersion: number, sub: 1 | 2 = 1) => setVersion * 4 + sub;

export function transcriptSet(t: Transcript, version: number): EpisodeSet {
  const v = ROW_VERSION(version);
  const lines: Row[] = [];
  const words: Row[] = [];
  for (const line of t.lines) {
    lines.push([
      t.episode_id,
      line.number,
      line.speaker,
      line.role,
      line.start_seconds,
      line.end_seconds,
      line.text,
      t.language,
      v,
      0,
    ]);
    line.words?.forEach((w, i) => {
      words.push([t.episode_id, line.number, i, w.word, w.start_seconds, w.end_seconds, w.confidence, v, 0]);
    });
  }
  return {
    kind: 'transcript',
    episodeId: t.episode_id,
    version,
    tables: encodeTables({ transcript_lines: lines, transcript_words: words }),
  };
}

/** Whether a speaker counts as a guest: a catalog person in any role but host. */
const isGuest = (sp: SpeakersIdentified['speakers'][number]) => !!sp.person_id && sp.role !== 'HOST';

export function speakersSet(s: SpeakersIdentified): EpisodeSet {
  const v = ROW_VERSION(s.identified_at);
  const guests = s.speakers.filter(isGuest);
  return {
    kind: 'speakers',
    episodeId: s.episode_id,
    version: s.identified_at,
    persons: [...new Set(guests.map((sp) => sp.person_id!))],
    tables: encodeTables({
      // guest_appearances: person_id, episode_id, label, podcast_id, published_at, role, line_count, capacity, in_field, version, is_deleted
      guest_appearances: guests.map((sp) => [
        sp.person_id,
        s.episode_id,
        sp.label,
        s.podcast_id,
        s.published_at,
        sp.role,
        sp.line_count,
        sp.capacity ?? '',
        bit(sp.in_field),
        v,
        0,
      ]),
      podcast_guest_appearances: guests.map((sp) => [
        s.podcast_id,
        sp.person_id,
        s.episode_id,
        sp.label,
        s.published_at,
        sp.role,
        sp.line_count,
        sp.capacity ?? '',
        bit(sp.in_field),
        v,
        0,
      ]),
      episode_speakers: s.speakers.map((sp) => [
        s.episode_id,
        sp.label,
        s.podcast_id,
        s.published_at,
        sp.person_id ?? '',
        sp.name,
        sp.role,
        sp.line_count,
        sp.capacity ?? '',
        bit(sp.in_field),
        sp.confidence,
        v,
        0,
      ]),
    }),
  };
}

export function segmentsSet(s: Segments, version: number): EpisodeSet {
  const v = ROW_VERSION(version);
  return {
    kind: 'segments',
    episodeId: s.episode_id,
    version,
    tables: encodeTables({
      segments: s.segments.map((g) => [
        s.episode_id,
        g.id,
        g.number,
        g.title,
        g.type,
        g.start_seconds,
        g.end_seconds,
        g.first_line,
        g.last_line,
        g.description,
        g.summary,
        g.audio_url,
        g.read_type,
        v,
        0,
      ]),
      segment_topics: s.segments.flatMap((g) =>
        (g.topics ?? []).map((topic) => [topic, s.episode_id, g.id, g.first_line, g.last_line, v, 0]),
      ),
    }),
  };
}

export function clipsSet(c: Clips, version: number): EpisodeSet {
  const v = ROW_VERSION(version);
  return {
    kind: 'clips',
    episodeId: c.episode_id,
    version,
    tables: encodeTables({
      clips: c.clips.map((k) => [
        c.episode_id,
        k.id,
        k.type,
        k.title,
        k.description,
        k.intro_statement,
        k.engagement_score,
        k.start_seconds,
        k.end_seconds,
        k.audio_url,
        k.segment_id,
        k.speaker,
        v,
        0,
      ]),
    }),
  };
}

/** A sponsor's identity: its company when resolved, otherwise its normalised name. */
export function sponsorKey(companyId: string | null, sponsorName: string): string {
  if (companyId) return companyId;
  return `name:${sponsorName.normalize('NFKC').trim().toLowerCase().replace(/\s+/g, ' ')}`;
}

/**
 * Ad rows without the episode's facts (podcast, publication time): version `4v + 1`. The same rows
 * go to `sponsor_ad_reads` (same columns, sorted by sponsor).
 */
export function adReadsSet(a: AdReads, version: number): EpisodeSet {
  const v = ROW_VERSION(version, 1);
  const rows: Row[] = a.ad_reads.map((r) => [
    a.episode_id,
    r.id,
    '',
    0,
    sponsorKey(r.company_id, r.sponsor_name),
    r.sponsor_name,
    r.company_id ?? '',
    r.read_type,
    r.is_network_promo ? 1 : 0,
    r.segment_id,
    r.start_seconds,
    r.end_seconds,
    r.first_line,
    r.last_line,
    v,
    0,
  ]);
  const encoded = encodeRows(rows);
  return {
    kind: 'ad_reads',
    episodeId: a.episode_id,
    version,
    tables: { ad_reads: encoded, sponsor_ad_reads: encoded },
  };
}

/** Column positions in an ad_reads row that the episode's facts fill. */
export const AD_FACTS = {
  podcastId: TABLES.ad_reads.indexOf('podcast_id'),
  publishedAt: TABLES.ad_reads.indexOf('published_at'),
  version: TABLES.ad_reads.indexOf('version'),
  isDeleted: TABLES.ad_reads.indexOf('is_deleted'),
};

/**
 * Mention lines (one per entity and line, however often the line names it) and the per-episode
 * rollup (lines, lines inside ad reads, relevance, variants).
 */
export function mentionsSet(m: MentionsDetected): EpisodeSet {
  // The projection's hot path (about ten million lines a year of catalog): rows are encoded here
  // directly, the columns every row of the set shares encoded once, instead of building an array
  // per row and JSON.stringify-ing it (same JSONCompactEachRow, a third of the main-thread work).
  const v = ROW_VERSION(m.detected_at);
  const lang = languageKey(m.language);
  const quoted = new Map<string, string>();
  const q = (text: string) => {
    let out = quoted.get(text);
    if (out === undefined) {
      out = JSON.stringify(text);
      quoted.set(text, out);
    }
    return out;
  };
  const published = JSON.stringify(m.published_at);
  const episode = q(m.episode_id);
  const podcast = q(m.podcast_id);
  const language = q(lang);
  const tail = `${language},${v},0]`;
  // entity → line number → index of its line (a line naming the entity several times is one row).
  const byEntity = new Map<string, Map<number, number>>();
  const perEntity = new Map<string, { lines: number; adLines: number }>();
  const lineEntity: string[] = [];
  const lineNumber: number[] = [];
  const lineSpeaker: string[] = [];
  const lineInAd: number[] = [];
  for (const mention of m.mentions) {
    let lines = byEntity.get(mention.entity_id);
    if (!lines) {
      lines = new Map();
      byEntity.set(mention.entity_id, lines);
      perEntity.set(mention.entity_id, { lines: 0, adLines: 0 });
    }
    const seen = lines.get(mention.line_number);
    const agg = perEntity.get(mention.entity_id)!;
    if (seen !== undefined) {
      if (mention.in_ad && lineInAd[seen] === 0) {
        lineInAd[seen] = 1;
        agg.adLines++;
      }
      continue;
    }
    lines.set(mention.line_number, lineEntity.length);
    lineEntity.push(mention.entity_id);
    lineNumber.push(mention.line_number);
    lineSpeaker.push(mention.speaker);
    lineInAd.push(mention.in_ad ? 1 : 0);
    agg.lines++;
    if (mention.in_ad) agg.adLines++;
  }
  // mention_lines: entity_id, published_at, episode_id, line_number, podcast_id, speaker, in_ad, lang, version, is_deleted
  const lineJson = new Array<string>(lineEntity.length + 1);
  for (let i = 0; i < lineEntity.length; i++) {
    lineJson[i] =
      `[${q(lineEntity[i]!)},${published},${episode},${lineNumber[i]},${podcast},${q(lineSpeaker[i]!)},${lineInAd[i]},${tail}`;
  }
  lineJson[lineEntity.length] = '';
  const summaries = new Map<string, MentionsDetected['entities'][number]>();
  for (const e of m.entities) summaries.set(e.entity_id, e);
  // entity_episodes: entity_id, published_at, episode_id, podcast_id, lang, lines, ad_lines, relevance, mention_count, variants, version, is_deleted
  const entityJson: string[] = [];
  const entityRow = (id: string, agg: { lines: number; adLines: number }) => {
    const summary = summaries.get(id);
    entityJson.push(
      `[${q(id)},${published},${episode},${podcast},${language},${agg.lines},${agg.adLines},${q(summary?.relevance ?? 'incidental')},${JSON.stringify(summary?.mention_count ?? agg.lines)},${JSON.stringify(summary?.variants ?? [])},${v},0]`,
    );
  };
  for (const [id, agg] of perEntity) entityRow(id, agg);
  for (const id of summaries.keys()) if (!perEntity.has(id)) entityRow(id, { lines: 0, adLines: 0 });
  const entityCount = entityJson.length;
  entityJson.push('');
  // episode_mention_lines: episode_id, entity_ids, line_numbers (outside ad reads), version, is_deleted
  const pairEntities: string[] = [];
  const pairLines: string[] = [];
  for (let i = 0; i < lineEntity.length; i++) {
    if (lineInAd[i] !== 0) continue;
    pairEntities.push(q(lineEntity[i]!));
    pairLines.push(String(lineNumber[i]));
  }
  const episodeLines =
    pairLines.length > 0 ? `[${episode},[${pairEntities.join(',')}],[${pairLines.join(',')}],${v},0]\n` : '';
  return {
    kind: 'mentions',
    episodeId: m.episode_id,
    version: m.detected_at,
    tables: {
      mention_lines: { count: lineEntity.length, json: lineEntity.length > 0 ? lineJson.join('\n') : '' },
      entity_episodes: { count: entityCount, json: entityCount > 0 ? entityJson.join('\n') : '' },
      episode_mention_lines: { count: episodeLines ? 1 : 0, json: episodeLines },
    },
  };
}
