import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GroupMembers, PartitionLag } from '../ingest/event-log/event-log.ts';
import { KafkaEventLog } from '../ingest/event-log/kafka-event-log.ts';
import { ROLES, type Role } from '../processors/pipeline.ts';
import { enginesEnv } from './local/engines.ts';
import { isOurProcess, spawnDetached, stopByPidFile, waitUntil } from './local/process.ts';
import { silentLogger } from './logger.ts';

/**
 * `earshot cluster up|down|status|restart`: several processes of each role on this machine,
 * against the engines `npm run engines:up` runs (Kafka, schema registry, OpenSearch,
 * PostgreSQL), as a deployment would run them on several machines. Each instance is an
 * `earshot start --roles <role>` with a data dir, a log and a pid file of its own under the
 * cluster dir, and its own Kafka client id (`earshot-<role>-<n>`: how `status` finds its
 * partitions). What the instances share they share through the engines, plus:
 *
 * - the analytics store: `CLICKHOUSE_URL` when set; otherwise the ClickHouse HTTP *test
 *   stand-in* (test/support/clickhouse-standin-main.ts, chdb behind the HTTP interface, never in
 *   the image) started as one more process, so every instance reads and writes one store;
 * - one secrets key (`EARSHOT_SECRETS_KEY`, generated into the cluster dir with mode 0600): a
 *   webhook secret sealed by an API instance must open in every sender.
 */

/** Roles in the order their instances start (consumers before the API that feeds them). */
const START_ORDER: Role[] = ['processors', 'projectors', 'senders', 'ingest', 'api', 'mcp'];
const REQUIRED = ['KAFKA_BROKERS', 'SCHEMA_REGISTRY_URL', 'DATABASE_URL', 'OPENSEARCH_URL'] as const;
const STATE_FILE = 'cluster.json';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STAND_IN_MAIN = path.join(ROOT, 'test/support/clickhouse-standin-main.ts');

export interface ClusterInstance {
  /** `api-1`, `processors-2`, `clickhouse-standin`. */
  name: string;
  role: Role | 'clickhouse-standin';
  pid: number;
  pidFile: string;
  log: string;
  /** HTTP port (api instances, the stand-in). */
  port?: number;
  /** Kafka client id (role instances). */
  clientId?: string;
  /** What the instance was started with (without the secrets key), for `restart`. */
  cmd: string;
  args: string[];
  env: Record<string, string>;
}

export interface ClusterState {
  dir: string;
  startedAt: string;
  clickhouse: { url: string; standIn: boolean };
  instances: ClusterInstance[];
}

export type ClusterCounts = Partial<Record<Role, number>>;

export function clusterDir(dir?: string): string {
  return path.resolve(dir ?? process.env.EARSHOT_CLUSTER_DIR ?? path.join(ROOT, '.cluster'));
}

export function readClusterState(dir: string): ClusterState | undefined {
  const file = path.join(dir, STATE_FILE);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ClusterState) : undefined;
}

function writeState(state: ClusterState): void {
  writeFileSync(path.join(state.dir, STATE_FILE), `${JSON.stringify(state, null, 2)}\n`);
}

const tagOf = (name: string) => `cluster:${name}`;

