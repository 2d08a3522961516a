import type { DecodedRecord, ProcessorDefinition, Sink } from '../../processors/consumer-runner.ts';
import { ok, skip } from '../../processors/step-result.ts';
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
  RatingSnapshot,
  Segments,
  SpeakersIdentified,
  Transcript,
} from '../../schemas/generated/index.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { type AnalyticsStore, compactAnalytics } from './analytics-store.ts';
import {
  AD_FACTS,
  adReadsSet,
  clipsSet,
  type EpisodeSet,
  mentionsSet,
  segmentsSet,
  speakersSet,
  transcriptSet,
} from './episode-sets.ts';
import { Rollups } from './rollups.ts';
import {
  biasRow,
  chartRow,
  entityRow,
  episodeRow,
  podcastRow,
  publisherRow,
  type Row,
  ratingRow,
} from './rows.ts';
import { SET_TABLES, type SetKind, SORTING_KEYS, TABLES, type TableName } from './tables.ts';

/**
 * Projectors from the topics into the analytics store. Each handles a record purely (event →
 * rows) and writes a batch with one insert per table: thousands of rows, or what arrived within
 * the runner's time bound. Writes are idempotent:
 *
 * - plain tables (dimensions, charts, bias) are ReplacingMergeTrees keyed by what identifies a
 *   row, written with deterministic versions, read with FINAL;
 * - episode-scoped sets (mentions, speakers, transcript, segments, clips, ad reads) are written
 *   only when newer than the version `episode_versions` records for the episode; a newer set
 *   first marks every row of the older one deleted, so removed lines disappear too.
 */
export type AnalyticsItem = { kind: 'row'; table: TableName; row: Row } | { kind: 'set'; set: EpisodeSet };

/** Characters of encoded rows per insert (transcript words add up). */
const INSERT_CHUNK_CHARS = 64 * 1024 * 1024;

/** Writes episode-scoped sets with the version rule above. */
export class EpisodeSetWriter {
  constructor(private readonly store: AnalyticsStore) {}

  /** Writes the sets that are newer than what the store holds; returns the episode ids written per kind. */
  async write(sets: EpisodeSet[]): Promise<Map<SetKind, string[]>> {
    const byKind = new Map<SetKind, Map<string, EpisodeSet>>();
    for (const set of sets) {
      const latest = byKind.get(set.kind) ?? new Map<string, EpisodeSet>();
      const seen = latest.get(set.episodeId);
      if (!seen || seen.version <= set.version) latest.set(set.episodeId, set);
      byKind.set(set.kind, latest);
    }
    const written = new Map<SetKind, string[]>();
    for (const [kind, latest] of byKind) {
      const ids = [...latest.keys()];
      const current = new Map(
        (
          await this.store.query<{ episode_id: string; version: number }>(
            `SELECT episode_id, max(version) AS version FROM episode_versions
             WHERE kind = {kind:String} AND episode_id IN {ids:Array(String)} GROUP BY episode_id`,
            { kind, ids },
          )
        ).map((r) => [r.episode_id, Number(r.version)]),
      );
      const fresh = [...latest.values()].filter(
        (s) => !(current.has(s.episodeId) && current.get(s.episodeId)! >= s.version),
      );
      if (fresh.length === 0) continue;
      const replacing = fresh.filter((s) => current.has(s.episodeId));
      const tables: readonly TableName[] = SET_TABLES[kind];
      if (replacing.length > 0) {
        for (const table of tables) {
          const key = SORTING_KEYS[table];
          // Hide every row of the older set: a marker repeats the row's key with a newer version.
          await this.store.command(
            `INSERT INTO ${table} (${key.join(', ')}, version, is_deleted)
             SELECT ${key.join(', ')}, 4 * arrayElement({versions:Array(UInt64)}, indexOf({ids:Array(String)}, episode_id)), 1
             FROM ${table} FINAL WHERE episode_id IN {ids:Array(String)}`,
            { ids: replacing.map((s) => s.episodeId), versions: replacing.map((s) => s.version) },
          );
        }
      }
      // The tables of a set are independent: insert them at once (the engine parses each on its own threads).
      await Promise.all(
        tables.map(async (table) => {
          let chunks: string[] = [];
          let size = 0;
          for (const s of fresh) {
            const encoded = s.tables[table];
            if (!encoded || encoded.count === 0) continue;
            chunks.push(encoded.json);
            size += encoded.json.length;
            if (size >= INSERT_CHUNK_CHARS) {
              await this.store.insertJson(table, TABLES[table], chunks);
              chunks = [];
              size = 0;
            }
          }
          if (chunks.length > 0) await this.store.insertJson(table, TABLES[table], chunks);
        }),
      );
      await this.store.insert(
        'episode_versions',
        ['kind', 'episode_id', 'version'],
        fresh.map((s) => [kind, s.episodeId, s.version]),
      );
      written.set(
        kind,
        fresh.map((s) => s.episodeId),
      );
    }
    return written;
  }
}

