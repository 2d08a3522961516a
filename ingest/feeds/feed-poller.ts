import type { Logger } from 'pino';
import type { EpisodePublished } from '../../schemas/generated/index.ts';
import { TOPICS } from '../../schemas/topics.ts';
import type { EventProducer } from '../event-producer.ts';
import type { IngestState } from '../loader/ingest-state.ts';
import { type IngestError, type ValidationContext, validateIngestRecord } from '../loader/validate.ts';
import { episodeFromItem, parseFeed, podcastFromFeed, podcastHash } from './feed-mapping.ts';
import type { FeedRecord, FeedStore } from './feed-store.ts';

/**
 * Polls the feeds of the FeedStore, each at its own interval, with conditional GETs: the ETag
 * and Last-Modified of the last 200 are sent back as If-None-Match and If-Modified-Since, so an
 * unchanged feed costs a 304 and no parsing. New items (by guid) become EpisodePublished events
 * for the feed's podcast, which is published first (and again when the channel changes). Runs
 * in the `ingest` role of `earshot start`; `pollOnce` also serves `earshot feeds add --poll`.
 *
 * Every fetch goes through the outbound guard the caller injects (`http`): the feed URL and each
 * redirect target (at most five) are checked and connected to at the checked address.
 */
export interface PollResult {
  url: string;
  status: number;
  /** New episodes published by this poll. */
  published: number;
  podcastPublished: boolean;
  /** Items refused by the ingest validator (text no store accepts, say), by guid, with the fields. */
  rejected?: { guid: string; errors: IngestError[] }[];
  error?: string;
}

/**
 * What the poller needs of an HTTP client: a GET that passes the outbound guard, follows a
 * bounded number of redirects (each target checked again) and stops reading at a size. Infra
 * gives it the guarded client of the alerting module (the one webhooks use), so ingest depends
 * on no module downstream of it.
 */
export interface FeedHttp {
  get(request: {
    url: string;
    headers: Record<string, string>;
    /** End-to-end budget over every hop. */
    timeoutMs: number;
    maxRedirects: number;
    /** A longer 2xx body is an error. */
    maxBodyBytes: number;
  }): Promise<{
    /** HTTP status when a response arrived. */
    status?: number;
    headers?: Record<string, string | string[] | undefined>;
    /** The body of a 2xx answer. */
    body?: Buffer;
    /** Why no usable response arrived (timeout, refusal, too many redirects, too large). */
    error?: string;
  }>;
}

export interface FeedPollerOptions {
  store: FeedStore;
  producer: EventProducer;
  logger: Logger;
  /** The guarded HTTP client (the outbound guard with `EARSHOT_OUTBOUND_ALLOWLIST`). */
  http: FeedHttp;
  /** Records published podcasts and episodes as ingested (for referential checks of later ingests). */
  state?: IngestState;
  tickMs?: number;
  concurrency?: number;
  timeoutMs?: number;
  now?: () => number;
}

const MAX_REDIRECTS = 5;
/** Larger feeds are refused (the download stops there). */
const MAX_FEED_BYTES = 32 * 1024 * 1024;
const USER_AGENT = 'Earshot-FeedPoller/1.0 (+https://earshot.example/bot)';

export class FeedPoller {
  private timer?: NodeJS.Timeout;
  private running = new Map<string, Promise<PollResult>>();
  private stopped = false;
  private readonly now: () => number;

  constructor(private readonly opts: FeedPollerOptions) {
    this.now = opts.now ?? Date.now;
  }

