import type {
  ArchiveRecordRow,
  EpisodePart,
  HeavyPart,
  MentionPart,
  SpeakerPart,
  TranscriptPart,
} from '../../projections/archive/index.ts';
import type { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import { compactEntities } from './analytics.ts';
import { speakerViews, transcriptLineView } from './episodes.ts';

/**
 * Episode records (the `EpisodeRecord` schema of api/views/episodes.ts) from the archive's rows:
 * the one renderer of the live stream, the archive replay and the bulk download, so the three
 * carry the same bytes for the same episode. What the catalog knows (entities in compact form, the
 * people speakers are) is read when the record is rendered, in one lookup per batch of rows.
 */
export const RECORD_INCLUDES = ['transcript', 'segments', 'clips'] as const;
export type RecordInclude = (typeof RECORD_INCLUDES)[number] & HeavyPart;

/** Renders `rows` as JSON texts, in order. */
export async function renderRecords(
  catalog: CatalogReader,
  rows: ArchiveRecordRow[],
  include: ReadonlySet<RecordInclude>,
): Promise<string[]> {
  if (rows.length === 0) return [];
  const parsed = rows.map((row) => ({
    row,
    episode: JSON.parse(row.episode) as EpisodePart,
    mentions: JSON.parse(row.mentions) as MentionPart[],
    speakers: JSON.parse(row.speakers) as SpeakerPart[],
  }));
  const ids = new Set<string>();
  for (const p of parsed) {
    for (const m of p.mentions) ids.add(m.entity_id);
    for (const s of p.speakers) if (s.person_id) ids.add(s.person_id);
  }
  const entities = await catalog.entitiesByIds([...ids]);
  const mentioned = [...new Set(parsed.flatMap((p) => p.mentions.map((m) => m.entity_id)))]
    .map((id) => entities.get(id))
    .filter((e) => e !== undefined);
  const compact = new Map((await compactEntities(catalog, mentioned)).map((c) => [c.id, c]));

  return parsed.map(({ row, episode, mentions, speakers }) => {
    const speakerList = speakerViews(speakers, entities);
    const record: Record<string, unknown> = {
      id: episode.id,
      slug: episode.slug,
      title: episode.title,
      description: episode.description,
      published_at: episode.published_at,
      duration_seconds: episode.duration_seconds,
      audio_url: episode.audio_url,
      image_url: episode.image_url,
      language: episode.language ?? row.podcast_language,
      podcast: JSON.parse(row.podcast) as unknown,
      people: episode.people,
      entities: mentions
        .filter((m) => compact.has(m.entity_id))
        .map((m) => ({
          entity: compact.get(m.entity_id)!,
          relevance: m.relevance,
          mention_count: m.mention_count,
          line_count: m.line_count,
          ad_line_count: m.ad_line_count,
          variants: m.variants,
        })),
      speakers: speakerList,
    };
    if (include.has('transcript')) {
      const transcript = JSON.parse(row.transcript ?? '{"language":"","lines":[]}') as TranscriptPart;
      const byLabel = new Map(speakers.map((s) => [s.label, s]));
      record.transcript = {
        language: transcript.language,
        lines: transcript.lines.map((l) => transcriptLineView(l, byLabel)),
      };
    }
    let json = JSON.stringify(record);
    // Segments and clips are stored as the record carries them: spliced in as they are.
    if (include.has('segments')) json = `${json.slice(0, -1)},"segments":${row.segments ?? '[]'}}`;
    if (include.has('clips')) json = `${json.slice(0, -1)},"clips":${row.clips ?? '[]'}}`;
    return json;
  });
}
