// Local real engines without Docker: `up` prepares (downloads, cached) and starts each engine as a
// detached process group under `<repo>/.engines/<engine>/`, waits until it answers, and writes
// `.engines/env.json`; `down` stops exactly what `up` started, by pid file.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Engine, type EngineContext, type EngineName, engineContext } from './engine.ts';
import { kafka } from './kafka.ts';
import { opensearch } from './opensearch.ts';
import { postgres } from './postgres.ts';
import { groupRssMb, isOurProcess, readPidFile, stopByPidFile, tcpOpen, waitUntil } from './process.ts';
import { schemaRegistry } from './schema-registry.ts';

export type { EngineName } from './engine.ts';

export interface EngineStatus {
  name: EngineName;
  running: boolean;
  pid?: number;
  url: string;
  version: string;
  logFile: string;
  /** Spawn to ready, in ms (of the start that launched the running process). */
  startupMs?: number;
  /** Resident memory of the engine's whole process group. */
  rssMb?: number;
  /** Engine-specific facts, e.g. whether OpenSearch's k-NN plugin loaded. */
  details?: Record<string, string>;
}

/** Start order; the slow starters are spawned early and their readiness awaited together. */
export const ENGINE_NAMES: readonly EngineName[] = ['kafka', 'schema-registry', 'opensearch', 'postgres'];

const ENGINES: Record<EngineName, Engine> = {
  kafka,
  'schema-registry': schemaRegistry,
  opensearch,
  postgres,
};

/** Port variables, for messages. */
const PORT_VARS: Record<EngineName, string> = {
  kafka: 'EARSHOT_KAFKA_PORT / EARSHOT_KAFKA_CONTROLLER_PORT',
  'schema-registry': 'EARSHOT_SCHEMA_REGISTRY_PORT',
  opensearch: 'EARSHOT_OPENSEARCH_PORT / EARSHOT_OPENSEARCH_TRANSPORT_PORT',
  postgres: 'EARSHOT_POSTGRES_PORT',
};

interface EngineState {
  pid: number;
  url: string;
  version: string;
  env: Record<string, string>;
  startedAt: string;
  prepareMs?: number;
  startupMs?: number;
  details?: Record<string, string>;
}

export function defaultEnginesDir(): string {
  return process.env.EARSHOT_ENGINES_DIR ?? fileURLToPath(new URL('../../.engines', import.meta.url));
}

function rootDir(dir?: string): string {
  const root = resolve(dir ?? defaultEnginesDir());
  mkdirSync(root, { recursive: true });
  return root;
}

function select(only?: EngineName[]): EngineName[] {
  if (!only || only.length === 0) return [...ENGINE_NAMES];
  for (const name of only) if (!ENGINE_NAMES.includes(name)) throw new Error(`unknown engine '${name}'`);
  return ENGINE_NAMES.filter((name) => only.includes(name));
}

const stateFile = (ctx: EngineContext) => join(ctx.home, 'state.json');
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function readState(ctx: EngineContext): EngineState | undefined {
  try {
    return JSON.parse(readFileSync(stateFile(ctx), 'utf8')) as EngineState;
  } catch {
    return undefined;
  }
}

/** Our live pid for this engine, if any. */
function livePid(ctx: EngineContext): number | undefined {
  const pid = readPidFile(ctx.pidFile);
  return pid !== undefined && isOurProcess(pid, ctx.tag) ? pid : undefined;
}

function toStatus(engine: Engine, ctx: EngineContext, running: boolean, pid?: number): EngineStatus {
  const state = readState(ctx);
  const status: EngineStatus = {
    name: engine.name,
    running,
    url: state?.url ?? engine.url(),
    version: state?.version ?? engine.version,
    logFile: ctx.logFile,
  };
  if (pid !== undefined) {
    status.pid = pid;
    const rss = groupRssMb(pid);
    if (rss !== undefined) status.rssMb = rss;
  }
  if (state?.startupMs !== undefined && pid !== undefined) status.startupMs = state.startupMs;
  if (state?.details) status.details = state.details;
  return status;
}

type Outcome = { ok: true; status: EngineStatus } | { ok: false; name: EngineName; error: Error };

function settle(name: EngineName, p: Promise<EngineStatus>): Promise<Outcome> {
  return p.then(
    (status): Outcome => ({ ok: true, status }),
    (error: unknown): Outcome => ({
      ok: false,
      name,
      error: error instanceof Error ? error : new Error(String(error)),
    }),
  );
}

/** Waits for readiness, runs one-time set-up, records state. */
async function finish(
  engine: Engine,
  ctx: EngineContext,
  pid: number,
  spawnedAt: number,
  version: string,
  prepareMs?: number,
): Promise<EngineStatus> {
  await waitUntil(() => engine.ready(ctx), {
    what: engine.name,
    timeoutMs: engine.readyTimeoutMs,
    pid,
    logFile: ctx.logFile,
  });
  const startupMs = Date.now() - spawnedAt;
  await engine.afterReady?.(ctx);
  const details = await engine.details?.(ctx).catch(() => undefined);
  const state: EngineState = {
    pid,
    url: engine.url(),
    version,
    env: engine.env(),
    startedAt: new Date(spawnedAt).toISOString(),
    startupMs,
  };
  if (prepareMs !== undefined) state.prepareMs = prepareMs;
  if (details) state.details = details;
  writeFileSync(stateFile(ctx), `${JSON.stringify(state, null, 2)}\n`);
  const status = toStatus(engine, ctx, true, pid);
  ctx.progress(`ready in ${seconds(startupMs)} at ${status.url} (pid ${pid}, ${status.rssMb ?? '?'} MB RSS)`);
  return status;
}

