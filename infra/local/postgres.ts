// A throwaway PostgreSQL cluster (initdb) from the OS packages, on 127.0.0.1:5433 with trust auth.
import { chownSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { type Engine, envPort, LOCALHOST } from './engine.ts';
import { which } from './java.ts';
import { assertReachable, isRoot, lookupUser, type RunAs, run, spawnDetached } from './process.ts';

const DATABASE = 'earshot';
const port = () => envPort('EARSHOT_POSTGRES_PORT', 5433);
const url = (db = DATABASE) => `postgres://postgres@${LOCALHOST}:${port()}/${db}`;

/** Directory holding initdb + postgres: EARSHOT_PG_BIN, Debian's /usr/lib/postgresql/<v>/bin, or PATH. */
function findBinDir(): string | undefined {
  const explicit = process.env.EARSHOT_PG_BIN;
  if (explicit) return explicit;
  try {
    const versions = readdirSync('/usr/lib/postgresql')
      .filter((v) => existsSync(join('/usr/lib/postgresql', v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join('/usr/lib/postgresql', versions[0], 'bin');
  } catch {
    // not a Debian layout
  }
  const initdb = which('initdb');
  return initdb && which('postgres') ? join(initdb, '..') : undefined;
}

async function binDir(progress: (msg: string) => void, logFile: string): Promise<string> {
  const found = findBinDir();
  if (found) return found;
  if (!isRoot() || !which('apt-get')) {
    throw new Error(
      'PostgreSQL server binaries not found: install them (Debian/Ubuntu: sudo apt-get install -y postgresql) ' +
        'or set EARSHOT_PG_BIN to the directory holding initdb and postgres',
    );
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  progress('installing PostgreSQL from the OS packages (apt-get install postgresql)');
  await run('apt-get', ['update'], { env, logFile, timeoutMs: 10 * 60_000 });
  await run('apt-get', ['install', '-y', '--no-install-recommends', 'postgresql'], {
    env,
    logFile,
    timeoutMs: 15 * 60_000,
  });
  const installed = findBinDir();
  if (!installed) throw new Error(`apt-get installed postgresql but no initdb was found; see ${logFile}`);
  return installed;
}

/** initdb and postgres refuse to run as root; as root they run as the package's `postgres` account. */
function runAs(): RunAs | undefined {
  if (!isRoot()) return undefined;
  const user = lookupUser('postgres');
  if (!user) throw new Error('running as root and no `postgres` account to run PostgreSQL as');
  return user;
}

async function withClient<T>(db: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url(db), connectionTimeoutMillis: 2_000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

export const postgres: Engine = {
  name: 'postgres',
  version: 'OS package',
  ports: () => [port()],
  url: () => url(),
  env: () => ({ DATABASE_URL: url() }),
  readyTimeoutMs: 60_000,
  // SIGINT = "fast" shutdown (SIGTERM would wait for clients to disconnect).
  stop: { signal: 'SIGINT', leaderOnly: true, graceMs: 20_000 },

  async prepare(ctx) {
    const bin = await binDir(ctx.progress, ctx.logFile);
    const who = runAs();
    const version = (await run(join(bin, 'postgres'), ['--version']))
      .trim()
      .replace(/^.*\(PostgreSQL\)\s*/, '');
    if (!existsSync(join(ctx.dataDir, 'PG_VERSION'))) {
      ctx.progress(`initdb ${ctx.dataDir} (PostgreSQL ${version})`);
      mkdirSync(ctx.dataDir, { recursive: true, mode: 0o700 });
      if (who) {
        chownSync(ctx.dataDir, who.uid, who.gid);
        await assertReachable(ctx.dataDir, who);
      }
      await run(
        join(bin, 'initdb'),
        ['-D', ctx.dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-locale'],
        { logFile: ctx.logFile, runAs: who, cwd: ctx.dataDir },
      );
    }
    return version.split(' ')[0] ?? version;
  },

  async start(ctx) {
    const bin = findBinDir();
    if (!bin) throw new Error('PostgreSQL server binaries not found');
    return spawnDetached({
      cmd: join(bin, 'postgres'),
      args: [
        '-D',
        ctx.dataDir,
        '-c',
        `listen_addresses=${LOCALHOST}`,
        '-c',
        `port=${port()}`,
        // TCP only: no socket file in /var/run/postgresql or in a path too long for a socket name
        '-c',
        'unix_socket_directories=',
        // a throwaway cluster for development and tests: durability traded for speed
        '-c',
        'fsync=off',
        '-c',
        'synchronous_commit=off',
        '-c',
        'full_page_writes=off',
      ],
      cwd: ctx.dataDir,
      env: process.env,
      logFile: ctx.logFile,
      pidFile: ctx.pidFile,
      tag: ctx.tag,
      runAs: runAs(),
    });
  },

  async ready() {
    return withClient('postgres', async (c) => (await c.query('SELECT 1 AS ok')).rows[0]?.ok === 1);
  },

  async afterReady(ctx) {
    await withClient('postgres', async (c) => {
      const exists = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
      if (exists.rowCount === 0) {
        ctx.progress(`creating database ${DATABASE}`);
        await c.query(`CREATE DATABASE ${DATABASE}`);
      }
    });
  },

  async details() {
    return withClient(DATABASE, async (c) => ({
      server: String((await c.query('SHOW server_version')).rows[0]?.server_version),
    }));
  },
};
