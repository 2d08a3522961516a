import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { constants, crc32, createDeflateRaw } from 'node:zlib';
import type { ArchiveDay, ArchiveKey, ArchiveStore } from '../../projections/archive/index.ts';
import type { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import { type RecordInclude, renderRecords } from '../views/episode-record.ts';
import { includeKey } from './params.ts';

/**
 * One built day of a bulk download: its records as NDJSON, compressed as raw DEFLATE ended with a
 * sync flush (a piece of a gzip stream: gzip-assembly.ts).
 */
export interface DayBuild {
  day: string;
  file: string;
  /** Size of the compressed piece. */
  bytes: number;
  /** Size of the NDJSON it holds. */
  rawBytes: number;
  /** CRC-32 of that NDJSON. */
  crc32: number;
  episodes: number;
  /** SHA-256 of the compressed piece (the download's ETag is made of these). */
  sha256: string;
  builtAt: number;
}

export interface ArchiveBuildsOptions {
  dir: string;
  /** A build older than this is made again (the catalog it drew from may have changed). */
  ttlMs: number;
  archive: ArchiveStore;
  catalog: CatalogReader;
}

const PAGE = 100;

/**
 * The bulk download's builds: each UTC day of the archive rendered once per include set into a
 * compressed file of NDJSON records (`<dir>/<include>/<day>/<generation>-<changed>.deflate`, with
 * its sizes, CRC-32 and digest beside it), made when first asked for and again when the day's
 * generation or change stamp moves or the build is older than `ttlMs`. A period is served as one
 * gzip stream assembled from its days' pieces (gzip-assembly.ts), with no work per record at
 * download time. Builds are a cache of what the archive's rows hold: every API process keeps its
 * own, and a process given the same rows builds the same bytes, hence the same ETag.
 */
export class ArchiveBuilds {
  private readonly building = new Map<string, Promise<DayBuild>>();
  readonly stats = { built: 0, reused: 0 };

  constructor(private readonly opts: ArchiveBuildsOptions) {}

  /** The build of `day` for `include`, made now if missing or out of date. */
  async ensure(day: ArchiveDay, include: ReadonlySet<RecordInclude>): Promise<DayBuild> {
    const file = this.fileOf(day, include);
    const dir = path.dirname(file);
    const current = this.read(file);
    if (current && Date.now() - current.builtAt < this.opts.ttlMs) {
      this.stats.reused++;
      return current;
    }
    let pending = this.building.get(file);
    if (!pending) {
      pending = this.build(day, include, dir, file).finally(() => this.building.delete(file));
      this.building.set(file, pending);
    }
    return pending;
  }

  /** The build of `day` for `include` if one of its current generation exists (builds nothing). */
  current(day: ArchiveDay, include: ReadonlySet<RecordInclude>): DayBuild | undefined {
    return this.read(this.fileOf(day, include));
  }

  private fileOf(day: ArchiveDay, include: ReadonlySet<RecordInclude>): string {
    return path.join(this.opts.dir, includeKey(include), day.day, `${day.generation}-${day.changed}.deflate`);
  }

  private read(file: string): DayBuild | undefined {
    try {
      const meta = JSON.parse(fs.readFileSync(`${file}.json`, 'utf8')) as DayBuild;
      return fs.existsSync(file) ? { ...meta, file } : undefined;
    } catch {
      return undefined;
    }
  }

  private async build(
    day: ArchiveDay,
    include: ReadonlySet<RecordInclude>,
    dir: string,
    file: string,
  ): Promise<DayBuild> {
    fs.mkdirSync(dir, { recursive: true });
    const tmp = path.join(dir, `.${randomUUID()}.tmp`);
    const { archive, catalog } = this.opts;
    let rawBytes = 0;
    let crc = 0;
    let episodes = 0;
    const hash = createHash('sha256');
    async function* lines() {
      let after: ArchiveKey | undefined;
      for (;;) {
        const { rows } = await archive.page({
          from: day.day,
          to: day.day,
          after,
          limit: PAGE,
          heavy: include,
        });
        const texts = await renderRecords(catalog, rows, include);
        for (const text of texts) {
          const line = Buffer.from(`${text}\n`);
          rawBytes += line.length;
          crc = crc32(line, crc);
          episodes++;
          yield line;
        }
        if (rows.length < PAGE) return;
        const last = rows.at(-1)!;
        after = { publishedMs: last.published_ms, episodeId: last.episode_id };
      }
    }
    const out = fs.createWriteStream(tmp);
    try {
      await pipeline(
        lines,
        // No final block: the day is a piece of the period's gzip stream.
        createDeflateRaw({ finishFlush: constants.Z_SYNC_FLUSH }),
        async function* (chunks: AsyncIterable<Buffer>) {
          for await (const chunk of chunks) {
            hash.update(chunk);
            yield chunk;
          }
        },
        out,
      );
      const build: DayBuild = {
        day: day.day,
        file,
        bytes: fs.statSync(tmp).size,
        rawBytes,
        crc32: crc,
        episodes,
        sha256: hash.digest('hex'),
        builtAt: Date.now(),
      };
      fs.writeFileSync(`${tmp}.json`, JSON.stringify(build));
      fs.renameSync(tmp, file);
      fs.renameSync(`${tmp}.json`, `${file}.json`);
      // Older builds of the day go (a download reading one keeps its open descriptor).
      const keep = new Set([path.basename(file), `${path.basename(file)}.json`]);
      for (const name of fs.readdirSync(dir)) {
        if (!name.startsWith('.') && !keep.has(name)) fs.rmSync(path.join(dir, name), { force: true });
      }
      this.stats.built++;
      return build;
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      fs.rmSync(`${tmp}.json`, { force: true });
      throw err;
    }
  }
}
