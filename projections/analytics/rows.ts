import type {
  BiasEvaluation,
  ChartSnapshotRow,
  Entity,
  EpisodePublished,
  Podcast,
  Publisher,
  RatingSnapshot,
} from '../../schemas/generated/index.ts';
import { primaryLanguage } from '../../schemas/language-tags.ts';

/**
 * Events → analytics rows. Pure functions: the same event always gives the same rows, so a
 * replay writes exactly what the first pass wrote. Rows are arrays in the column order of
 * `TABLES` (tables.ts, read from the DDL); DateTime64 columns carry epoch milliseconds. Here: the
 * encoding, and the one-row tables (catalog, charts, bias); episode-scoped sets are in
 * episode-sets.ts.
 */
export type Row = unknown[];

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

/** The `lang` column: the primary language subtag, lower case (`fr` for `fr-CA`); empty when unknown. */
export function languageKey(tag: string | null | undefined): string {
  return primaryLanguage(tag).trim();
}

/** A nullable boolean as a nullable UInt8. */
export const bit = (b: boolean | null | undefined): number | null =>
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

export function ratingRow(r: RatingSnapshot, version: number): Row {
  return [
    r.podcast_id,
    r.platform,
    r.country.toUpperCase(),
    r.captured_at,
    r.id,
    r.average,
    r.count,
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
