import fs from 'node:fs';
import { type Database, open, type RootDatabase } from 'lmdb';
import type { MentionsDetected } from '../../../schemas/generated/index.ts';

/**
 * What the alert matcher knows about each recent episode, gathered from five topics that may
 * arrive in any order (episodes.published, episodes.transcripts, episodes.clips,
 * mentions.detected, speakers.identified), kept on LMDB under the data dir:
 *
 * - `facts`: a small record per episode (metadata, mentions, speakers, clips, readiness times,
 *   the alerts already matched on it);
 * - `lines`: the transcript lines without word timings, written once per transcript, read only
 *   when a match needs windows;
 * - `entities`: [kind, entity id, episode id] → published_at, so the backfill of a new alert
 *   finds the episodes that mention its entities (kind `m`) or where they spoke (kind `s`);
 * - `meta`: alerts already backfilled, episodes waiting for speakers.
 *
 * Episodes untouched for `retentionDays` are pruned, so the store holds about the backfill
 * window's worth of episodes.
 */

export interface FactLine {
  /** line number */
  n: number;
  /** diarization label */
  s: string;
  /** role as the transcript source gave it */
  r: string | null;
  a: number;
  b: number;
  t: string;
}

/** An entity the detector found in the episode, as `mentions.detected` carries it. */
export type FactEntity = MentionsDetected['entities'][number];

export interface FactSpeaker {
  label: string;
  person_id: string | null;
  name: string | null;
  role: string;
  line_count: number;
}

export interface FactClip {
  id: string;
  type: string;
  title: string;
  start_seconds: number;
  end_seconds: number;
  audio_url: string | null;
  speaker: string | null;
}

export interface MatcherFacts {
  episode_id: string;
  podcast_id?: string;
  published_at?: number;
  /** language of the episode record (null = the podcast's) */
  episode_language?: string | null;
  audio_url?: string | null;
  transcript_language?: string;
  has_lines?: boolean;
  line_count?: number;
  mentions?: {
    language: string;
    podcast_id: string;
    published_at: number;
    detected_at: number;
    /** entity id → the line numbers mentioning it */
    lines: Record<string, number[]>;
    entities: FactEntity[];
    /** processor clock when this detector run arrived */
    received_at: number;
  };
  speakers?: {
    language: string;
    podcast_id: string;
    published_at: number;
    identified_at: number;
    list: FactSpeaker[];
  };
  clips?: FactClip[];
  /** when mention matching first ran on this episode (processor clock) */
  mention_ready_at?: number;
  /** when speaker matching first ran on this episode */
  speaker_ready_at?: number;
  /** alert ids already matched on this episode */
  matched: string[];
  touched_at: number;
}

const SEP = '\u0001';
const END = '\u0002';

/** A change of facts the matcher records: what the store held (`previous`) and what it holds now. */
export interface FactsUpdate {
  facts: MatcherFacts;
  previous?: MatcherFacts;
  lines?: FactLine[];
}

/** Entries of the `meta` namespaces to set and to remove. */
export interface MetaChanges {
  set?: [string, string, number][];
  remove?: [string, string][];
}

/**
 * Where the matcher keeps its episode facts. `load` brings episodes into reach of the
 * synchronous `get` and `linesOf` (the matcher calls it before it reads them); `write` records
 * a batch of changes at once.
 *
 * - `MatcherFactsStore` (below): LMDB under the data dir, for a process that is the matcher's
 *   only member (embedded engines; several processes sharing one data dir share the files).
 * - `StateMatcherFacts` (state-matcher-facts.ts): tables of the state store (PostgreSQL), when
 *   several processes run the matcher: an episode's facts follow its partition to whichever
 *   member holds it, and a write that finds the episode changed under it (a member that lost the
 *   partition in a rebalance) is refused, so the batch is read and matched again.
 */
export interface MatcherStore {
  /** True when other processes write the same store (the matcher re-reads what it waits on). */
  readonly shared: boolean;
  load(episodeIds: readonly string[]): Promise<void>;
  get(episodeId: string): MatcherFacts | undefined;
  linesOf(episodeId: string): FactLine[] | undefined;
  write(updates: FactsUpdate[], meta?: MetaChanges): Promise<void>;
  episodesFor(kind: 'm' | 's', entityId: string): Promise<string[]>;
  metaGet(ns: string, key: string): Promise<number | undefined>;
  metaEntries(ns: string): Promise<{ key: string; value: number }[]>;
  prune(before: number): Promise<number>;
  close(): Promise<void>;
}