function secretsKey(dir: string): string {
  const file = path.join(dir, 'secrets.key');
  if (!existsSync(file)) {
    writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  return readFileSync(file, 'utf8').trim();
}

/** The engines' variables: the environment's, else those of the engines `engines up` started. */
function engineVariables(): Record<string, string> {
  const env: Record<string, string> = { ...enginesEnv() };
  for (const k of [...REQUIRED, 'CLICKHOUSE_URL'] as const) if (process.env[k]) env[k] = process.env[k]!;
  const missing = REQUIRED.filter((k) => !env[k]);
  if (missing.length > 0) {
    throw new Error(`${missing.join(', ')} unset and no engines running: run \`npm run engines:up\` first`);
  }
  return env;
}

async function answers(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  return res.ok;
}

/** Where each instance's log ended when this process last started it (its later lines are this run's). */
const logStart = new Map<string, number>();

/** What the instance's log holds since it was last started (at most the last 256 KB). */
function logSinceStart(inst: ClusterInstance): string {
  if (!existsSync(inst.log)) return '';
  const size = statSync(inst.log).size;
  const from = Math.max(logStart.get(inst.name) ?? 0, size - 256 * 1024);
  const buf = Buffer.alloc(Math.max(0, size - from));
  const fd = openSync(inst.log, 'r');
  try {
    readSync(fd, buf, 0, buf.length, from);
  } finally {
    closeSync(fd);
  }
  return buf.toString('utf8');
}

function spawnInstance(inst: Omit<ClusterInstance, 'pid'>, secrets: string): ClusterInstance {
  logStart.set(inst.name, existsSync(inst.log) ? statSync(inst.log).size : 0);
  const pid = spawnDetached({
    cmd: inst.cmd,
    args: inst.args,
    cwd: ROOT,
    env: { ...process.env, ...inst.env, EARSHOT_SECRETS_KEY: secrets },
    logFile: inst.log,
    pidFile: inst.pidFile,
    tag: tagOf(inst.name),
  });
  return { ...inst, pid };
}

/**
 * Waits until the instance is up: the API answers /healthz, the agent-tool server its metadata,
 * a pipeline role logged its start.
 */
async function waitStarted(inst: ClusterInstance, timeoutMs: number): Promise<void> {
  await waitUntil(
    async () => {
      if (inst.role === 'clickhouse-standin') return answers(`http://127.0.0.1:${inst.port}/ping`);
      // The API, and HTTP batch ingest on an ingest instance, answer /healthz once they listen.
      if (inst.role === 'api' || inst.role === 'ingest')
        return answers(`http://127.0.0.1:${inst.port}/healthz`);
      // The agent-tool server answers its protected-resource metadata once it listens.
      if (inst.role === 'mcp')
        return answers(`http://127.0.0.1:${inst.port}/.well-known/oauth-protected-resource`);
      return /"msg":"earshot started"/.test(logSinceStart(inst));
    },
    { what: inst.name, timeoutMs, pid: inst.pid, logFile: inst.log, intervalMs: 300 },
  );
}

export async function clusterUp(opts: {
  counts: ClusterCounts;
  dir?: string;
  /** First port of the range: the stand-in takes it, then API, ingest and agent-tool instances. */
  basePort: number;
  onProgress?: (msg: string) => void;
  timeoutMs?: number;
  /** More variables for every instance (a scratch database, a topic prefix, an allowlist). */
  env?: Record<string, string>;
}): Promise<ClusterState> {
  const dir = clusterDir(opts.dir);
  const progress = opts.onProgress ?? (() => {});
  mkdirSync(dir, { recursive: true });
  const previous = readClusterState(dir);
  if (previous?.instances.some((i) => isOurProcess(i.pid, tagOf(i.name)))) {
    throw new Error(`a cluster is already up in ${dir}: \`earshot cluster down\` first`);
  }
  const unknown = Object.keys(opts.counts).filter((r) => !(ROLES as readonly string[]).includes(r));
  if (unknown.length > 0) throw new Error(`no role ${unknown.join(', ')} in this version`);
  const engines = { ...engineVariables(), ...opts.env };
  const secrets = secretsKey(dir);
  const timeoutMs = opts.timeoutMs ?? 180_000;
  const state: ClusterState = {
    dir,
    startedAt: new Date().toISOString(),
    clickhouse: { url: engines.CLICKHOUSE_URL ?? '', standIn: !engines.CLICKHOUSE_URL },
    instances: [],
  };
  writeState(state);
  const started: ClusterInstance[] = [];
  const launch = async (inst: Omit<ClusterInstance, 'pid'>) => {
    const running = spawnInstance(inst, secrets);
    state.instances.push(running);
    writeState(state);
    started.push(running);
    progress(`${inst.name}: started (pid ${running.pid}, log ${inst.log})`);
    return running;
  };

  if (state.clickhouse.standIn) {
    const port = opts.basePort;
    const standIn = await launch({
      name: 'clickhouse-standin',
      role: 'clickhouse-standin',
      pidFile: path.join(dir, 'clickhouse-standin.pid'),
      log: path.join(dir, 'clickhouse-standin.log'),
      port,
      cmd: process.execPath,
      args: [
        '--import',
        'tsx',
        STAND_IN_MAIN,
        '--dir',
        path.join(dir, 'clickhouse-standin'),
        '--port',
        String(port),
      ],
      env: {},
    });
    await waitStarted(standIn, 60_000);
    state.clickhouse.url = `http://127.0.0.1:${port}/earshot`;
    writeState(state);
    progress(
      `analytics: the ClickHouse HTTP test stand-in (chdb) at ${state.clickhouse.url} — a test tool, not a server`,
    );
  }

  // Ports after the stand-in's: API instances (PORT), ingest instances (PORT: HTTP batch
  // ingest), then agent-tool servers (MCP_PORT; never its default 8081, which is the schema
  // registry's here).
  const ports = new Map<string, number>();
  let nextPort = opts.basePort + 1;
  for (const role of ['api', 'ingest', 'mcp'] as const) {
    for (let n = 1; n <= (opts.counts[role] ?? 0); n++) ports.set(`${role}-${n}`, nextPort++);
  }
  const addresses = linkedAddresses(ports, { ...process.env, ...engines });
  for (const role of START_ORDER) {
    const count = opts.counts[role] ?? 0;
    for (let n = 1; n <= count; n++) {
      const name = `${role}-${n}`;
      const port = ports.get(name);
      const env: Record<string, string> = {
        ...engines,
        CLICKHOUSE_URL: state.clickhouse.url,
        EARSHOT_DATA_DIR: path.join(dir, name),
        EARSHOT_ROLES: role,
        KAFKA_CLIENT_ID: `earshot-${name}`,
        LOG_FORMAT: 'json',
        HOST: '127.0.0.1',
        ...((role === 'api' || role === 'ingest') && port !== undefined ? { PORT: String(port) } : {}),
        // Every instance serving HTTP batch ingest shares one ingest state (LMDB, one machine):
        // a record is known, deduplicated and recovered after a kill whichever instance took it.
        ...(role === 'api' || role === 'ingest'
          ? { EARSHOT_INGEST_STATE_DIR: path.join(dir, 'ingest-state') }
          : {}),
        // One instance loads the demo corpus (on empty topics); the others would load it again.
        ...(role === 'ingest' && n > 1 ? { EARSHOT_DEMO: 'off' } : {}),
        ...(role === 'mcp' && port !== undefined ? { MCP_PORT: String(port) } : {}),
        ...(role === 'api' ? addresses.api : {}),
        ...(role === 'mcp' ? addresses.mcp : {}),
      };
      await launch({
        name,
        role,
        pidFile: path.join(dir, `${name}.pid`),
        log: path.join(dir, `${name}.log`),
        ...(port !== undefined ? { port } : {}),
        clientId: `earshot-${name}`,
        cmd: process.execPath,
        args: ['--max-semi-space-size=64', path.join(ROOT, 'bin/earshot.js'), 'start'],
        env,
      });
    }
  }
  for (const inst of started) {
    if (inst.role === 'clickhouse-standin') continue;
    await waitStarted(inst, timeoutMs);
    progress(`${inst.name}: up`);
  }
  return state;
}

/**
 * The addresses the API and agent-tool instances name each other by, unless the environment
 * sets them (a load balancer in front): the API instances name `mcp-1` as the agent-tool
 * server (`{mcp_url}` in their docs, the OAuth resource they issue tokens for), and the
 * agent-tool instances name `api-1` as the API and authorization server. Each agent-tool
 * instance keeps its own address as its resource, so an access token is for one instance;
 * API keys work on every instance. All of them get `RATE_LIMIT_INSTANCES`, their number.
 */
function linkedAddresses(
  ports: Map<string, number>,
  env: Record<string, string | undefined>,
): { api: Record<string, string>; mcp: Record<string, string> } {
  const api: Record<string, string> = {};
  const mcp: Record<string, string> = {};
  const mcp1 = ports.get('mcp-1');
  const api1 = ports.get('api-1');
  if (mcp1 !== undefined && !env.EARSHOT_MCP_URL) api.EARSHOT_MCP_URL = `http://127.0.0.1:${mcp1}/mcp`;
  if (api1 !== undefined && !env.EARSHOT_PUBLIC_URL) mcp.EARSHOT_PUBLIC_URL = `http://127.0.0.1:${api1}`;
  // Rate-limit counters are per process: each of the N serving instances allows ⌈limit ÷ N⌉
  // (ingest instances have no per-minute limit: not counted).
  const serving = [...ports.keys()].filter((name) => !name.startsWith('ingest-')).length;
  if (!env.RATE_LIMIT_INSTANCES && serving > 1) {
    api.RATE_LIMIT_INSTANCES = mcp.RATE_LIMIT_INSTANCES = String(serving);
  }
  return { api, mcp };
}

/** Stops exactly the processes the cluster dir records (SIGTERM, SIGKILL after 20 s). */
export async function clusterDown(opts: {
  dir?: string;
  onProgress?: (msg: string) => void;
}): Promise<number> {
  const dir = clusterDir(opts.dir);
  const state = readClusterState(dir);
  if (!state) return 0;
  let stopped = 0;
  // The API first (no new work), the stand-in last (projectors write to it while they stop).
  const order = [...state.instances].reverse();
  await Promise.all(
    order
      .filter((i) => i.role !== 'clickhouse-standin')
      .map(async (inst) => {
        if (await stopByPidFile(inst.pidFile, tagOf(inst.name))) {
          stopped++;
          opts.onProgress?.(`${inst.name}: stopped`);
        }
      }),
  );
  for (const inst of order.filter((i) => i.role === 'clickhouse-standin')) {
    if (await stopByPidFile(inst.pidFile, tagOf(inst.name))) {
      stopped++;
      opts.onProgress?.(`${inst.name}: stopped`);
    }
  }
  rmSync(path.join(dir, STATE_FILE), { force: true });
  return stopped;
}

/** Starts an instance again with what it was started with (after a crash, or to move partitions). */
export async function clusterRestart(opts: {
  dir?: string;
  name: string;
  timeoutMs?: number;
}): Promise<ClusterInstance> {
  const dir = clusterDir(opts.dir);
  const state = readClusterState(dir);
  const inst = state?.instances.find((i) => i.name === opts.name);
  if (!state || !inst) throw new Error(`no instance ${opts.name} in ${dir}`);
  await stopByPidFile(inst.pidFile, tagOf(inst.name));
  const running = spawnInstance(inst, secretsKey(dir));
  state.instances[state.instances.indexOf(inst)] = running;
  writeState(state);
  await waitStarted(running, opts.timeoutMs ?? 180_000);
  return running;
}

export interface InstanceStatus {
  name: string;
  role: string;
  pid: number;
  alive: boolean;
  port?: number;
  /** group → partitions this instance holds, as `topic:partition` */
  partitions: Record<string, string[]>;
  /** Records not yet committed on the partitions this instance holds. */
  lag: number;
}

export interface ClusterStatus {
  dir: string;
  clickhouse: ClusterState['clickhouse'];
  instances: InstanceStatus[];
  /** group → total lag (all partitions, held or not) */
  groups: Record<string, { lag: number; members: number }>;
}

export async function clusterStatus(opts: { dir?: string }): Promise<ClusterStatus | undefined> {
  const dir = clusterDir(opts.dir);
  const state = readClusterState(dir);
  if (!state) return undefined;
  const roleInstance = state.instances.find((i) => i.clientId);
  const brokers = roleInstance?.env.KAFKA_BROKERS ?? process.env.KAFKA_BROKERS;
  let groups: GroupMembers[] = [];
  const lags = new Map<string, PartitionLag[]>();
  if (brokers) {
    const log = new KafkaEventLog({
      brokers: brokers.split(','),
      clientId: 'earshot-cluster-status',
      topicPrefix: roleInstance?.env.EARSHOT_TOPIC_PREFIX ?? '',
      logger: silentLogger(),
    });
    try {
      // Only this cluster's members: the log lists the groups under the cluster's prefix, and
      // another cluster with the same prefix (a second cluster dir) has other client ids.
      const ours = new Set(state.instances.map((i) => i.clientId).filter(Boolean));
      groups = (await log.groupMembers())
        .map((g) => ({ ...g, members: g.members.filter((m) => ours.has(m.clientId)) }))
        .filter((g) => g.members.length > 0);
      for (const g of groups) {
        const topics = [...new Set(g.members.flatMap((m) => m.assignment.map((a) => a.topic)))];
        if (topics.length > 0) lags.set(g.groupId, await log.groupLag(g.groupId, topics));
      }
    } finally {
      await log.close();
    }
  }
  const instances = state.instances.map((inst): InstanceStatus => {
    const partitions: Record<string, string[]> = {};
    let lag = 0;
    for (const g of groups) {
      const held = g.members.filter((m) => m.clientId === inst.clientId).flatMap((m) => m.assignment);
      if (held.length === 0) continue;
      partitions[g.groupId] = held.map((a) => `${a.topic}:${a.partition}`).sort();
      for (const a of held) {
        lag += lags.get(g.groupId)?.find((l) => l.topic === a.topic && l.partition === a.partition)?.lag ?? 0;
      }
    }
    return {
      name: inst.name,
      role: inst.role,
      pid: inst.pid,
      alive: isOurProcess(inst.pid, tagOf(inst.name)),
      ...(inst.port !== undefined ? { port: inst.port } : {}),
      partitions,
      lag,
    };
  });
  const byGroup: ClusterStatus['groups'] = {};
  for (const g of groups) {
    byGroup[g.groupId] = {
      lag: (lags.get(g.groupId) ?? []).reduce((sum, l) => sum + l.lag, 0),
      members: g.members.length,
    };
  }
  return { dir, clickhouse: state.clickhouse, instances, groups: byGroup };
}

/** The status as a table: one line per instance, then one per consumer group. */
export function formatClusterStatus(status: ClusterStatus): string {
  const rows = status.instances.map((i) => {
    const held = Object.values(i.partitions).flat();
    const numbers = [...new Set(held.map((p) => p.slice(p.lastIndexOf(':') + 1)))].sort(
      (a, b) => Number(a) - Number(b),
    );
    return [
      i.name,
      i.alive ? 'up' : 'down',
      String(i.pid),
      i.port !== undefined ? String(i.port) : '-',
      String(Object.keys(i.partitions).length),
      held.length > 0 ? `${held.length} (p ${numbers.join(',')})` : '-',
      i.role === 'clickhouse-standin' ? '-' : String(i.lag),
    ];
  });
  const table = (all: string[][]) => {
    const widths = all[0]!.map((_, c) => Math.max(...all.map((r) => r[c]!.length)));
    return all.map((r) => r.map((cell, c) => cell.padEnd(widths[c]!)).join('  ')).join('\n');
  };
  const groups = Object.entries(status.groups)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([g, v]) => [g, String(v.members), String(v.lag)]);
  return [
    `cluster ${status.dir}; analytics ${status.clickhouse.url}${status.clickhouse.standIn ? ' (ClickHouse HTTP test stand-in on chdb)' : ''}`,
    table([['instance', 'state', 'pid', 'port', 'groups', 'partitions', 'lag'], ...rows]),
    '',
    table([['group', 'members', 'lag'], ...groups]),
  ].join('\n');
}
