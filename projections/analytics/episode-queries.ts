import type { AnalyticsStore, QueryParams } from './analytics-store.ts';
import { instant } from './scope-filters.ts';

/** Per-episode reads: the episode feed, transcripts, words, speakers, segments and clips. */
export interface FeedEpisodeRow {
  id: string;
  slug: string;
  podcast_id: string;
  title: string;
  description: string | null;
  published_ms: number;
  duration_seconds: number | null;
  audio_url: string | null;
  image_url: string | null;
  language: string | null;
  people: string;
  available_ms: number;
}

export interface TranscriptLineRow {
  line_number: number;
  speaker: string;
  role: string | null;
  start_seconds: number;
  end_seconds: number;
  text: string;
  language: string;
}

export interface WordRow {
  line_number: number;
  word_index: number;
  word: string;
  start_seconds: number;
  end_seconds: number;
  confidence: number | null;
}

export interface SpeakerRow {
  episode_id: string;
  label: string;
  person_id: string;
  name: string | null;
  role: string;
  line_count: number;
  capacity: string;
  in_field: number | null;
  confidence: number;
}

export interface SegmentRow {
  id: string;
  number: number;
  title: string;
  type: string;
  start_seconds: number;
  end_seconds: number;
  first_line: number;
  last_line: number;
  description: string | null;
  summary: string | null;
  audio_url: string | null;
  read_type: string | null;
}

export interface ClipRow {
  id: string;
  type: string;
  title: string;
  description: string | null;
  intro_statement: string | null;
  engagement_score: number;
  start_seconds: number;
  end_seconds: number;
  audio_url: string | null;
  segment_id: string | null;
  speaker: string | null;
}

export class EpisodeQueries {
  constructor(private readonly store: AnalyticsStore) {}

  /**
   * The episode feed: episodes in the order they entered the catalog, after a position
   * (`available_ms`, `id`), optionally of one podcast.
   */
  async feed(options: {
    podcastId?: string;
    after?: { t: number; id: string };
    limit: number;
  }): Promise<FeedEpisodeRow[]> {
    const params: QueryParams = { limit: options.limit };
    const where: string[] = [];
    if (options.podcastId !== undefined) {
      params.podcast = options.podcastId;
      where.push('podcast_id = {podcast:String}');
    }
    if (options.after) {
      params.at = options.after.t;
      params.aid = options.after.id;
      where.push(`(available_at, id) > (${instant('at')}, {aid:String})`);
    }
    const rows = await this.store.query<FeedEpisodeRow>(
      `SELECT id, slug, podcast_id, title, description, toUnixTimestamp64Milli(published_at) AS published_ms,
         duration_seconds, audio_url, image_url, language, people, toUnixTimestamp64Milli(available_at) AS available_ms
       FROM episodes FINAL ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY available_at, id LIMIT {limit:UInt32}`,
      params,
    );
    return rows.map((r) => ({
      ...r,
      published_ms: Number(r.published_ms),
      available_ms: Number(r.available_ms),
    }));
  }

  async transcript(episodeId: string): Promise<TranscriptLineRow[]> {
    const rows = await this.store.query<TranscriptLineRow>(
      `SELECT line_number, speaker, role, start_seconds, end_seconds, text, language
       FROM transcript_lines FINAL WHERE episode_id = {episode:String} ORDER BY line_number`,
      { episode: episodeId },
    );
    return rows.map((r) => ({ ...r, line_number: Number(r.line_number) }));
  }

  /** Lines of one episode by number. */
  async linesByNumber(episodeIds: string[], numbers: number[]): Promise<Map<string, TranscriptLineRow>> {
    if (episodeIds.length === 0) return new Map();
    const rows = await this.store.query<TranscriptLineRow & { episode_id: string }>(
      `SELECT episode_id, line_number, speaker, role, start_seconds, end_seconds, text, language
       FROM transcript_lines FINAL
       WHERE episode_id IN {episodes:Array(String)} AND line_number IN {numbers:Array(UInt32)}`,
      { episodes: [...new Set(episodeIds)], numbers: [...new Set(numbers)] },
    );
    return new Map(
      rows.map((r) => [`${r.episode_id}/${r.line_number}`, { ...r, line_number: Number(r.line_number) }]),
    );
  }

