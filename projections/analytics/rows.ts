import type {
  AdReads,
  BiasEvaluation,
  ChartSnapshotRow,
  Clips,
  Entity,
  EpisodePublished,
  MentionsDetected,
  Podcast,
  Publisher,
  Segments,
  SpeakersIdentified,
  Transcript,
} from '../../schemas/generated/index.ts';
import { primaryLanguage } from '../../schemas/language-tags.ts';
import { type SetKind, TABLES, type TableName } from './tables.ts';

/**
 * Events → analytics rows. Pure functions: the same event always gives the same rows, so a
 * replay writes exactly what the first pass wrote. Rows are arrays in the column order of
 * `TABLES` (tables.ts, read from the DDL); DateTime64 columns carry epoch milliseconds.
 */
export type Row = unknown[];

/** Every row of one episode's record set of one kind, at one version. */
export interface EpisodeSet {
  kind: SetKind;
  episodeId: string;
  /** Set version; rows carry `4 × version + 1` (ad reads with known facts `+ 2`), markers `4 × version`. */
  version: number;
  /** Each table's rows, already encoded (see `encodeRows`). */
  tables: Partial<Record<TableName, EncodedRows>>;
}

/**
 * Rows encoded as `JSONCompactEachRow` lines, each ending with a newline. A set is encoded as soon
 * as it is built, so a batch holds a few strings per record rather than an array per row.
 */
export interface EncodedRows {
  count: number;
  json: string;
}

export function encodeRows(rows: readonly Row[]): EncodedRows {
  if (rows.length === 0) return { count: 0, json: '' };
  // One join allocates a flat string (repeated `+=` would build a rope to flatten later).
  const lines = new Array<string>(rows.length + 1);
  for (let i = 0; i < rows.length; i++) lines[i] = JSON.stringify(rows[i]);
  lines[rows.length] = '';
  return { count: rows.length, json: lines.join('\n') };
}

/** Rows back from their encoding (tests and tools). */
export function decodeRows(encoded: EncodedRows | undefined): Row[] {
  if (!encoded || encoded.json.length === 0) return [];
  return encoded.json
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Row);
}

function encodeTables(tables: Partial<Record<TableName, Row[]>>): Partial<Record<TableName, EncodedRows>> {
  const out: Partial<Record<TableName, EncodedRows>> = {};
  for (const [table, rows] of Object.entries(tables) as [TableName, Row[]][]) out[table] = encodeRows(rows);
  return out;
}

export const ROW_VERSION = (setVersion: number, sub: 1 | 2 = 1) => setVersion * 4 + sub;

/** The `lang` column: the primary language subtag, lower case (`fr` for `fr-CA`); empty when unknown. */
export function languageKey(tag: string | null | undefined): string {
  return primaryLanguage(tag).trim();
}

const bit = (b: boolean | null | undefined): number | null =>
  b === null || b === undefined ? null : b ? 1 : 0;

const SENIORITY_LEVEL: Record<string, number> = { professional: 1, senior: 2, distinguished: 3 };

export function publisherRow(p: Publisher): Row {
  return [p.id, p.slug, p.name, p.description, p.website_url, p.image_url, p.updated_at];
}

export function podcastRow(p: Podcast): Row {
  return [
    p.id,
    p.slug,
    p.directory_id,
    p.title,
    p.publisher_id ?? '',
    p.language,
    languageKey(p.language),
    p.categories.map((c) => c.slug),
    p.image_url,
    p.popularity,
    p.updated_at,
  ];
}

export function entityRow(e: Entity): Row {
  const person = e.person;
  const occupation = person?.occupation;
  return [
    e.id,
    e.slug,
    e.kind,
    e.name,
    e.category.slug,
    e.category.name,
    e.image_url,
    e.company?.domain ?? null,
    e.company?.ticker ?? null,
    person?.title ?? null,
    person?.company_id ?? '',
    occupation?.code ?? '',
    occupation?.system ?? '',
    occupation?.slug ?? '',
    occupation?.title ?? '',
    occupation?.group ?? '',
    person?.field?.code ?? '',
    person?.field?.slug ?? '',
    person?.field?.title ?? '',
    person?.standing ?? '',
    SENIORITY_LEVEL[person?.seniority ?? ''] ?? 0,
    bit(person?.practicing),
    e.updated_at,
  ];
}

/** `at` is when the record was appended to its topic: the feed order and the version. */
export function episodeRow(e: EpisodePublished, at: number): Row {
  return [
    e.id,
    e.slug,
    e.podcast_id,
    e.title,
    e.description,
    e.published_at,
    e.duration_seconds,
    e.audio_url,
    e.image_url,
    e.language,
    JSON.stringify(e.people),
    at,
    at,
  ];
}

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

export function speakersSet(s: SpeakersIdentified): EpisodeSet {
  const v = ROW_VERSION(s.identified_at);
  return {
    kind: 'speakers',
    episodeId: s.episode_id,
    version: s.identified_at,
    tables: encodeTables({
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

/** Ad rows without the episode's facts (podcast, publication time): version `4v + 1`. */
export function adReadsSet(a: AdReads, version: number): EpisodeSet {
  const v = ROW_VERSION(version, 1);
  return {
    kind: 'ad_reads',
    episodeId: a.episode_id,
    version,
    tables: encodeTables({
      ad_reads: a.ad_reads.map((r) => [
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
      ]),
    }),
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
  return {
    kind: 'mentions',
    episodeId: m.episode_id,
    version: m.detected_at,
    tables: {
      mention_lines: { count: lineEntity.length, json: lineEntity.length > 0 ? lineJson.join('\n') : '' },
      entity_episodes: { count: entityCount, json: entityCount > 0 ? entityJson.join('\n') : '' },
    },
  };
}

export function chartRow(c: ChartSnapshotRow, version: number): Row {
  return [
    c.source,
    c.chart_type,
    c.country,
    c.category.slug,
    c.captured_at,
    c.id,
    c.rank,
    c.previous_rank,
    c.chart_total,
    c.source_updated_at,
    c.external_id,
    c.external_url,
    c.growth_indicator,
    c.category.name,
    c.category.external_id,
    c.category.parent_slug,
    c.channel_subscriber_count,
    c.view_count,
    c.weekly_avg_downloads,
    c.reach_pct,
    JSON.stringify(c.show),
    c.podcast_id ?? '',
    version,
  ];
}

export function biasRow(b: BiasEvaluation, version: number): Row {
  return [
    b.podcast_id,
    b.evaluated_at,
    b.id,
    b.political_context,
    b.is_political ? 1 : 0,
    b.political_topic_percentage,
    b.lean_score,
    b.bias,
    b.episodes_analyzed,
    b.model,
    version,
  ];
}
