import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { type Database, open, type RootDatabase } from 'lmdb';
import type { EventLog } from '../../ingest/event-log/event-log.ts';
import type {
  AdReads,
  Entity,
  EpisodePublished,
  Podcast,
  Transcript,
} from '../../schemas/generated/index.ts';
import { type EpisodeFacts, episodeFacts, type FoundMention } from '../mentions/detect.ts';
import { Gazetteer } from '../mentions/gazetteer.ts';

/**
 * What the mention and speaker processors know about the world: the entity catalog (compiled
 * into the alias automaton), podcasts, episodes and their ad reads. It is a table in the Kafka
 * Streams sense, fed by its own consumer group (`episode-context-<instance>`) that reads
 * catalog.entities, catalog.podcasts, episodes.published and episodes.ad-reads, held in memory
 * and persisted in LMDB (`<data dir>/processors/episode-context`) so a restart does not re-read
 * the topics. Each instance has its own group, so every instance sees every partition (a global
 * table); a fresh state directory gets a fresh group and rebuilds itself from the topics.
 *
 * The group commits only after the state it applied is flushed to disk, and `caughtUpAt` (the
 * last time the group had no lag) tells the transcript consumers whether everything produced
 * before a transcript has been applied, so a transcript is never processed against a catalog
 * or episode that has not been read yet.
 */
export type EpisodeMeta = Pick<
  EpisodePublished,
  'id' | 'podcast_id' | 'published_at' | 'title' | 'description' | 'people' | 'language'
>;

/** Line timings of a processed transcript, enough to redo ad flags when ad reads change. */
export interface ProcessedTranscript {
  language: string;
  lines: { number: number; start_seconds: number; end_seconds: number }[];
  found: FoundMention[];
  detectedAt: number;
}

export interface EpisodeContextOptions {
  /** How long a transcript waits for its episode once the tables are caught up. */
  unknownEpisodeWaitMs?: number;
  pollMs?: number;
}

export const CONTEXT_TOPICS = [
  'catalog.entities',
  'catalog.podcasts',
  'episodes.published',
  'episodes.ad-reads',
];

export class EpisodeContextStore {
  readonly gazetteer = new Gazetteer();
  readonly instanceId: string;
  readonly options: Required<EpisodeContextOptions>;
  private readonly root: RootDatabase;
  private readonly meta: Database<string, string>;
  private readonly entityDb: Database<Entity, string>;
  private readonly podcastDb: Database<Podcast, string>;
  private readonly episodeDb: Database<EpisodeMeta, string>;
  private readonly adDb: Database<AdReads['ad_reads'], string>;
  private readonly processedDb: Database<ProcessedTranscript, string>;
  private readonly entities = new Map<string, Entity>();
  private readonly podcasts = new Map<string, Podcast>();
  private readonly episodes = new Map<string, EpisodeMeta>();
  private readonly adReads = new Map<string, AdReads['ad_reads']>();
  private lastWrite: Promise<unknown> = Promise.resolve();
  private watcher?: NodeJS.Timeout;
  private users = 0;
  private closed = false;
  /** Last time (epoch ms) the context group was seen with no lag; -1 before that. */
  caughtUpAt = -1;
  /** Since when the group has been caught up without interruption. */
  private caughtUpSince = -1;
  private readonly gaveUp = new Set<string>();

  constructor(
    readonly dir: string,
    options: EpisodeContextOptions = {},
  ) {
    this.options = { unknownEpisodeWaitMs: 120_000, pollMs: 100, ...options };
    fs.mkdirSync(dir, { recursive: true });
    this.root = open({ path: dir, maxDbs: 8 });
    this.meta = this.root.openDB<string, string>({ name: 'meta' });
    this.entityDb = this.root.openDB<Entity, string>({ name: 'entities' });
    this.podcastDb = this.root.openDB<Podcast, string>({ name: 'podcasts' });
    this.episodeDb = this.root.openDB<EpisodeMeta, string>({ name: 'episodes' });
    this.adDb = this.root.openDB<AdReads['ad_reads'], string>({ name: 'ad-reads' });
    this.processedDb = this.root.openDB<ProcessedTranscript, string>({ name: 'processed' });
    let id = this.meta.get('instance-id');
    if (!id) {
      id = randomUUID().slice(0, 8);
      this.meta.putSync('instance-id', id);
    }
    this.instanceId = id;
    for (const { key, value } of this.entityDb.getRange()) {
      this.entities.set(key, value);
      this.gazetteer.add(value);
    }
    for (const { key, value } of this.podcastDb.getRange()) this.podcasts.set(key, value);
    for (const { key, value } of this.episodeDb.getRange()) this.episodes.set(key, value);
    for (const { key, value } of this.adDb.getRange()) this.adReads.set(key, value);
  }

  get groupId(): string {
    return `episode-context-${this.instanceId}`;
  }

  // ---- updates (called by the context step; synchronous in memory, persisted in order) ----

