// What every local engine launcher provides, and the per-engine paths under the state dir.
import { join } from 'node:path';
import type { StopOptions } from './process.ts';

export type EngineName = 'kafka' | 'schema-registry' | 'opensearch' | 'postgres';

export interface EngineContext {
  name: EngineName;
  /** State dir shared by all engines (default `<repo>/.engines`). */
  root: string;
  /** This engine's dir: `<root>/<name>`. */
  home: string;
  dataDir: string;
  logFile: string;
  pidFile: string;
  /** Marker put in the engine's environment, so a pid can be recognised as ours. */
  tag: string;
  progress(msg: string): void;
}

export interface Engine {
  name: EngineName;
  /** The version this launcher runs (what `prepare` reports once it has looked). */
  version: string;
  /** Ports this engine binds on 127.0.0.1 (checked for clashes before start). */
  ports(): number[];
  url(): string;
  /** Env vars pointing the app at this engine. */
  env(): Record<string, string>;
  /** Download, unpack and configure; idempotent, cached. Returns the engine version. */
  prepare(ctx: EngineContext): Promise<string>;
  /** Spawns the engine detached; returns the pid of the process group leader. */
  start(ctx: EngineContext): Promise<number>;
  /** One readiness probe. */
  ready(ctx: EngineContext): Promise<boolean>;
  readyTimeoutMs: number;
  /** One-time set-up once ready (create a database, set a global rule...). */
  afterReady?(ctx: EngineContext): Promise<void>;
  /** Extra facts for the status (e.g. which OpenSearch plugins loaded). */
  details?(ctx: EngineContext): Promise<Record<string, string>>;
  stop: StopOptions;
}

export function engineContext(
  root: string,
  name: EngineName,
  progress: (msg: string) => void,
): EngineContext {
  const home = join(root, name);
  return {
    name,
    root,
    home,
    dataDir: join(home, 'data'),
    logFile: join(home, `${name}.log`),
    pidFile: join(home, `${name}.pid`),
    tag: `${name}@${root}`,
    progress: (msg) => progress(`${name}: ${msg}`),
  };
}

/** A port from the environment (e.g. EARSHOT_KAFKA_PORT), or the default. */
export function envPort(variable: string, fallback: number): number {
  const raw = process.env[variable];
  if (!raw) return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port <= 0 || port > 65535)
    throw new Error(`${variable}=${raw} is not a port`);
  return port;
}

export const LOCALHOST = '127.0.0.1';