/**
 * Fills the podcast and publication time of ad reads whose episode is known, for the given
 * episodes, in `ad_reads` and its copy by sponsor (`sponsor_ad_reads`). Run after ad reads are
 * written and after episodes are written, so whichever of the two arrives last completes the pair.
 * Returns the rows completed and the sponsor keys of every ad read of these episodes that are
 * known, completed now or before (the sponsor totals to recompute: from the batch, so a replay
 * after a crash recomputes them again).
 */
export async function completeAdReads(
  store: AnalyticsStore,
  episodeIds: string[],
): Promise<{ completed: number; sponsors: string[] }> {
  if (episodeIds.length === 0) return { completed: 0, sponsors: [] };
  const columns = TABLES.ad_reads;
  const rows = await store.query<Record<string, unknown>>(
    `SELECT ${columns.map((c) => (c === 'published_at' ? 'toUnixTimestamp64Milli(a.published_at) AS published_at' : `a.${c} AS ${c}`)).join(', ')},
       e.podcast_id AS fact_podcast_id, toUnixTimestamp64Milli(e.published_at) AS fact_published_at,
       a.version % 4 = 1 OR a.podcast_id != e.podcast_id OR a.published_at != e.published_at AS pending
     FROM (SELECT * FROM ad_reads FINAL WHERE episode_id IN {ids:Array(String)}) AS a
     INNER JOIN (SELECT id, podcast_id, published_at FROM episodes FINAL WHERE id IN {ids:Array(String)}) AS e
       ON e.id = a.episode_id`,
    { ids: episodeIds },
  );
  const sponsors = [...new Set(rows.map((r) => String(r.sponsor_key)))];
  const pending = rows.filter((r) => Number(r.pending) === 1);
  if (pending.length === 0) return { completed: 0, sponsors };
  // Rows are keyed by publication time: a row moving to another time is marked deleted where it
  // was. First completion (`4v + 1` → `4v + 2`); a later change of the episode's facts `4v + 3`
  // (a marker and a row meeting at one key with equal versions: the later insert wins).
  const markers: Row[] = [];
  const completed = pending.map((r) => {
    const setVersion = Math.floor(Number(r.version) / 4);
    const sub = Number(r.version) % 4 === 1 ? 2 : 3;
    const row = columns.map((c) => r[c]);
    row[AD_FACTS.podcastId] = r.fact_podcast_id;
    row[AD_FACTS.publishedAt] = Number(r.fact_published_at);
    row[AD_FACTS.version] = setVersion * 4 + sub;
    if (Number(r.published_at) !== Number(r.fact_published_at)) {
      const marker = columns.map((c) => r[c]);
      marker[AD_FACTS.version] = setVersion * 4 + sub;
      marker[AD_FACTS.isDeleted] = 1;
      markers.push(marker);
    }
    return row;
  });
  for (const table of ['ad_reads', 'sponsor_ad_reads'] as const) {
    if (markers.length > 0) await store.insert(table, columns, markers);
    await store.insert(table, columns, completed);
  }
  return { completed: completed.length, sponsors };
}

/**
 * After a bulk load (a backfill, a replay) the engine's merges leave several overlapping parts,
 * and every FINAL read merges them again. Once at least `COMPACT_AFTER_SETS` episode sets have
 * been written since the last compaction and a batch is small (the projector has caught up), the
 * range-scanned tables are compacted in the background, at most once per `COMPACT_EVERY_MS`.
 */
export const COMPACT_AFTER_SETS = 50_000;
export const COMPACT_EVERY_MS = 3_600_000;

interface CompactionState {
  setsSince: number;
  lastAt: number;
  running: boolean;
}
const compaction = new WeakMap<AnalyticsStore, CompactionState>();

function maybeCompact(store: AnalyticsStore, sets: number, batchItems: number): void {
  const state = compaction.get(store) ?? { setsSince: 0, lastAt: 0, running: false };
  compaction.set(store, state);
  state.setsSince += sets;
  const caughtUp = batchItems < 500;
  if (state.running || !caughtUp || state.setsSince < COMPACT_AFTER_SETS) return;
  if (Date.now() - state.lastAt < COMPACT_EVERY_MS) return;
  state.running = true;
  state.setsSince = 0;
  state.lastAt = Date.now();
  // Background work: a failure only means the reads stay as the engine's merges left them.
  void compactAnalytics(store)
    .catch(() => undefined)
    .finally(() => {
      state.running = false;
    });
}

