import fs from 'node:fs';
import path from 'node:path';
import { type Database, open, type RootDatabase } from 'lmdb';

/**
 * The feeds Earshot polls, durable in LMDB under `<data dir>/feeds`: URL, poll interval, the
 * validators of the last response (ETag, Last-Modified) for conditional GETs, the outcome of
 * the last poll, and the item guids already turned into episodes. Shared by the service's
 * poller and the `earshot feeds` commands (LMDB is multi-process safe).
 */
export interface FeedRecord {
  url: string;
  intervalMs: number;
  addedAt: number;
  podcastId: string;
  etag: string | null;
  lastModified: string | null;
  lastPolledAt: number | null;
  lastStatus: number | null;
  lastError: string | null;
  /** Hash of the channel metadata last published as a Podcast record. */
  podcastHash: string | null;
  episodes: number;
}

export const MIN_INTERVAL_MS = 10_000;

/** Parses "15m", "1h", "30s", "2d", "500ms"; a bare number is minutes. */
export function parseInterval(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|min|h|d)?$/i.exec(text.trim());
  if (!m) throw new Error(`not an interval: ${text} (use e.g. 30s, 15m, 1h)`);
  const n = Number(m[1]);
  const unit = (m[2] ?? 'm').toLowerCase();
  const ms = n * ({ ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000 }[unit] ?? 60_000);
  if (ms < MIN_INTERVAL_MS)
    throw new Error(`interval ${text} is shorter than the ${MIN_INTERVAL_MS / 1000} s minimum`);
  return Math.round(ms);
}

export function formatInterval(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000}d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${Math.round(ms / 1000)}s`;
}

export function normalizeFeedUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`not a URL: ${url}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new Error(`not an http(s) URL: ${url}`);
  parsed.hash = '';
  return parsed.toString();
}

export class FeedStore {
  private readonly root: RootDatabase;
  private readonly feeds: Database<FeedRecord, string>;
  private readonly seen: Database<string, string>;

  constructor(dir: string) {
    fs.mkdirSync(dir, { recursive: true });
    this.root = open({ path: dir, maxDbs: 4 });
    this.feeds = this.root.openDB<FeedRecord, string>({ name: 'feeds' });
    this.seen = this.root.openDB<string, string>({ name: 'seen-items' });
  }

  static inDataDir(dataDir: string): FeedStore {
    return new FeedStore(path.join(dataDir, 'feeds'));
  }

  get(url: string): FeedRecord | undefined {
    return this.feeds.get(url);
  }

  list(): FeedRecord[] {
    return [...this.feeds.getRange()].map((e) => e.value).sort((a, b) => a.addedAt - b.addedAt);
  }

  async add(
    url: string,
    intervalMs: number,
    podcastId: string,
    now = Date.now(),
  ): Promise<{ record: FeedRecord; created: boolean }> {
    const existing = this.feeds.get(url);
    if (existing) {
      const record = { ...existing, intervalMs };
      await this.feeds.put(url, record);
      return { record, created: false };
    }
    const record: FeedRecord = {
      url,
      intervalMs,
      addedAt: now,
      podcastId,
      etag: null,
      lastModified: null,
      lastPolledAt: null,
      lastStatus: null,
      lastError: null,
      podcastHash: null,
      episodes: 0,
    };
    await this.feeds.put(url, record);
    return { record, created: true };
  }

  async remove(url: string): Promise<boolean> {
    if (!this.feeds.get(url)) return false;
    await this.feeds.remove(url);
    const keys = [...this.seen.getKeys({ start: `${url}\u0000`, end: `${url}\u0001` })];
    await this.root.transaction(() => {
      for (const k of keys) this.seen.remove(k);
    });
    return true;
  }

  async update(url: string, patch: Partial<FeedRecord>): Promise<void> {
    const current = this.feeds.get(url);
    if (!current) return;
    await this.feeds.put(url, { ...current, ...patch });
  }

  hasSeen(url: string, guid: string): boolean {
    return this.seen.doesExist(`${url}\u0000${guid}`);
  }

  async markSeen(url: string, items: { guid: string; episodeId: string }[]): Promise<void> {
    if (items.length === 0) return;
    await this.root.transaction(() => {
      for (const i of items) this.seen.put(`${url}\u0000${i.guid}`, i.episodeId);
    });
  }

  /** Feeds whose next poll is due at `now`. */
  due(now = Date.now()): FeedRecord[] {
    return this.list().filter((f) => f.lastPolledAt === null || now - f.lastPolledAt >= f.intervalMs);
  }

  async close(): Promise<void> {
    await this.root.close();
  }
}
