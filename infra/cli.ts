import { Command, InvalidArgumentError, Option } from 'commander';
import { AccountError, Accounts } from '../projections/state/accounts.ts';
import { migrate } from '../projections/state/migrations.ts';
import { StateStoreLockedError } from '../projections/state/pglite-state-store.ts';
import { adminClient, adminSocketPath } from './admin-socket.ts';
import { buildPlatform, createStateStore } from './composition.ts';
import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { replayGroup } from './operations.ts';
import { type OperatorActions, OperatorError, operatorActions } from './operator.ts';
import { startService } from './service.ts';

const program = new Command('earshot')
  .description('Earshot podcast intelligence service')
  .showHelpAfterError();

function config(overrides: Record<string, unknown> = {}) {
  return loadConfig(process.env, overrides);
}

function integer(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a non-negative integer');
  return n;
}

function timestamp(value: string): number {
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw new InvalidArgumentError('expected an ISO 8601 date-time');
  return t;
}

program
  .command('start')
  .description('run the service (all roles by default) with engines chosen by the environment')
  .option('--roles <roles>', 'all, or a comma-separated list of api,ingest,processors,projectors,senders')
  .option('--port <port>', 'HTTP port of the api role', integer)
  .action(async (opts: { roles?: string; port?: number }) => {
    const cfg = config({
      ...(opts.roles ? { EARSHOT_ROLES: opts.roles } : {}),
      ...(opts.port !== undefined ? { PORT: opts.port } : {}),
    });
    const logger = createLogger(cfg.env.LOG_LEVEL);
    const service = await startService(cfg, logger);
    const shutdown = async (signal: string) => {
      logger.info({ signal }, 'shutting down');
      await service.stop();
      process.exit(0);
    };
    process.once('SIGINT', () => void shutdown('SIGINT'));
    process.once('SIGTERM', () => void shutdown('SIGTERM'));
  });

const topics = program.command('topics').description('inspect and replay topics');

topics
  .command('list')
  .description('topics with partitions, earliest and end offsets')
  .option('--json', 'print JSON')
  .action(async (opts: { json?: boolean }) => {
    const cfg = config();
    const platform = await buildPlatform(cfg, createLogger('warn'));
    try {
      const list = await platform.eventLog.listTopics();
      if (opts.json) {
        console.log(JSON.stringify(list, null, 2));
        return;
      }
      const rows = list.map((t) => ({
        topic: t.name,
        partitions: t.partitions.length,
        records: t.partitions.reduce((s, p) => s + (p.end - p.earliest), 0),
        end: t.partitions.map((p) => p.end).join(','),
      }));
      console.table(rows);
    } finally {
      await platform.close();
    }
  });

topics
  .command('replay')
  .description("move a consumer group's committed offsets so it processes a topic again")
  .requiredOption('--topic <topic>', 'logical topic name (see `earshot topics list`)')
  .requiredOption('--group <group>', 'consumer group to move')
  .addOption(new Option('--from-offset <n>', 'offset to restart every partition from').argParser(integer))
  .addOption(
    new Option('--from-time <iso>', 'restart from the first record appended at or after this time').argParser(
      timestamp,
    ),
  )
  .action(async (opts: { topic: string; group: string; fromOffset?: number; fromTime?: number }) => {
    if ((opts.fromOffset === undefined) === (opts.fromTime === undefined)) {
      throw new InvalidArgumentError('give exactly one of --from-offset or --from-time');
    }
    const cfg = config();
    const platform = await buildPlatform(cfg, createLogger('warn'));
    try {
      const { offsets, toProcess } = await replayGroup(platform.eventLog, opts);
      console.log(
        `group ${opts.group} on ${opts.topic}: ${offsets.map((o) => `p${o.partition}@${o.offset}`).join(' ')}; ` +
          `${toProcess} records to process again`,
      );
      console.log('Members of the group pick the new offsets up when they (re)join the group.');
    } finally {
      await platform.close();
    }
  });

/** Runs operator actions in the running service (admin socket), or directly on the state store. */
async function withOperator<T>(fn: (ops: OperatorActions) => Promise<T>): Promise<T> {
  const cfg = config();
  const remote = await adminClient(adminSocketPath(cfg.dataDir));
  if (remote) return fn(remote);
  const state = createStateStore(cfg);
  try {
    await migrate(state);
    return await fn(operatorActions(new Accounts(state)));
  } finally {
    await state.close();
  }
}

const keys = program.command('keys').description('API keys (operators only; the API can never manage keys)');

