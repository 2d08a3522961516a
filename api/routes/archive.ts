import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { createInflateRaw } from 'node:zlib';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import type { ArchiveDay, ArchiveKey, ArchiveStore } from '../../projections/archive/index.ts';
import type { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import { Position, StrictCursorParam } from '../pagination.ts';
import { requireEntitlement } from '../premium.ts';
import { invalidParameter, problem } from '../problem.ts';
import { withProblems } from '../schemas.ts';
import type { ArchiveBuilds, DayBuild } from '../streams/archive-builds.ts';
import {
  crc32Combine,
  FINAL_BLOCK,
  GZIP_HEADER,
  GZIP_TRAILER_BYTES,
  gzipTrailer,
} from '../streams/gzip-assembly.ts';
import { acceptsGzip, type ByteRange, noneMatch, parseRange, rangeApplies } from '../streams/http-range.ts';
import { ARCHIVE_STREAM_ITEM, NDJSON_ITEM } from '../streams/openapi.ts';
import {
  includeKey,
  PeriodParam,
  parsePeriod,
  parseRecordIncludes,
  RecordIncludeParam,
  resumeToken,
} from '../streams/params.ts';
import { SseStream } from '../streams/sse.ts';
import type { Streams } from '../streams/streams.ts';
import { renderRecords } from '../views/episode-record.ts';

/** What the archive replay and the bulk download read from. */
export interface ArchiveRouteOptions {
  archive: ArchiveStore;
  catalog: CatalogReader;
  streams: Streams;
  dashboardUrl: string;
  /** The bulk download's builds of the archive's days. */
  builds: ArchiveBuilds;
}

const ENDPOINT = 'archive-stream';
const PAGE = 50;
/** After `complete`, an EventSource left open comes back after this long (for what was added since). */
const COMPLETE_RETRY_MS = 60_000;

/**
 * A replay position: the period, a digest of the generations of its days up to the position's
 * day (so a late episode landing before it, or a rebuild, is seen), the position in publication
 * order (absent: before the first episode), and the episodes replayed up to it.
 */
const REPLAY_POSITION = Type.Object({
  p: Type.String({ maxLength: 10 }),
  g: Type.String({ pattern: '^[0-9a-f]{16}$' }),
  k: Type.Optional(Type.Tuple([Position.epochMs(), Position.id()])),
  n: Position.count(),
});
type ReplayPosition = Static<typeof REPLAY_POSITION>;

/** Digest of the generations of the days up to and including `upTo`. */
function generationsDigest(days: ArchiveDay[], upTo: string | undefined): string {
  const hash = createHash('sha256');
  if (upTo !== undefined) for (const d of days) if (d.day <= upTo) hash.update(`${d.day}:${d.generation};`);
  return hash.digest('hex').slice(0, 16);
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const ReplayQuery = Type.Object({
  period: PeriodParam,
  include: RecordIncludeParam,
  cursor: StrictCursorParam,
});

const DownloadQuery = Type.Object({ period: PeriodParam, include: RecordIncludeParam });

const nullableBytes = (description: string) =>
  Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description });

const ArchiveSummaryDay = Type.Object({
  day: Type.String({ description: 'YYYY-MM-DD (UTC publication date)' }),
  episodes: Type.Integer({ minimum: 0, description: 'complete episodes published that day' }),
  podcasts: Type.Integer({ minimum: 0, description: 'distinct podcasts among them' }),
  generation: Type.Integer({
    description:
      'the build generation of the day: changes when its order changes other than by appending (a late episode, a rebuild); a replay cursor issued before goes stale',
  }),
  ndjson_bytes: nullableBytes("size of the day's NDJSON records for `include`; null until the day is built"),
  gzip_bytes: nullableBytes("size of the day's compressed piece of the gzip download; null until built"),
});

export const ArchiveSummary = Type.Object({
  period: Type.String(),
  from: Type.String({ description: 'first day of the period (YYYY-MM-DD)' }),
  to: Type.String({ description: 'last day of the period (YYYY-MM-DD)' }),
  episodes: Type.Integer({ minimum: 0, description: 'complete episodes published in the period' }),
  podcasts: Type.Integer({ minimum: 0, description: 'distinct podcasts among them' }),
  include: Type.Array(Type.String(), { description: 'the heavy relations the sizes are of' }),
  days: Type.Array(ArchiveSummaryDay, { description: 'days with episodes, in order' }),
  download: Type.Object({
    url: Type.String({ description: 'the bulk download of the period (path on the API host)' }),
    ndjson_bytes: nullableBytes('Content-Length of the NDJSON download; null until every day is built'),
    gzip_bytes: nullableBytes('Content-Length of the gzip download; null until every day is built'),
  }),
  stream_url: Type.String({
    description: 'the Server-Sent Events replay of the period (path on the API host)',
  }),
});