const rollups = new WeakMap<AnalyticsStore, Rollups>();

/** One Rollups per store: its recomputes run one at a time across the projectors of a process. */
function rollupsOf(store: AnalyticsStore): Rollups {
  let r = rollups.get(store);
  if (!r) {
    r = new Rollups(store);
    rollups.set(store, r);
  }
  return r;
}

/**
 * Recomputes the rollups a batch touched (rollups.ts): from every set and episode the batch
 * carries, whether or not the writer found it new, so a batch replayed after a crash completes
 * what the first attempt left undone.
 */
async function updateRollups(
  r: Rollups,
  plain: Map<TableName, Row[]>,
  sets: EpisodeSet[],
  sponsors: readonly string[],
  adEpisodes: readonly string[],
): Promise<void> {
  const catalogEpisodes = (plain.get('episodes') ?? []).map((row) => row[0] as string);
  const topicEpisodes = [...catalogEpisodes];
  const speakerEpisodes: string[] = [];
  const persons: string[] = [];
  for (const set of sets) {
    if (set.kind === 'mentions' || set.kind === 'segments') topicEpisodes.push(set.episodeId);
    else if (set.kind === 'speakers') {
      speakerEpisodes.push(set.episodeId);
      persons.push(...(set.persons ?? []));
    }
  }
  await r.episodes(catalogEpisodes);
  await r.topics(topicEpisodes);
  await r.guests(speakerEpisodes, persons);
  await r.sponsors(sponsors);
  await r.sponsorEpisodes(adEpisodes);
}

/**
 * The sponsors whose totals a batch can change: those of every ad read of its episodes whose
 * episode is known (`ofKnownEpisodes`, from `completeAdReads`: completed now or before, so a
 * batch replayed after a crash recomputes them again), and, for the episodes whose ad reads were
 * written before (`earlier`: replaced now, or by the first attempt of a replayed batch), every
 * sponsor they named at any version — found through the deletion markers of `sponsor_ad_reads`,
 * which carry the sponsor in their key. Ads whose episode is unknown count in no total (they have
 * no date), so a batch of ad reads that arrived before their episodes recomputes nothing: the
 * batch that brings the episodes does.
 */
async function touchedSponsors(
  store: AnalyticsStore,
  ofKnownEpisodes: readonly string[],
  earlier: readonly string[],
): Promise<string[]> {
  const keys = new Set(ofKnownEpisodes);
  if (earlier.length > 0) {
    const rows = await store.query<{ k: string }>(
      // Without FINAL: the markers of replaced sets still name their sponsors.
      'SELECT DISTINCT toString(sponsor_key) AS k FROM sponsor_ad_reads WHERE episode_id IN {ids:Array(String)}',
      { ids: [...earlier] },
    );
    for (const row of rows) keys.add(row.k);
  }
  return [...keys];
}

/** The episodes among `sets`' ad-read sets whose ad reads were written before (any version). */
async function earlierAdReads(store: AnalyticsStore, sets: EpisodeSet[]): Promise<string[]> {
  const ids = [...new Set(sets.filter((s) => s.kind === 'ad_reads').map((s) => s.episodeId))];
  if (ids.length === 0) return [];
  const rows = await store.query<{ episode_id: string }>(
    `SELECT DISTINCT episode_id FROM episode_versions
     WHERE kind = 'ad_reads' AND episode_id IN {ids:Array(String)}`,
    { ids },
  );
  return rows.map((r) => r.episode_id);
}

/** The sink every analytics projector uses: plain rows per table, sets through the writer. */
export function analyticsSink(
  store: AnalyticsStore,
  options: AnalyticsProjectorOptions = {},
): Sink<AnalyticsItem> {
  const writer = new EpisodeSetWriter(store);
  return {
    async probe() {
      await store.query('SELECT 1');
    },
    async write(items) {
      const plain = new Map<TableName, Row[]>();
      const sets: EpisodeSet[] = [];
      for (const item of items) {
        if (item.kind === 'set') sets.push(item.set);
        else {
          const list = plain.get(item.table) ?? [];
          list.push(item.row);
          plain.set(item.table, list);
        }
      }
      // The store's errors say whether the data or the engine is at fault (AnalyticsQueryError).
      for (const [table, rows] of plain) await store.insert(table, TABLES[table], rows);
      const earlier = await earlierAdReads(store, sets);
      if (sets.length > 0) await writer.write(sets);
      const episodeIds = new Set<string>();
      for (const row of plain.get('episodes') ?? []) episodeIds.add(row[0] as string);
      for (const set of sets) if (set.kind === 'ad_reads') episodeIds.add(set.episodeId);
      const { sponsors } = await completeAdReads(store, [...episodeIds]);
      await updateRollups(rollupsOf(store), plain, sets, await touchedSponsors(store, sponsors, earlier), [
        ...episodeIds,
      ]);
      if (sets.length > 0 && options.compact !== false) maybeCompact(store, sets.length, items.length);
    },
  };
}