export class MatcherFactsStore implements MatcherStore {
  readonly shared = false;
  private readonly root: RootDatabase;
  private readonly facts: Database<MatcherFacts, string>;
  private readonly lines: Database<FactLine[], string>;
  private readonly entities: Database<number, string>;
  private readonly meta: Database<number, string>;

  constructor(dir: string) {
    fs.mkdirSync(dir, { recursive: true });
    this.root = open({ path: dir, maxDbs: 8 });
    this.facts = this.root.openDB<MatcherFacts, string>({ name: 'facts' });
    this.lines = this.root.openDB<FactLine[], string>({ name: 'lines' });
    this.entities = this.root.openDB<number, string>({ name: 'entities' });
    this.meta = this.root.openDB<number, string>({ name: 'meta' });
  }

  /** LMDB reads are synchronous and cheap: nothing to bring in. */
  async load(): Promise<void> {}

  get(episodeId: string): MatcherFacts | undefined {
    return this.facts.get(episodeId);
  }

  linesOf(episodeId: string): FactLine[] | undefined {
    return this.lines.get(episodeId);
  }

  /**
   * Writes in one transaction: facts, transcripts, and the entity index entries of each episode
   * whose mentions or speakers changed (`previous` is what the store held before).
   */
  async write(updates: FactsUpdate[], meta: MetaChanges = {}): Promise<void> {
    if (updates.length === 0 && !meta.set?.length && !meta.remove?.length) return;
    await this.root.transaction(() => {
      for (const { facts, previous, lines } of updates) {
        this.facts.put(facts.episode_id, facts);
        if (lines) this.lines.put(facts.episode_id, lines);
        const before = indexKeys(previous);
        const after = indexKeys(facts);
        const published = publishedAt(facts) ?? 0;
        for (const k of before) if (!after.has(k)) this.entities.remove(k + facts.episode_id);
        for (const k of after) this.entities.put(k + facts.episode_id, published);
      }
      for (const [ns, key, value] of meta.set ?? []) this.meta.put(ns + SEP + key, value);
      for (const [ns, key] of meta.remove ?? []) this.meta.remove(ns + SEP + key);
    });
  }

  /** Episode ids where the entity was mentioned (`m`) or spoke (`s`). */
  async episodesFor(kind: 'm' | 's', entityId: string): Promise<string[]> {
    const prefix = kind + SEP + entityId + SEP;
    const out: string[] = [];
    for (const key of this.entities.getKeys({ start: prefix, end: kind + SEP + entityId + END })) {
      out.push(key.slice(prefix.length));
    }
    return out;
  }

  async metaGet(ns: string, key: string): Promise<number | undefined> {
    return this.meta.get(ns + SEP + key);
  }

  async metaEntries(ns: string): Promise<{ key: string; value: number }[]> {
    const out: { key: string; value: number }[] = [];
    for (const { key, value } of this.meta.getRange({ start: ns + SEP, end: ns + END })) {
      out.push({ key: key.slice(ns.length + 1), value });
    }
    return out;
  }

  /** Removes episodes untouched since `before`; returns how many. */
  async prune(before: number): Promise<number> {
    const stale: MatcherFacts[] = [];
    for (const { value } of this.facts.getRange()) if (value.touched_at < before) stale.push(value);
    if (stale.length === 0) return 0;
    await this.root.transaction(() => {
      for (const f of stale) {
        this.facts.remove(f.episode_id);
        this.lines.remove(f.episode_id);
        for (const k of indexKeys(f)) this.entities.remove(k + f.episode_id);
        this.meta.remove(`pending${SEP}${f.episode_id}`);
      }
    });
    return stale.length;
  }

  async close(): Promise<void> {
    await this.root.close();
  }
}

export function publishedAt(f: MatcherFacts): number | undefined {
  return f.mentions?.published_at ?? f.speakers?.published_at ?? f.published_at;
}

function indexKeys(f: MatcherFacts | undefined): Set<string> {
  return new Set(entityRefs(f).map(([kind, id]) => `${kind}${SEP}${id}${SEP}`));
}

/** The entities an episode mentions (`m`) and the people who speak in it (`s`). */
export function entityRefs(f: MatcherFacts | undefined): ['m' | 's', string][] {
  if (!f) return [];
  const refs = new Map<string, ['m' | 's', string]>();
  for (const e of f.mentions?.entities ?? []) refs.set(`m${e.entity_id}`, ['m', e.entity_id]);
  for (const s of f.speakers?.list ?? []) if (s.person_id) refs.set(`s${s.person_id}`, ['s', s.person_id]);
  return [...refs.values()];
}