/**
 * The archive: `GET /v1/podcasts/episodes/archive/stream` replays a month or a day as Server-Sent
 * Events, `GET /v1/podcasts/episodes/archive/download` serves the same records as NDJSON (gzip,
 * ETag, Range). Both need the project's `archive` entitlement. See docs/streams.md.
 */
export const archiveRoutes: FastifyPluginAsyncTypebox<ArchiveRouteOptions> = async (app, opts) => {
  const { archive, catalog, streams, builds } = opts;
  const settings = streams.settings;

  app.get(
    '/v1/podcasts/episodes/archive/stream',
    {
      config: {
        streamResponse: {
          mediaType: 'text/event-stream',
          description: 'the episodes of the period, then `complete`',
          itemSchema: ARCHIVE_STREAM_ITEM,
        },
      },
      schema: {
        tags: ['episodes'],
        summary: 'Replay a month or a day of the episode archive as Server-Sent Events (by arrangement)',
        description:
          'One `episode` event per episode of the period in publication order (UTC), then a `complete` event with `{episodes, period}`. Each event id resumes after that episode (`cursor`, or `Last-Event-ID`); if the period was rebuilt since (a late episode landed before the position, or the archive was rebuilt) an `error` event says so and the replay must start again without a cursor. The bulk download serves the same records several times faster.',
        querystring: ReplayQuery,
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
      requireEntitlement(request, 'archive', opts.dashboardUrl);
      const q = request.query as Static<typeof ReplayQuery>;
      const period = parsePeriod(q.period);
      const include = parseRecordIncludes(request, q.include, opts.dashboardUrl);
      const resume = resumeToken(request, q.cursor);
      let from: ReplayPosition | undefined;
      if (resume) {
        from = app.cursors.decode(ENDPOINT, resume.token, REPLAY_POSITION);
        if (!from)
          throw invalidParameter(
            resume.location,
            'is not a cursor of this replay; start without it',
            resume.token,
          );
        if (from.p !== period.period)
          throw invalidParameter(
            resume.location,
            `is a cursor of period ${from.p}, not ${period.period}`,
            resume.token,
          );
      }

      streams.acquire(request, reply.raw);
      reply.hijack();
      const sse = new SseStream(reply.raw, settings);
      streams.track(sse);
      sse.open(settings.retryMs);
      const cursor = (p: Omit<ReplayPosition, 'p'>) =>
        app.cursors.encode(ENDPOINT, { p: period.period, ...p });

      try {
        let after: ArchiveKey | undefined = from?.k
          ? { publishedMs: from.k[0], episodeId: from.k[1] }
          : undefined;
        let issued = from?.g;
        let n = from?.n ?? 0;
        let last = cursor({
          g: from?.g ?? generationsDigest([], undefined),
          n,
          ...(from?.k ? { k: from.k } : {}),
        });
        for (;;) {
          const { rows, days } = await archive.page({
            from: period.from,
            to: period.to,
            after,
            limit: PAGE,
            heavy: include,
          });
          // Nothing may have changed before the position since it was handed out.
          if (issued !== undefined && generationsDigest(days, after && dayOf(after.publishedMs)) !== issued) {
            sse.fail({
              error_code: 'cursor_stale',
              detail: `period ${period.period} was rebuilt since this position was handed out (an episode landed before it, or the archive was rebuilt); start again without a cursor`,
            });
            return;
          }
          const texts = await renderRecords(catalog, rows, include);
          for (const [i, row] of rows.entries()) {
            n++;
            const k: [number, string] = [row.published_ms, row.episode_id];
            issued = generationsDigest(days, row.day);
            last = cursor({ g: issued, k, n });
            if (!sse.event('episode', texts[i]!, { id: last })) return;
            after = { publishedMs: row.published_ms, episodeId: row.episode_id };
            if (!(await sse.drained())) return;
          }
          if (rows.length < PAGE) break;
        }
        sse.event('complete', JSON.stringify({ episodes: n, period: period.period }), {
          id: last,
          retry: COMPLETE_RETRY_MS,
        });
        sse.end('complete');
      } catch (err) {
        request.log.error({ err }, 'archive replay failed');
        sse.fail({ error_code: 'stream_failed', detail: 'the replay failed; reconnect with Last-Event-ID' });
      }
    },
  );

  app.get(
    '/v1/podcasts/episodes/archive/summary',
    {
      schema: {
        tags: ['episodes'],
        summary: 'Summary of a month or a day of the episode archive (by arrangement)',
        description:
          'What the archive holds for the period: complete episodes and distinct podcasts, per day and in all, each day’s build generation, and the sizes of the bulk download for `include` (null until the download has built the period; asking for the summary builds nothing), with the download and replay paths.',
        querystring: DownloadQuery,
        response: withProblems({ 200: ArchiveSummary }),
      },
    },
    async (request) => {
      requireEntitlement(request, 'archive', opts.dashboardUrl);
      const q = request.query;
      const period = parsePeriod(q.period);
      const include = parseRecordIncludes(request, q.include, opts.dashboardUrl);
      const [days, podcasts] = await Promise.all([
        archive.days(period.from, period.to),
        archive.podcasts(period.from, period.to),
      ]);
      const built = days.map((d) => builds.current(d, include));
      const all = built.every((b) => b !== undefined);
      const sum = (f: (b: DayBuild) => number) => built.reduce((n, b) => n + (b ? f(b) : 0), 0);
      const query = new URLSearchParams({
        period: period.period,
        ...(q.include ? { include: q.include } : {}),
      });
      return {
        period: period.period,
        from: period.from,
        to: period.to,
        episodes: days.reduce((n, d) => n + d.episodes, 0),
        podcasts: podcasts.total,
        include: [...include].sort(),
        days: days.map((d, i) => ({
          day: d.day,
          episodes: d.episodes,
          podcasts: podcasts.byDay.get(d.day) ?? 0,
          generation: d.generation,
          ndjson_bytes: built[i]?.rawBytes ?? null,
          gzip_bytes: built[i]?.bytes ?? null,
        })),
        download: {
          url: `/v1/podcasts/episodes/archive/download?${query}`,
          ndjson_bytes: all ? sum((b) => b.rawBytes) : null,
          // As the download assembles it: a gzip header, the days' pieces, a final block, a trailer.
          gzip_bytes: all
            ? GZIP_HEADER.length + sum((b) => b.bytes) + FINAL_BLOCK.length + GZIP_TRAILER_BYTES
            : null,
        },
        stream_url: `/v1/podcasts/episodes/archive/stream?${query}`,
      };
    },
  );

  app.get(
    '/v1/podcasts/episodes/archive/download',
    {
      config: {
        streamResponse: {
          mediaType: 'application/x-ndjson',
          description:
            'the episodes of the period, one record per line in publication order (gzip-encoded when accepted: one gzip member per day)',
          itemSchema: NDJSON_ITEM,
          headers: {
            ETag: { description: 'the period’s build, per content coding', schema: { type: 'string' } },
            'Accept-Ranges': { description: 'bytes', schema: { type: 'string' } },
          },
          more: {
            '206': {
              description: 'the byte range asked for (Range, If-Range) of the representation',
              content: { 'application/x-ndjson': { itemSchema: NDJSON_ITEM } },
            },
            '304': { description: 'the build named in If-None-Match is current' },
          },
        },
      },
      schema: {
        tags: ['episodes'],
        summary: 'Bulk download of a month or a day of the episode archive as NDJSON (by arrangement)',
        description:
          'The records of the archive replay as NDJSON, several times faster: gzip when the client accepts it, an ETag per build of the period, and Range requests (with If-Range) to resume.',
        querystring: DownloadQuery,
        response: withProblems({}),
      },
    },
    async (request, reply) => {
      requireEntitlement(request, 'archive', opts.dashboardUrl);
      const q = request.query;
      const period = parsePeriod(q.period);
      const include = parseRecordIncludes(request, q.include, opts.dashboardUrl);
      streams.acquire(request, reply.raw);

      const days = await archive.days(period.from, period.to);
      const built: DayBuild[] = [];
      for (const day of days) built.push(await builds.ensure(day, include));
      const gzip = acceptsGzip(request.headers['accept-encoding']);
      const digest = createHash('sha256')
        .update(`${includeKey(include)};${built.map((b) => `${b.day}:${b.sha256}`).join(',')}`)
        .digest('hex')
        .slice(0, 32);
      const etag = `"${digest}${gzip ? '-gz' : ''}"`;
      // Every file is opened now: a newer build replacing one meanwhile does not cut the download.
      const files = await Promise.all(built.map((b) => fs.promises.open(b.file, 'r')));
      const close = () => {
        for (const f of files) void f.close().catch(() => undefined);
      };
      reply.raw.once('close', close);
      const pieces = gzip ? gzipPieces(built, files) : ndjsonPieces(built, files);
      const total = pieces.reduce((sum, p) => sum + p.size, 0);
      reply.headers({
        'content-type': 'application/x-ndjson; charset=utf-8',
        etag,
        vary: 'accept-encoding',
        'accept-ranges': 'bytes',
        'cache-control': 'private, no-cache',
        'content-disposition': `attachment; filename="episodes-${period.period}.ndjson"`,
      });
      if (noneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send();
      const ifRange = request.headers['if-range'];
      const range = rangeApplies(typeof ifRange === 'string' ? ifRange : undefined, etag)
        ? parseRange(request.headers.range, total)
        : undefined;
      if (range === 'unsatisfiable') {
        throw problem('range_not_satisfiable', `the representation has ${total} bytes`, {
          errors: [
            {
              location: 'header.range',
              message: `is outside 0-${Math.max(0, total - 1)}`,
              value: request.headers.range,
            },
          ],
          headers: { 'content-range': `bytes */${total}` },
        });
      }
      if (gzip) reply.header('content-encoding', 'gzip');
      const span: ByteRange = range ?? { start: 0, end: total - 1 };
      reply.header('content-length', String(Math.max(0, span.end - span.start + 1)));
      if (range) reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${total}`);
      if (total === 0 || request.method === 'HEAD') return reply.send('');
      const body = Readable.from(slice(pieces, span));
      streams.trackOther({ shutdown: () => reply.raw.destroy() }, (listener) =>
        reply.raw.once('close', listener),
      );
      return reply.send(body);
    },
  );
};

/** A part of a representation: its size, and its bytes from `start` to `end` (included). */
interface Piece {
  size: number;
  read(start: number, end: number): AsyncIterable<Buffer>;
}

const bytes = (buf: Buffer): Piece => ({
  size: buf.length,
  async *read(start, end) {
    yield buf.subarray(start, end + 1);
  },
});

/**
 * The gzip representation of a period: one gzip stream of its days' compressed pieces (a header,
 * the pieces as stored, an empty final block, the CRC-32 and size of the whole).
 */
function gzipPieces(built: DayBuild[], files: fs.promises.FileHandle[]): Piece[] {
  let crc = 0;
  let size = 0;
  for (const b of built) {
    crc = crc32Combine(crc, b.crc32, b.rawBytes);
    size += b.rawBytes;
  }
  return [
    bytes(GZIP_HEADER),
    ...built.map((b, i) => ({
      size: b.bytes,
      read: (start: number, end: number) => files[i]!.createReadStream({ start, end, autoClose: false }),
    })),
    bytes(Buffer.concat([FINAL_BLOCK, gzipTrailer(crc, size)])),
  ];
}

/** The NDJSON representation: each day's piece inflated (read through from its start). */
function ndjsonPieces(built: DayBuild[], files: fs.promises.FileHandle[]): Piece[] {
  return built.map((b, i) => ({
    size: b.rawBytes,
    async *read(start: number, end: number) {
      const inflate = createInflateRaw();
      const compressed = files[i]!.createReadStream({ start: 0, autoClose: false });
      compressed.on('end', () => inflate.end(FINAL_BLOCK));
      compressed.pipe(inflate, { end: false });
      let at = 0;
      for await (const chunk of inflate) {
        const c = chunk as Buffer;
        const from = Math.max(start - at, 0);
        const to = Math.min(end - at + 1, c.length);
        if (from < to) yield c.subarray(from, to);
        at += c.length;
        if (at > end) {
          compressed.destroy();
          inflate.destroy();
          return;
        }
      }
    },
  }));
}

/** The bytes `span` of the concatenated pieces. */
async function* slice(pieces: Piece[], span: ByteRange): AsyncGenerator<Buffer> {
  let offset = 0;
  for (const piece of pieces) {
    const start = Math.max(span.start, offset);
    const end = Math.min(span.end, offset + piece.size - 1);
    if (start <= end) yield* piece.read(start - offset, end - offset);
    offset += piece.size;
    if (offset > span.end) return;
  }
}