  applyEntity(e: Entity): void {
    this.entities.set(e.id, e);
    this.gazetteer.add(e);
    this.lastWrite = this.entityDb.put(e.id, e);
  }

  applyPodcast(p: Podcast): void {
    this.podcasts.set(p.id, p);
    this.lastWrite = this.podcastDb.put(p.id, p);
  }

  applyEpisode(e: EpisodePublished): void {
    const meta: EpisodeMeta = {
      id: e.id,
      podcast_id: e.podcast_id,
      published_at: e.published_at,
      title: e.title,
      description: e.description,
      people: e.people,
      language: e.language,
    };
    this.episodes.set(e.id, meta);
    this.gaveUp.delete(e.id);
    this.lastWrite = this.episodeDb.put(e.id, meta);
  }

  applyAdReads(a: AdReads): void {
    this.adReads.set(a.episode_id, a.ad_reads);
    this.lastWrite = this.adDb.put(a.episode_id, a.ad_reads);
  }

  saveProcessed(episodeId: string, transcript: Transcript, found: FoundMention[], detectedAt: number): void {
    this.lastWrite = this.processedDb.put(episodeId, {
      language: transcript.language,
      lines: transcript.lines.map((l) => ({
        number: l.number,
        start_seconds: l.start_seconds,
        end_seconds: l.end_seconds,
      })),
      found,
      detectedAt,
    });
  }

  processed(episodeId: string): ProcessedTranscript | undefined {
    return this.processedDb.get(episodeId);
  }

  /** Resolves once every update applied so far is on disk. */
  async flushed(): Promise<void> {
    await this.lastWrite;
  }

  // ---- reads -----------------------------------------------------------------------------

  entity(id: string): Entity | undefined {
    return this.entities.get(id);
  }

  podcast(id: string): Podcast | undefined {
    return this.podcasts.get(id);
  }

  episode(id: string): EpisodeMeta | undefined {
    return this.episodes.get(id);
  }

  adReadsOf(episodeId: string): AdReads['ad_reads'] {
    return this.adReads.get(episodeId) ?? [];
  }

  facts(episodeId: string): EpisodeFacts | undefined {
    const episode = this.episodes.get(episodeId);
    if (!episode) return undefined;
    return episodeFacts(episode, this.podcasts.get(episode.podcast_id), this.adReadsOf(episodeId));
  }

  /** True when the episode is known and everything produced before `timestamp` was applied. */
  ready(episodeId: string, timestamp: number): boolean {
    return this.caughtUpAt >= timestamp && this.episodes.has(episodeId);
  }

  /**
   * Waits until `ready`, or gives up (`unknown`) when the episode is still unknown after the
   * tables have been caught up, and this transcript waiting, for `unknownEpisodeWaitMs`.
   * Throws when the store closes.
   */
  async waitReady(episodeId: string, timestamp: number): Promise<'ready' | 'unknown'> {
    const waitingSince = Date.now();
    for (;;) {
      if (this.closed) throw new Error('episode context closed while waiting');
      if (this.ready(episodeId, timestamp)) return 'ready';
      if (this.caughtUpAt >= timestamp && !this.episodes.has(episodeId)) {
        if (this.gaveUp.has(episodeId)) return 'unknown';
        const since = Math.max(this.caughtUpSince, waitingSince);
        if (this.caughtUpSince >= 0 && Date.now() - since >= this.options.unknownEpisodeWaitMs) {
          this.gaveUp.add(episodeId);
          return 'unknown';
        }
      }
      await new Promise((r) => setTimeout(r, this.options.pollMs));
    }
  }

  // ---- lifecycle -------------------------------------------------------------------------

  /** Starts watching the context group's lag (idempotent); one call per user of the store. */
  acquire(log: EventLog): void {
    this.users++;
    if (this.watcher) return;
    let busy = false;
    this.watcher = setInterval(() => {
      if (busy || this.closed) return;
      busy = true;
      const at = Date.now();
      log
        .groupLag(this.groupId, CONTEXT_TOPICS)
        .then((lag) => {
          if (lag.every((p) => p.lag === 0)) {
            if (this.caughtUpSince < 0) this.caughtUpSince = at;
            this.caughtUpAt = at;
          } else {
            this.caughtUpSince = -1;
          }
        })
        .catch(() => undefined)
        .finally(() => {
          busy = false;
        });
    }, this.options.pollMs);
    this.watcher.unref();
  }

  /** Opened (e.g. for its group id) but not in use by any step. */
  get idle(): boolean {
    return this.users === 0 && !this.closed;
  }

  /** Releases one use; the last release stops the watcher and closes the database. */
  async release(): Promise<void> {
    this.users = Math.max(0, this.users - 1);
    if (this.users > 0 || this.closed) return;
    this.closed = true;
    clearInterval(this.watcher);
    await this.lastWrite.catch(() => undefined);
    await this.root.close();
  }
}