keys
  .command('create')
  .description('mint an API key for a project; the full key is printed once')
  .requiredOption('--project <project>', 'project id or slug')
  .option('--name <name>', 'a label for the key', 'default')
  .action(async (opts: { project: string; name: string }) => {
    const { key, record } = await withOperator((ops) =>
      ops.createKey({ project: opts.project, name: opts.name }),
    );
    console.error(`key ${record.id} for project ${record.project_id} (shown once, store it now):`);
    console.log(key);
  });

keys
  .command('revoke')
  .description('revoke an API key; requests with it fail with 401 from then on')
  .argument('<keyId>', 'key id (key_…), as listed by `earshot keys list`')
  .action(async (keyId: string) => {
    const record = await withOperator((ops) => ops.revokeKey({ keyId }));
    console.log(`revoked ${record.id} (${record.display_prefix}…) of project ${record.project_id}`);
  });

keys
  .command('list')
  .description("a project's keys (prefixes only; full keys are never stored)")
  .requiredOption('--project <project>', 'project id or slug')
  .action(async (opts: { project: string }) => {
    const list = await withOperator((ops) => ops.listKeys({ project: opts.project }));
    console.table(
      list.map((k) => ({
        id: k.id,
        name: k.name,
        prefix: `${k.display_prefix}…`,
        created: new Date(k.created_at).toISOString(),
        last_used: k.last_used_at ? new Date(k.last_used_at).toISOString() : '',
        revoked: k.revoked_at ? new Date(k.revoked_at).toISOString() : '',
      })),
    );
  });

const orgs = program.command('orgs').description('organizations (operators)');
orgs
  .command('create')
  .requiredOption('--name <name>')
  .option('--slug <slug>')
  .action(async (opts: { name: string; slug?: string }) => {
    const org = await withOperator((ops) => ops.createOrganization(opts));
    console.log(`${org.id}\t${org.slug}\t${org.name}`);
  });

const projects = program.command('projects').description('projects and their plans (operators)');
projects
  .command('create')
  .requiredOption('--org <organization>', 'organization id or slug')
  .requiredOption('--name <name>')
  .option('--plan <plan>', 'starter, growth, team, business or enterprise', 'starter')
  .option('--slug <slug>')
  .action(async (opts: { org: string; name: string; plan: string; slug?: string }) => {
    const p = await withOperator((ops) =>
      ops.createProject({ organization: opts.org, name: opts.name, plan: opts.plan, slug: opts.slug }),
    );
    console.log(`${p.id}\t${p.slug}\tplan ${p.plan_code}`);
  });
projects
  .command('set-plan')
  .requiredOption('--project <project>')
  .requiredOption('--plan <plan>')
  .option('--alerts-packs <n>', 'Alerts Pack add-ons bought', integer)
  .action(async (opts: { project: string; plan: string; alertsPacks?: number }) => {
    const p = await withOperator((ops) => ops.setPlan(opts));
    console.log(`${p.id}\tplan ${p.plan_code}\talerts packs ${p.alerts_packs}`);
  });
projects
  .command('list')
  .requiredOption('--org <organization>')
  .action(async (opts: { org: string }) => {
    const list = await withOperator((ops) => ops.listProjects({ organization: opts.org }));
    console.table(list.map((p) => ({ id: p.id, slug: p.slug, name: p.name, plan: p.plan_code })));
  });

program
  .command('engines')
  .description(
    'start and stop real engines on this machine without Docker (Kafka, schema registry, OpenSearch, PostgreSQL)',
  )
  .argument('<command>', 'up | down | status | env | verify')
  .option('--only <engines>', 'comma-separated: kafka,schema-registry,opensearch,postgres')
  .option('--dir <dir>', 'state directory (default .engines/)')
  .action(async (command: string, opts: { only?: string; dir?: string }) => {
    const { runEnginesCli } = await import('./local/engines-cli.ts');
    await runEnginesCli([
      command,
      ...(opts.only ? ['--only', opts.only] : []),
      ...(opts.dir ? ['--dir', opts.dir] : []),
    ]);
  });

program
  .command('bench')
  .description('run the benchmark suite; prints a table and writes JSON to bench-results/')
  .argument('[names...]', 'only these benchmarks')
  .action(async (names: string[]) => {
    const { runBenches } = await import('../test/bench/run.ts');
    await runBenches({ only: names });
  });

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  if (
    err instanceof InvalidArgumentError ||
    err instanceof OperatorError ||
    err instanceof AccountError ||
    err instanceof StateStoreLockedError
  ) {
    console.error(`error: ${err.message}`);
    process.exit(2);
  }
  console.error(err);
  process.exit(1);
});
