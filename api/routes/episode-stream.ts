import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import type { ArchiveStore, LiveEntry, LiveFeed } from '../../projections/archive/index.ts';
import type { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import { Position, StrictCursorParam } from '../pagination.ts';
import { requirePremiumEndpoint } from '../premium.ts';
import { invalidParameter } from '../problem.ts';
import { withProblems } from '../schemas.ts';
import { LiveRecords } from '../streams/live-records.ts';
import { LIVE_STREAM_ITEM } from '../streams/openapi.ts';
import { parseRecordIncludes, RecordIncludeParam, resumeToken } from '../streams/params.ts';
import { SseStream } from '../streams/sse.ts';
import type { Streams } from '../streams/streams.ts';
import { notFound } from '../views/analytics.ts';

/** What the live episode stream reads from. */
export interface EpisodeStreamOptions {
  archive: ArchiveStore;
  feed: LiveFeed;
  catalog: CatalogReader;
  streams: Streams;
  dashboardUrl: string;
  /** How far back a cursor resumes; an older one restarts from the oldest kept. */
  retentionMs: number;
}

const ENDPOINT = 'episode-stream';
const POSITION = Type.Object({ s: Position.count() });
const BATCH = 100;

const ref = (description: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength: 200, description }));

const LiveQuery = Type.Object({
  podcast_id: ref('only episodes of this podcast (slug, ID or numeric directory ID)'),
  publisher_id: ref('only episodes of this publisher’s podcasts (slug or ID)'),
  language: Type.Optional(
    Type.String({
      maxLength: 35,
      pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$',
      description:
        'only episodes in this language: a primary tag (en) matches every region (en-US, en-GB), a full tag only itself',
    }),
  ),
  include: RecordIncludeParam,
  cursor: StrictCursorParam,
});

/** Whether a BCP-47 tag is the language asked for (`en` takes `en-US`; `en-US` only itself). */
function languageMatches(tag: string, wanted: string): boolean {
  const t = tag.toLowerCase();
  const w = wanted.toLowerCase();
  return w.includes('-') ? t === w : t === w || t.startsWith(`${w}-`);
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * `GET /v1/podcasts/episodes/stream`: episodes as they become fully processed (transcript in the
 * archive, mentions and speakers detected), in that order, as Server-Sent Events. Each event's
 * `id` is its position in the archive's live order, which every API process shares and a restart
 * keeps, so a client reconnecting with `Last-Event-ID` (or `cursor`) anywhere goes on with no gap
 * and no duplicate. See docs/streams.md.
 */
export const episodeStreamRoutes: FastifyPluginAsyncTypebox<EpisodeStreamOptions> = async (app, opts) => {
  const { archive, feed, catalog, streams } = opts;
  const records = new LiveRecords(archive, catalog);
  const settings = streams.settings;

  app.get(
    '/v1/podcasts/episodes/stream',
    {
      config: {
        streamResponse: {
          mediaType: 'text/event-stream',
          description: 'an open stream of episode events',
          itemSchema: LIVE_STREAM_ITEM,
        },
      },
      schema: {
        tags: ['episodes'],
        summary: 'Live stream of fully processed episodes (Server-Sent Events), resumable with Last-Event-ID',
        description:
          'One `episode` event per episode once it is fully processed, in processing order. Without a cursor the stream starts at the present. Reconnect with `Last-Event-ID` (EventSource does) or `cursor` to go on where you were; a cursor older than the stream keeps restarts from the oldest kept (an `error` event says so), one from the future is an `error` and the stream closes. Premium plans.',
        querystring: LiveQuery,
        headers: Type.Object({
          'last-event-id': Type.Optional(
            Type.String({
              maxLength: 1024,
              description: 'the id of the last event received (resume position)',
            }),
          ),
        }),
        response: withProblems({}),
      },
    },
    async (request, reply) => {
      requirePremiumEndpoint(request, opts.dashboardUrl);
      const q = request.query as Static<typeof LiveQuery>;
      const include = parseRecordIncludes(request, q.include, opts.dashboardUrl);
      const resume = resumeToken(request, q.cursor);
      let position: number | undefined;
      if (resume) {
        position = app.cursors.decode(ENDPOINT, resume.token, POSITION)?.s;
        if (position === undefined)
          throw invalidParameter(
            resume.location,
            'is not a position of this stream; connect without it',
            resume.token,
          );
      }
      let podcastId: string | undefined;
      if (q.podcast_id !== undefined) {
        const podcast = await catalog.podcast(q.podcast_id);
        if (!podcast)
          throw notFound('query.podcast_id', 'no podcast has this slug, ID or directory ID', q.podcast_id);
        podcastId = podcast.id;
      }
      let publisherId: string | undefined;
      if (q.publisher_id !== undefined) {
        const publisher = await catalog.publisher(q.publisher_id);
        if (!publisher)
          throw notFound('query.publisher_id', 'no publisher has this slug or ID', q.publisher_id);
        publisherId = publisher.id;
      }
      const matches = (e: LiveEntry) =>
        (podcastId === undefined || e.podcast_id === podcastId) &&
        (publisherId === undefined || e.publisher_id === publisherId) &&
        (q.language === undefined || languageMatches(e.language, q.language));

      streams.acquire(request, reply.raw);
      reply.hijack();
      const sse = new SseStream(reply.raw, settings);
      streams.track(sse);
      sse.open(settings.retryMs);
      const id = (seq: number) => app.cursors.encode(ENDPOINT, { s: seq });

      try {
        const head = await feed.head();
        let s: number;
        if (position === undefined) {
          s = head;
          sse.position(id(s));
        } else if (position > head) {
          sse.fail({
            error_code: 'cursor_ahead',
            detail: `this position was never handed out (the stream is at ${head}); connect without a cursor`,
          });
          return;
        } else {
          s = position;
          const next = await archive.liveNext(s);
          const cutoff = Date.now() - opts.retentionMs;
          if (next && next.ready_ms < cutoff) {
            const oldest = await archive.liveOldestSince(cutoff);
            s = oldest === undefined ? head : oldest - 1;
            sse.event(
              'error',
              JSON.stringify({
                error_code: 'cursor_expired',
                detail: `the cursor is older than the ${Math.round(opts.retentionMs / 3_600_000)} h the live stream keeps; going on from the oldest episode kept (use the archive replay for older ones)`,
              }),
            );
            sse.position(id(s));
          }
        }

        while (!sse.closed) {
          const { entries, held } = await feed.after(s, BATCH);
          if (entries.length === 0) {
            // Held: the next episode's record is being rebuilt (`projections rebuild archive`).
            if (held) await sleep(feed.pollMs, sse.signal);
            else await feed.wait(s, settings.heartbeatMs, sse.signal);
            continue;
          }
          const texts = await records.get(entries.filter(matches), include);
          let sentLast = false;
          for (const e of entries) {
            const text = texts.get(e.seq);
            sentLast = text !== undefined && sse.event('episode', text, { id: id(e.seq) });
            s = e.seq;
            if (sentLast && !(await sse.drained())) break;
          }
          if (!sentLast && !sse.closed) sse.position(id(s));
        }
      } catch (err) {
        request.log.error({ err }, 'live episode stream failed');
        sse.fail({ error_code: 'stream_failed', detail: 'the stream failed; reconnect with Last-Event-ID' });
      }
    },
  );
};