const row = (table: TableName, r: Row): AnalyticsItem => ({ kind: 'row', table, row: r });
const set = (s: EpisodeSet): AnalyticsItem => ({ kind: 'set', set: s });

type Handler = (record: DecodedRecord<unknown>) => AnalyticsItem;

const HANDLERS: Record<string, Handler> = {
  [TOPICS.publishers.name]: (r) => row('publishers', publisherRow(r.value as Publisher)),
  [TOPICS.podcasts.name]: (r) => row('podcasts', podcastRow(r.value as Podcast)),
  [TOPICS.entities.name]: (r) => row('entities', entityRow(r.value as Entity)),
  [TOPICS.episodes.name]: (r) => row('episodes', episodeRow(r.value as EpisodePublished, r.timestamp)),
  [TOPICS.mentions.name]: (r) => set(mentionsSet(r.value as MentionsDetected)),
  [TOPICS.speakers.name]: (r) => set(speakersSet(r.value as SpeakersIdentified)),
  [TOPICS.transcripts.name]: (r) => {
    const t = r.value as Transcript;
    return set(transcriptSet(t, t.transcribed_at));
  },
  [TOPICS.segments.name]: (r) => set(segmentsSet(r.value as Segments, r.timestamp)),
  [TOPICS.clips.name]: (r) => set(clipsSet(r.value as Clips, r.timestamp)),
  [TOPICS.adReads.name]: (r) => set(adReadsSet(r.value as AdReads, r.timestamp)),
  [TOPICS.charts.name]: (r) => row('chart_rows', chartRow(r.value as ChartSnapshotRow, r.timestamp)),
  [TOPICS.bias.name]: (r) => row('bias_evaluations', biasRow(r.value as BiasEvaluation, r.timestamp)),
  [TOPICS.ratings.name]: (r) => row('rating_snapshots', ratingRow(r.value as RatingSnapshot, r.timestamp)),
};

export interface AnalyticsProjectorOptions {
  /** Compact the range-scanned tables in the background after bulk loads (default true). */
  compact?: boolean;
  /**
   * Most records a projector writes in one insert per table (`EARSHOT_ANALYTICS_BATCH_SIZE`).
   * ClickHouse makes a part per insert and merges them afterwards, so fewer, larger inserts cost
   * less per row; unset, the runner's batch applies.
   */
  batchItems?: number;
}

function projector(
  name: string,
  inputs: (typeof TOPICS)[keyof typeof TOPICS][],
  store: AnalyticsStore,
  options: AnalyticsProjectorOptions,
): ProcessorDefinition<unknown, AnalyticsItem> {
  return {
    name,
    groupId: `projector.${name}`,
    inputs,
    ...(options.batchItems ? { maxBatchItems: options.batchItems } : {}),
    handle(record) {
      const handler = HANDLERS[record.topic];
      if (!handler) return skip(`${name} does not read ${record.topic}`);
      return ok(handler(record));
    },
    sink: analyticsSink(store, options),
  };
}

/**
 * Members per consumer group of the heavy projectors: while one member waits for the engine to
 * write its batch, the other decodes the next one, so the two cores work at once.
 */
export const HEAVY_PROJECTOR_MEMBERS = 2;

/**
 * The analytics projectors, one consumer group each so a slow topic (transcripts) never holds
 * back the others; mentions and transcripts run as two members of their group (the partitions are
 * split between them). Declared in infra/pipeline.ts under the `projectors` role.
 */
export function analyticsProjectors(
  store: AnalyticsStore,
  options: AnalyticsProjectorOptions = {},
): ProcessorDefinition<unknown, AnalyticsItem>[] {
  const mentions = projector('analytics-mentions', [TOPICS.mentions, TOPICS.speakers], store, options);
  const transcripts = projector('analytics-transcripts', [TOPICS.transcripts], store, options);
  return [
    projector(
      'analytics-catalog',
      [TOPICS.publishers, TOPICS.podcasts, TOPICS.entities, TOPICS.episodes],
      store,
      options,
    ),
    ...Array.from({ length: HEAVY_PROJECTOR_MEMBERS }, () => mentions),
    ...Array.from({ length: HEAVY_PROJECTOR_MEMBERS }, () => transcripts),
    projector('analytics-episode-parts', [TOPICS.segments, TOPICS.clips, TOPICS.adReads], store, options),
    projector('analytics-charts', [TOPICS.charts, TOPICS.bias, TOPICS.ratings], store, options),
  ];
}
