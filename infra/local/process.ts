// Process helpers shared by the local engine launchers: detached spawn with a log file and a pid
// file, one-off commands, readiness polling, stop by pid file, and small /proc readers.
import { type SpawnOptions, spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';

/** Set in every engine's environment; lets `down` check that a pid still belongs to the engine. */
export const ENGINE_TAG_VAR = 'EARSHOT_ENGINE';

export interface RunAs {
  uid: number;
  gid: number;
  user: string;
}

export interface SpawnDetachedOptions {
  cmd: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  logFile: string;
  pidFile: string;
  /** Value of ENGINE_TAG_VAR in the child's environment. */
  tag: string;
  runAs?: RunAs | undefined;
}

/** Starts a process in its own process group (it outlives this one); stdout+stderr go to logFile. */
export function spawnDetached(o: SpawnDetachedOptions): number {
  const fd = openSync(o.logFile, 'a');
  try {
    writeFileSync(fd, `\n=== ${new Date().toISOString()} start: ${o.cmd} ${o.args.join(' ')}\n`);
    const child = spawn(o.cmd, o.args, {
      cwd: o.cwd,
      env: { ...o.env, [ENGINE_TAG_VAR]: o.tag },
      detached: true,
      stdio: ['ignore', fd, fd],
      ...(o.runAs ? { uid: o.runAs.uid, gid: o.runAs.gid } : {}),
    });
    if (child.pid === undefined) throw new Error(`could not start ${o.cmd} (see ${o.logFile})`);
    child.on('error', () => {}); // reported through the readiness wait (process gone + log tail)
    child.unref();
    writeFileSync(o.pidFile, `${child.pid}\n`);
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Output is appended here; without it output is captured and returned. */
  logFile?: string;
  runAs?: RunAs | undefined;
  timeoutMs?: number;
}

/** Runs a command to completion; throws with the output tail (and the log file) when it fails. */
export async function run(cmd: string, args: string[], o: RunOptions = {}): Promise<string> {
  const fd = o.logFile ? openSync(o.logFile, 'a') : undefined;
  if (fd !== undefined)
    writeFileSync(fd, `\n=== ${new Date().toISOString()} run: ${cmd} ${args.join(' ')}\n`);
  const opts: SpawnOptions = {
    cwd: o.cwd,
    env: o.env ?? process.env,
    stdio: ['ignore', fd ?? 'pipe', fd ?? 'pipe'],
    ...(o.runAs ? { uid: o.runAs.uid, gid: o.runAs.gid } : {}),
  };
  try {
    return await new Promise<string>((resolve, reject) => {
      const child = spawn(cmd, args, opts);
      let out = '';
      child.stdout?.on('data', (b: Buffer) => {
        out += b.toString();
      });
      child.stderr?.on('data', (b: Buffer) => {
        out += b.toString();
      });
      const timer = o.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), o.timeoutMs).unref() : undefined;
      child.on('error', (err) => {
        clearTimeout(timer);
        reject(new Error(`${cmd}: ${err.message}`));
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (code === 0) return resolve(out);
        const tail = o.logFile ? tailFile(o.logFile, 15) : out.trim().split('\n').slice(-15).join('\n');
        const where = o.logFile ? ` (log: ${o.logFile})` : '';
        reject(new Error(`${cmd} ${args.join(' ')} failed (${signal ?? `exit ${code}`})${where}\n${tail}`));
      });
    });
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export function tailFile(file: string, lines: number): string {
  try {
    const text = readFileSync(file, 'utf8');
    return text.trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

export function readPidFile(pidFile: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(pidFile, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** True when a process (or, for negative ids, a process group) exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * True when pid is alive and carries our tag in its environment. Where /proc cannot tell
 * (another OS, no permission) a live pid is trusted.
 */
export function isOurProcess(pid: number, tag: string): boolean {
  if (!isAlive(pid)) return false;
  const state = procState(pid);
  if (state === 'Z') return false;
  try {
    const env = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
    return env.includes(`${ENGINE_TAG_VAR}=${tag}`);
  } catch {
    return true;
  }
}

function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

/** Pids of live (non-zombie) processes in a process group, from /proc (empty where there is none). */
export function groupMembers(pgid: number): number[] {
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] !== 'Z' && Number(fields[2]) === pgid) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

/** Resident memory of a whole process group in MiB (Linux only). */
export function groupRssMb(pgid: number): number | undefined {
  let kb = 0;
  for (const pid of groupMembers(pgid)) {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
      kb += m ? Number(m[1]) : 0;
    } catch {
      // gone
    }
  }
  return kb > 0 ? Math.round(kb / 1024) : undefined;
}

function groupAlive(pgid: number): boolean {
  if (existsSync('/proc/self/stat')) return groupMembers(pgid).length > 0;
  return isAlive(-pgid);
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

export interface StopOptions {
  /** Signal for an orderly shutdown (default SIGTERM). */
  signal?: NodeJS.Signals;
  /** Send the orderly signal to the leader only (PostgreSQL) instead of the whole group. */
  leaderOnly?: boolean;
  /** How long to wait before SIGKILL of the whole group (default 20 s). */
  graceMs?: number;
}

/**
 * Stops the process group led by the pid in pidFile: the orderly signal, then SIGKILL of the group
 * after the grace period. Returns false when nothing of ours was running. Removes the pid file.
 */
export async function stopByPidFile(pidFile: string, tag: string, o: StopOptions = {}): Promise<boolean> {
  const pid = readPidFile(pidFile);
  if (pid === undefined) return false;
  if (!isOurProcess(pid, tag)) {
    rmSync(pidFile, { force: true });
    return false;
  }
  signal(o.leaderOnly ? pid : -pid, o.signal ?? 'SIGTERM');
  const deadline = Date.now() + (o.graceMs ?? 20_000);
  while (groupAlive(pid) && Date.now() < deadline) await sleep(200);
  if (groupAlive(pid)) {
    signal(-pid, 'SIGKILL');
    const killDeadline = Date.now() + 5_000;
    while (groupAlive(pid) && Date.now() < killDeadline) await sleep(100);
  }
  rmSync(pidFile, { force: true });
  return true;
}

export interface WaitOptions {
  what: string;
  timeoutMs: number;
  intervalMs?: number;
  /** Fail fast when this process dies. */
  pid?: number;
  logFile: string;
}

/** Polls check() until it returns true; clear errors on timeout or when the process dies. */
export async function waitUntil(check: () => Promise<boolean>, o: WaitOptions): Promise<void> {
  const deadline = Date.now() + o.timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (o.pid !== undefined && !groupAlive(o.pid)) {
      throw new Error(`${o.what} exited during start-up; see ${o.logFile}\n${tailFile(o.logFile, 20)}`);
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${o.what} not ready after ${Math.round(o.timeoutMs / 1000)} s; see ${o.logFile}\n${tailFile(o.logFile, 20)}`,
      );
    }
    await sleep(o.intervalMs ?? 500);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** True when something accepts TCP connections on host:port. */
export function tcpOpen(port: number, host = '127.0.0.1', timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** GET/PUT a URL; resolves to the status and body, or undefined when nothing answers. */
export async function http(
  url: string,
  init: { method?: string; body?: string; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<{ status: number; body: string } | undefined> {
  try {
    const res = await fetch(url, {
      method: init.method ?? 'GET',
      body: init.body,
      headers: init.headers,
      signal: AbortSignal.timeout(init.timeoutMs ?? 2_000),
    });
    return { status: res.status, body: await res.text() };
  } catch {
    return undefined;
  }
}

/** Finds a local account (for running servers that refuse root); undefined when absent. */
export function lookupUser(name: string): RunAs | undefined {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const [user, , uid, gid] = line.split(':');
      if (user === name && uid && gid) return { user, uid: Number(uid), gid: Number(gid) };
    }
  } catch {
    // no /etc/passwd
  }
  return undefined;
}

export function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/** Throws a clear error unless `who` can read/traverse `path` (checked by running `test` as that user). */
export async function assertReachable(path: string, who: RunAs): Promise<void> {
  try {
    await run('test', ['-r', path, '-a', '-x', path], { runAs: who });
  } catch {
    throw new Error(
      `user '${who.user}' cannot reach ${path}: the server runs as '${who.user}' because it refuses to run ` +
        `as root; make the directories on that path world-traversable (chmod o+x) or set EARSHOT_ENGINES_DIR`,
    );
  }
}

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