/**
 * Prepares and spawns one engine (the sequential part) and returns its readiness wait, which runs
 * while the next engines are prepared.
 */
async function launch(engine: Engine, ctx: EngineContext): Promise<{ outcome: Promise<Outcome> }> {
  mkdirSync(ctx.home, { recursive: true });
  const running = livePid(ctx);
  if (running !== undefined) {
    if (await engine.ready(ctx).catch(() => false)) {
      ctx.progress(`already running (pid ${running}), left alone`);
      return { outcome: settle(engine.name, Promise.resolve(toStatus(engine, ctx, true, running))) };
    }
    ctx.progress(`running (pid ${running}) but not answering yet; waiting`);
    const state = readState(ctx);
    const since = state ? Date.parse(state.startedAt) : Date.now();
    return { outcome: settle(engine.name, finish(engine, ctx, running, since, state?.version ?? 'unknown')) };
  }
  rmSync(ctx.pidFile, { force: true });
  rmSync(stateFile(ctx), { force: true });
  for (const port of engine.ports()) {
    if (await tcpOpen(port)) {
      throw new Error(
        `${engine.name}: port ${port} on 127.0.0.1 is taken by a process not started from ${ctx.root}; ` +
          `stop it or choose other ports (${PORT_VARS[engine.name]})`,
      );
    }
  }
  const prepareStart = Date.now();
  ctx.progress('preparing');
  const version = await engine.prepare(ctx);
  const prepareMs = Date.now() - prepareStart;
  ctx.progress(`prepared ${version} in ${seconds(prepareMs)}`);
  const spawnedAt = Date.now();
  const pid = await engine.start(ctx);
  ctx.progress(`started (pid ${pid}, log ${ctx.logFile}); waiting up to ${seconds(engine.readyTimeoutMs)}`);
  const ready = finish(engine, ctx, pid, spawnedAt, version, prepareMs).catch(async (error: unknown) => {
    await stopByPidFile(ctx.pidFile, ctx.tag, engine.stop); // do not leave a half-started engine behind
    throw error;
  });
  return { outcome: settle(engine.name, ready) };
}

/** The env vars of every engine of ours that is running (recorded in state.json once ready). */
function runningEnv(root: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ENGINE_NAMES) {
    const ctx = engineContext(root, name, () => {});
    const state = readState(ctx);
    if (state && livePid(ctx) !== undefined) Object.assign(env, state.env);
  }
  return env;
}

/** Writes `<dir>/env.json` for tools that read a file rather than call enginesEnv(). */
function writeEnvFile(root: string): void {
  writeFileSync(join(root, 'env.json'), `${JSON.stringify(runningEnv(root), null, 2)}\n`);
}

export async function enginesUp(
  opts: { dir?: string; only?: EngineName[]; onProgress?: (msg: string) => void } = {},
): Promise<EngineStatus[]> {
  const root = rootDir(opts.dir);
  const progress = opts.onProgress ?? (() => {});
  const started = Date.now();
  const waits: Promise<Outcome>[] = [];
  for (const name of select(opts.only)) {
    const ctx = engineContext(root, name, progress);
    // prepare + spawn one engine at a time (Maven's local repository is not for concurrent writers)
    const launched = await launch(ENGINES[name], ctx).catch((error: unknown) => ({
      outcome: settle(name, Promise.reject(error)),
    }));
    waits.push(launched.outcome);
  }
  const outcomes = await Promise.all(waits);
  writeEnvFile(root);
  const failures = outcomes.filter((o) => !o.ok);
  if (failures.length > 0) {
    throw new Error(failures.map((f) => `${f.name} failed: ${f.error.message}`).join('\n\n'));
  }
  progress(`all up in ${seconds(Date.now() - started)}; env in ${join(root, 'env.json')}`);
  return outcomes.flatMap((o) => (o.ok ? [o.status] : []));
}

export async function enginesDown(
  opts: { dir?: string; only?: EngineName[]; onProgress?: (msg: string) => void } = {},
): Promise<void> {
  const root = rootDir(opts.dir);
  const progress = opts.onProgress ?? (() => {});
  await Promise.all(
    select(opts.only).map(async (name) => {
      const ctx = engineContext(root, name, progress);
      const pid = readPidFile(ctx.pidFile);
      const stopped = await stopByPidFile(ctx.pidFile, ctx.tag, ENGINES[name].stop);
      ctx.progress(stopped ? `stopped (pid ${pid})` : 'not running');
      rmSync(stateFile(ctx), { force: true });
    }),
  );
  writeEnvFile(root);
}

export async function enginesStatus(opts: { dir?: string } = {}): Promise<EngineStatus[]> {
  const root = rootDir(opts.dir);
  return Promise.all(
    ENGINE_NAMES.map(async (name) => {
      const engine = ENGINES[name];
      const ctx = engineContext(root, name, () => {});
      const pid = livePid(ctx);
      const running = pid !== undefined && (await engine.ready(ctx).catch(() => false));
      return toStatus(engine, ctx, running, pid);
    }),
  );
}

/** Env vars pointing the app at the engines of ours that are running now (empty when none). */
export function enginesEnv(dir?: string): Record<string, string> {
  return runningEnv(resolve(dir ?? defaultEnginesDir()));
}