  start(): void {
    this.stopped = false;
    const tick = () => {
      if (this.stopped) return;
      void this.pollDue().finally(() => {
        if (!this.stopped) this.timer = setTimeout(tick, this.opts.tickMs ?? 1000);
      });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.allSettled(this.running.values());
  }

  /** Polls every feed that is due, a few at a time. */
  async pollDue(): Promise<PollResult[]> {
    const due = this.opts.store.due(this.now()).filter((f) => !this.running.has(f.url));
    const results: PollResult[] = [];
    const limit = this.opts.concurrency ?? 4;
    for (let i = 0; i < due.length; i += limit) {
      results.push(...(await Promise.all(due.slice(i, i + limit).map((f) => this.pollOnce(f.url)))));
    }
    return results;
  }

  pollOnce(url: string): Promise<PollResult> {
    const existing = this.running.get(url);
    if (existing) return existing;
    const run = this.poll(url).finally(() => this.running.delete(url));
    this.running.set(url, run);
    return run;
  }

  private async poll(url: string): Promise<PollResult> {
    const { store, logger } = this.opts;
    const feed = store.get(url);
    if (!feed) return { url, status: 0, published: 0, podcastPublished: false, error: 'feed not registered' };
    const startedAt = this.now();
    try {
      const res = await this.fetch(feed);
      if (res.status === 304) {
        await store.update(url, { lastPolledAt: startedAt, lastStatus: 304, lastError: null });
        return { url, status: 304, published: 0, podcastPublished: false };
      }
      if (res.status < 200 || res.status >= 300) {
        const error = `HTTP ${res.status}`;
        await store.update(url, { lastPolledAt: startedAt, lastStatus: res.status, lastError: error });
        logger.warn({ url, status: res.status }, 'feed poll failed');
        return { url, status: res.status, published: 0, podcastPublished: false, error };
      }
      const parsed = await parseFeed(res.body);
      const result = await this.publish(feed, parsed, startedAt);
      await store.update(url, {
        lastPolledAt: startedAt,
        lastStatus: res.status,
        lastError: null,
        etag: res.etag ?? null,
        lastModified: res.lastModified ?? null,
      });
      if (result.published > 0) logger.info({ url, episodes: result.published }, 'new feed items published');
      return { url, status: res.status, ...result };
    } catch (err) {
      const error = (err as Error).message;
      await store.update(url, { lastPolledAt: startedAt, lastStatus: null, lastError: error });
      logger.warn({ url, err: error }, 'feed poll failed');
      return { url, status: 0, published: 0, podcastPublished: false, error };
    }
  }

  private async fetch(
    feed: FeedRecord,
  ): Promise<{ status: number; body: string; etag?: string; lastModified?: string }> {
    const headers: Record<string, string> = {
      'user-agent': USER_AGENT,
      accept: 'application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5',
    };
    if (feed.etag) headers['if-none-match'] = feed.etag;
    if (feed.lastModified) headers['if-modified-since'] = feed.lastModified;
    const res = await this.opts.http.get({
      url: feed.url,
      headers,
      timeoutMs: this.opts.timeoutMs ?? 30_000,
      maxRedirects: MAX_REDIRECTS,
      maxBodyBytes: MAX_FEED_BYTES,
    });
    if (res.error !== undefined || res.status === undefined) throw new Error(res.error ?? 'no response');
    const header = (name: string) => {
      const v = res.headers?.[name];
      return Array.isArray(v) ? v[0] : v;
    };
    if (res.status < 200 || res.status >= 300) return { status: res.status, body: '' };
    return {
      status: res.status,
      body: res.body?.toString('utf8') ?? '',
      etag: header('etag'),
      lastModified: header('last-modified'),
    };
  }

  private async publish(
    feed: FeedRecord,
    parsed: Awaited<ReturnType<typeof parseFeed>>,
    now: number,
  ): Promise<Pick<PollResult, 'published' | 'podcastPublished' | 'rejected'>> {
    const { store, producer, state } = this.opts;
    const podcast = podcastFromFeed(feed.url, parsed, now);
    // The same validation as every other source (ingest/loader/validate.ts): a feed whose channel
    // or items hold what no store accepts is refused with the field named, never published.
    const context: ValidationContext = {
      knownPodcast: (id) => id === podcast.id || (state?.knownPodcast(id) ?? false),
      knownEpisode: (id) => state?.knownEpisode(id) ?? false,
    };
    const channel = validateIngestRecord({ type: 'podcast', data: podcast }, context);
    if (!channel.ok) {
      throw new Error(
        `the feed's channel is not a valid podcast: ${channel.errors.map((e) => `${e.field} ${e.reason}`).join('; ')}`,
      );
    }
    const hash = podcastHash(podcast);
    let podcastPublished = false;
    if (hash !== feed.podcastHash) {
      await producer.send(TOPICS.podcasts, [{ key: podcast.id, value: podcast }]);
      await state?.mark([`podcast:${podcast.id}`]);
      await store.update(feed.url, { podcastHash: hash });
      podcastPublished = true;
    }
    const fresh: EpisodePublished[] = [];
    const rejected: { guid: string; errors: IngestError[] }[] = [];
    for (const item of parsed.items) {
      const episode = episodeFromItem(feed.url, parsed, item, now);
      if (!episode || store.hasSeen(feed.url, episode.guid!)) continue;
      if (fresh.some((e) => e.guid === episode.guid)) continue;
      const valid = validateIngestRecord({ type: 'episode', data: episode }, context);
      if (!valid.ok) {
        // Not marked seen: a corrected item under the same guid is published on a later poll.
        rejected.push({ guid: episode.guid!, errors: valid.errors });
        continue;
      }
      fresh.push(episode);
    }
    if (rejected.length > 0) {
      this.opts.logger.warn(
        {
          url: feed.url,
          rejected: rejected.map((r) => ({ guid: r.guid, fields: r.errors.map((e) => e.field) })),
        },
        'feed items refused by validation',
      );
    }
    fresh.sort((a, b) => a.published_at - b.published_at);
    for (let i = 0; i < fresh.length; i += 200) {
      const batch = fresh.slice(i, i + 200);
      await producer.send(
        TOPICS.episodes,
        batch.map((e) => ({ key: e.id, value: e })),
      );
      await state?.mark(batch.map((e) => `episode:${e.id}`));
      await store.markSeen(
        feed.url,
        batch.map((e) => ({ guid: e.guid!, episodeId: e.id })),
      );
    }
    if (fresh.length > 0)
      await store.update(feed.url, { episodes: (store.get(feed.url)?.episodes ?? 0) + fresh.length });
    return { published: fresh.length, podcastPublished, ...(rejected.length > 0 ? { rejected } : {}) };
  }
}
