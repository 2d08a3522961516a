import { type ChildProcess, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.ts';
import { seedStateDir } from './state-template.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Prefix of the cache dir a spawned service gets instead of the user's (removed after the run). */
export const NO_CACHE_PREFIX = 'earshot-test-no-cache-';

/**
 * Runs `earshot <args>` as a child process, as a user would, bound to 127.0.0.1. A variable given
 * as undefined is removed from the environment the child inherits.
 *
 * `earshot start` on a new `EARSHOT_DATA_DIR` with the embedded state store finds the migrated
 * state store template there (test/support/state.ts), as on any later start, instead of paying
 * for initdb and every migration; `emptyDataDir: true` leaves the data dir as given, for the
 * tests of a user's first start.
 */
export async function spawnEarshot(
  args: string[],
  env: Record<string, string | undefined>,
  options: { emptyDataDir?: boolean } = {},
) {
  const dataDir = env['EARSHOT_DATA_DIR'];
  const embeddedState = !('DATABASE_URL' in env ? env['DATABASE_URL'] : process.env['DATABASE_URL']);
  if (args[0] === 'start' && dataDir && embeddedState && !options.emptyDataDir) {
    seedStateDir(path.join(dataDir, 'state'));
  }
  const port = await freePort();
  const output: string[] = [];
  const child: ChildProcess = spawn(process.execPath, [path.join(root, 'bin/earshot.js'), ...args], {
    cwd: root,
    // No embeddings model download in tests (semantic search stays off unless a test points
    // EARSHOT_MODELS_DIR at a cached model), and not the user's model cache either.
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      // The agent-tool server on a free port too (8081, its default, is the schema registry's).
      MCP_PORT: '0',
      LOG_LEVEL: 'info',
      EARSHOT_EMBEDDINGS_FETCH: 'off',
      XDG_CACHE_HOME: path.join(tmpdir(), `${NO_CACHE_PREFIX}${process.pid}`),
      ...env,
    } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => output.push(d.toString()));
  child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    output: () => output.join(''),
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