  /** Words of one episode in order, after a position (`line_number`, `word_index`). */
  async words(
    episodeId: string,
    after: { l: number; w: number } | undefined,
    limit: number,
  ): Promise<WordRow[]> {
    const params: QueryParams = { episode: episodeId, limit };
    let where = 'episode_id = {episode:String}';
    if (after) {
      params.al = after.l;
      params.aw = after.w;
      where += ' AND (line_number, word_index) > ({al:UInt32}, {aw:UInt32})';
    }
    const rows = await this.store.query<WordRow>(
      `SELECT line_number, word_index, word, start_seconds, end_seconds, confidence
       FROM transcript_words FINAL WHERE ${where} ORDER BY line_number, word_index LIMIT {limit:UInt32}`,
      params,
    );
    return rows.map((r) => ({ ...r, line_number: Number(r.line_number), word_index: Number(r.word_index) }));
  }

  async speakers(episodeIds: string[]): Promise<SpeakerRow[]> {
    if (episodeIds.length === 0) return [];
    const rows = await this.store.query<SpeakerRow>(
      `SELECT episode_id, label, person_id, name, role, line_count, capacity, in_field, confidence
       FROM episode_speakers FINAL WHERE episode_id IN {episodes:Array(String)} ORDER BY episode_id, label`,
      { episodes: [...new Set(episodeIds)] },
    );
    return rows.map((r) => ({ ...r, line_count: Number(r.line_count) }));
  }

  async segments(episodeId: string): Promise<SegmentRow[]> {
    const rows = await this.store.query<SegmentRow>(
      `SELECT id, number, title, type, start_seconds, end_seconds, first_line, last_line, description, summary,
         audio_url, read_type
       FROM segments FINAL WHERE episode_id = {episode:String} ORDER BY number, id`,
      { episode: episodeId },
    );
    return rows.map((r) => ({
      ...r,
      number: Number(r.number),
      first_line: Number(r.first_line),
      last_line: Number(r.last_line),
    }));
  }

  /** One clip by its id, with its episode (the public clip embed). */
  async clip(clipId: string): Promise<(ClipRow & { episode_id: string }) | undefined> {
    const [row] = await this.store.query<ClipRow & { episode_id: string }>(
      `SELECT episode_id, id, type, title, description, intro_statement, engagement_score, start_seconds, end_seconds,
         audio_url, segment_id, speaker
       FROM clips FINAL WHERE id = {id:String} LIMIT 1`,
      { id: clipId },
    );
    return row;
  }

  /** Clips of one episode, best (highest engagement) first. */
  async clips(episodeId: string): Promise<ClipRow[]> {
    return this.store.query<ClipRow>(
      `SELECT id, type, title, description, intro_statement, engagement_score, start_seconds, end_seconds, audio_url,
         segment_id, speaker
       FROM clips FINAL WHERE episode_id = {episode:String} ORDER BY engagement_score DESC, id`,
      { episode: episodeId },
    );
  }

  /** Episodes and the newest publication time per podcast. */
  async podcastEpisodeStats(
    podcastIds: string[],
  ): Promise<Map<string, { episodes: number; latest_ms: number }>> {
    if (podcastIds.length === 0) return new Map();
    const rows = await this.store.query<{ podcast_id: string; episodes: number; latest_ms: number }>(
      `SELECT podcast_id, count() AS episodes, toUnixTimestamp64Milli(max(published_at)) AS latest_ms
       FROM episodes FINAL WHERE podcast_id IN {ids:Array(String)} GROUP BY podcast_id`,
      { ids: podcastIds },
    );
    return new Map(
      rows.map((r) => [r.podcast_id, { episodes: Number(r.episodes), latest_ms: Number(r.latest_ms) }]),
    );
  }
}
