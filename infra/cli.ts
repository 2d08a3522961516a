import { Command, InvalidArgumentError, Option } from 'commander';
import { ROLES } from '../processors/pipeline.ts';
import { registerAccountCommands } from './account-commands.ts';
import { integer, timestamp } from './cli-args.ts';
import { dataDirOf } from './data-dir.ts';
import { registerDlqCommands } from './dlq-commands.ts';
import { registerIngestCommands } from './ingest-commands.ts';
import type { OperatorActions } from './operator.ts';

/*
 * Every command loads what it needs when it runs (dynamic imports): `earshot --help` and the
 * operator commands against a running service must not pay for the whole service's modules.
 */

const program = new Command('earshot')
  .description('Earshot podcast intelligence service')
  .showHelpAfterError();

async function config(overrides: Record<string, unknown> = {}) {
  const { loadConfig } = await import('./config.ts');
  return loadConfig(process.env, overrides);
}

program
  .command('start')
  .description('run the service (all roles by default) with engines chosen by the environment')
  .option('--roles <roles>', `all, or a comma-separated list of ${ROLES.join(',')}`)
  .option('--port <port>', 'HTTP port of the api role', integer)
  .action(async (opts: { roles?: string; port?: number }) => {
    const cfg = await config({
      ...(opts.roles ? { EARSHOT_ROLES: opts.roles } : {}),
      ...(opts.port !== undefined ? { PORT: opts.port } : {}),
    });
    const [{ createLogger, logFormatFor }, { startService }] = await Promise.all([
      import('./logger.ts'),
      import('./service.ts'),
    ]);
    const logger = createLogger(cfg.env.LOG_LEVEL, 'earshot', undefined, logFormatFor(cfg.env.LOG_FORMAT));
    const starting = startService(cfg, logger);
    // Handlers go in before start-up completes: a signal while consumers are still joining their
    // groups waits for start-up and then stops cleanly (offsets committed, stores closed).
    const shutdown = async (signal: string) => {
      logger.info({ signal }, 'shutting down');
      const service = await starting.catch(() => undefined);
      await service?.stop();
      process.exit(0);
    };
    process.once('SIGINT', () => void shutdown('SIGINT'));
    process.once('SIGTERM', () => void shutdown('SIGTERM'));
    await starting;
  });

const topics = program.command('topics').description('inspect and replay topics');

topics
  .command('list')
  .description('topics with partitions, earliest and end offsets')
  .option('--json', 'print JSON')
  .action(async (opts: { json?: boolean }) => {
    const cfg = await config();
    const [{ buildPlatform }, { createLogger }] = await Promise.all([
      import('./composition.ts'),
      import('./logger.ts'),
    ]);
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
    const cfg = await config();
    const [{ buildPlatform }, { createLogger }, { replayGroup }] = await Promise.all([
      import('./composition.ts'),
      import('./logger.ts'),
      import('./operations.ts'),
    ]);
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
  // A running service is found by its admin socket in the data dir: the full configuration
  // (and what validating it loads) is only needed to open the state store directly.
  const { adminClient, adminSocketPath } = await import('./admin-socket.ts');
  const remote = await adminClient(adminSocketPath(dataDirOf(process.env.EARSHOT_DATA_DIR)));
  if (remote) return fn(remote);
  const cfg = await config();
  const [
    { createDelivery, createStateStore },
    { migrate },
    { Accounts },
    { IngestTokens },
    { CatalogReader },
    { operatorActions },
    { AccessTokens },
    { OAuthSigningKeyRows },
    { publicUrlOf },
    { PaymentLedger },
  ] = await Promise.all([
    import('./composition.ts'),
    import('../projections/state/migrations.ts'),
    import('../projections/state/accounts.ts'),
    import('../projections/state/ingest-tokens.ts'),
    import('../projections/catalog/catalog-reader.ts'),
    import('./operator.ts'),
    import('../api/oauth/access-tokens.ts'),
    import('../projections/state/oauth-keys.ts'),
    import('./config.ts'),
    import('../projections/state/payments.ts'),
  ]);
  const state = createStateStore(cfg);
  try {
    await migrate(state);
    const delivery = createDelivery(cfg, state, new CatalogReader(state));
    try {
      const signingKeys = new AccessTokens(new OAuthSigningKeyRows(state), delivery.box, publicUrlOf(cfg));
      return await fn(
        operatorActions(
          new Accounts(state),
          delivery,
          new IngestTokens(state),
          undefined,
          signingKeys,
          new PaymentLedger(state),
        ),
      );
    } finally {
      await delivery.close();
    }
  } finally {
    await state.close();
  }
}

const payments = program
  .command('payments')
  .description('payments taken per request without an account (x402 and the Payment scheme)');

payments
  .command('list')
  .description('the payments ledger, newest first: accepted payments and their settlement or release')
  .option('--limit <n>', 'how many (1-10000)', (v) => Number(v), 50)
  .option('--state <state>', 'only payments in this state: reserved, settled, released, failed')
  .option('--json', 'print JSON lines, each settled payment with its receipt header')
  .action(async (opts: { limit: number; state?: string; json?: boolean }) => {
    const list = await withOperator((ops) =>
      ops.listPayments({ limit: opts.limit, ...(opts.state ? { state: opts.state as 'settled' } : {}) }),
    );
    if (opts.json) {
      for (const p of list) console.log(JSON.stringify(p));
      return;
    }
    console.table(
      list.map((p) => ({
        id: p.id,
        protocol: p.protocol,
        state: p.state,
        cents: p.price_cents,
        payer: p.payer,
        resource: `${p.method} ${p.resource}`,
        tx: p.tx_hash ?? '',
        attempts: p.attempts,
        failure: p.failure ?? '',
        created: new Date(p.created_at).toISOString(),
      })),
    );
  });

const oauth = program.command('oauth').description('OAuth 2.1 for agent clients (operators)');
oauth
  .command('rotate-keys')
  .description(
    'a new key signs access tokens from now on; the previous ones stay published at the JWKS URI for an hour',
  )
  .action(async () => {
    const { kid, retired } = await withOperator((ops) => ops.rotateSigningKeys({}));
    console.log(
      `signing key ${kid} is current${retired.length ? `; retired ${retired.join(', ')} (published for another hour)` : ''}`,
    );
  });

registerAccountCommands(program, withOperator);

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

const chat = program
  .command('chat')
  .description('team-chat connections (operators; the dashboard install comes later)');
chat
  .command('connect')
  .description("register a workspace with a bot token; the token is checked with the platform's auth.test")
  .requiredOption('--project <project>', 'project id or slug')
  .requiredOption('--token <token>', 'bot token, or - to read it from stdin')
  .option('--name <name>', 'a label (default: the workspace name)')
  .action(async (opts: { project: string; token: string; name?: string }) => {
    let token = opts.token;
    if (token === '-') {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      token = Buffer.concat(chunks).toString('utf8').trim();
    }
    const c = await withOperator((ops) => ops.connectChat({ project: opts.project, token, name: opts.name }));
    console.log(
      `${c.id}\t${c.name}\tworkspace ${c.team_name ?? '?'} (${c.team_id ?? '?'})\tproject ${c.project_id}`,
    );
  });
chat
  .command('list')
  .description("a project's team-chat connections")
  .requiredOption('--project <project>', 'project id or slug')
  .action(async (opts: { project: string }) => {
    const list = await withOperator((ops) => ops.listChatConnections({ project: opts.project }));
    console.table(
      list.map((c) => ({
        id: c.id,
        name: c.name,
        workspace: c.team_name ?? '',
        token: `${c.token_prefix}…`,
        created: new Date(c.created_at).toISOString(),
      })),
    );
  });

const webhooks = program.command('webhooks').description('webhooks on this machine');
webhooks
  .command('listen')
  .description(
    "receive a project's webhooks here: a local receiver on 127.0.0.1, the project's listen connection " +
      "pointed at it, let through the running service's outbound guard while this runs; every signature " +
      'is checked and each event printed',
  )
  .requiredOption('--project <project>', 'project id or slug')
  .option('--port <port>', 'port of the receiver (default: any free port)', integer, 0)
  .option('--json', 'print each event as one JSON object per line')
  .action(async (opts: { project: string; port: number; json?: boolean }) => {
    const { listenForWebhooks } = await import('./webhooks-listen.ts');
    await listenForWebhooks({ project: opts.project, port: opts.port, json: opts.json ?? false });
    process.exit(0);
  });

const models = program.command('models').description('the local embeddings model (semantic search)');
models
  .command('fetch')
  .description(
    'download the local model (EARSHOT_EMBEDDINGS_LOCAL_MODEL, default all-MiniLM-L6-v2; ONNX + tokenizer) into the models cache unless it is there',
  )
  .action(async () => {
    const { fetchModel } = await import('../projections/embeddings/model-fetch.ts');
    const { modelsDir } = await import('./composition.ts');
    let lastMb = -1;
    const cfg = await config();
    const fetched = await fetchModel({
      modelsDir: modelsDir(cfg),
      model: cfg.env.EARSHOT_EMBEDDINGS_LOCAL_MODEL,
      onProgress: (p) => {
        const mb = Math.floor(p.receivedBytes / 2 ** 20);
        if (p.done || mb >= lastMb + 10) {
          lastMb = mb;
          const total = p.totalBytes ? ` of ${(p.totalBytes / 2 ** 20).toFixed(0)}` : '';
          console.error(`  ${p.source}: ${mb} MB${total}${p.done ? ' done' : ''}`);
        }
      },
    });
    const m = fetched.manifest;
    console.log(
      `${m.model} ${fetched.fromCache ? 'already cached' : 'fetched'} in ${fetched.dir} (from ${m.source}: ${m.artifact ?? m.origin})`,
    );
  });

registerIngestCommands(program, () => config());
registerDlqCommands(program, () => config());

program
  .command('projections')
  .description('read models built from the event log alone (catalog, search, analytics)')
  .command('rebuild')
  .description(
    'empty projections and move their consumer groups back to the start of the log; the projectors ' +
      'write them again when the service next starts. Run it with the service stopped.',
  )
  .argument(
    '<names...>',
    'projections to rebuild (catalog, search, analytics, …; an unknown name lists them), or all',
  )
  .action(async (names: string[]) => {
    const [{ rebuildProjections }, { createLogger }] = await Promise.all([
      import('./projections.ts'),
      import('./logger.ts'),
    ]);
    const reports = await rebuildProjections(await config(), names, createLogger('error'), (msg) =>
      console.error(msg),
    );
    for (const r of reports) {
      console.log(
        `${r.projection}: ${r.cleared}; ${r.groups.map((g) => g.group).join(', ')} back at the start: ` +
          `${r.toProcess} records to process again`,
      );
    }
    console.log(
      'Start the service (or its projectors role) to write them again; /readyz answers 200 once they have.',
    );
  });

const cluster = program
  .command('cluster')
  .description('several processes of each role on this machine, against the engines `engines up` runs');
cluster
  .command('up')
  .description('start instances of each role (each with its data dir, log and pid file under --dir)')
  .option('--api <n>', 'api instances', integer, 1)
  .option(
    '--ingest <n>',
    'ingest instances (HTTP batch ingest on a port of their own, feed poller)',
    integer,
    0,
  )
  .option('--processors <n>', 'processors instances', integer, 1)
  .option('--projectors <n>', 'projectors instances', integer, 1)
  .option('--senders <n>', 'senders instances', integer, 1)
  .option('--mcp <n>', 'mcp (agent-tool server) instances', integer, 0)
  .option('--dir <dir>', 'cluster directory (default .cluster/, or EARSHOT_CLUSTER_DIR)')
  .option(
    '--base-port <port>',
    'first port: the analytics stand-in, then one per api, ingest and mcp instance',
    integer,
    23100,
  )
  .action(async (opts: Record<string, number> & { dir?: string; basePort: number }) => {
    const { clusterUp } = await import('./cluster.ts');
    const t0 = Date.now();
    const state = await clusterUp({
      counts: {
        api: opts.api,
        ingest: opts.ingest,
        processors: opts.processors,
        projectors: opts.projectors,
        senders: opts.senders,
        mcp: opts.mcp,
      },
      ...(opts.dir ? { dir: opts.dir } : {}),
      basePort: opts.basePort,
      onProgress: (msg) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${msg}`),
    });
    const apis = state.instances.filter((i) => i.role === 'api').map((i) => `http://127.0.0.1:${i.port}`);
    const mcps = state.instances.filter((i) => i.role === 'mcp').map((i) => `http://127.0.0.1:${i.port}/mcp`);
    const ingests = state.instances
      .filter((i) => i.role === 'ingest')
      .map((i) => `http://127.0.0.1:${i.port}/v1/ingest/batches`);
    console.log(
      `cluster up in ${state.dir}: ${state.instances.length} processes; API at ${apis.join(', ') || '-'}${ingests.length > 0 ? `; HTTP batch ingest at ${ingests.join(', ')}` : ''}${mcps.length > 0 ? `; agent-tool servers at ${mcps.join(', ')}` : ''}`,
    );
  });
cluster
  .command('down')
  .description('stop exactly the processes `cluster up` started (SIGTERM, SIGKILL after 20 s)')
  .option('--dir <dir>', 'cluster directory')
  .action(async (opts: { dir?: string }) => {
    const { clusterDown } = await import('./cluster.ts');
    const n = await clusterDown({
      ...(opts.dir ? { dir: opts.dir } : {}),
      onProgress: (m) => console.log(m),
    });
    console.log(n > 0 ? `stopped ${n} processes` : 'no cluster processes running');
  });
cluster
  .command('status')
  .description('each instance: state, pid, port, the partitions it holds and their lag; each consumer group')
  .option('--dir <dir>', 'cluster directory')
  .option('--json', 'print JSON')
  .action(async (opts: { dir?: string; json?: boolean }) => {
    const { clusterStatus, formatClusterStatus } = await import('./cluster.ts');
    const status = await clusterStatus(opts.dir ? { dir: opts.dir } : {});
    if (!status) {
      console.error('no cluster here: `earshot cluster up` first');
      process.exitCode = 1;
      return;
    }
    console.log(opts.json ? JSON.stringify(status, null, 2) : formatClusterStatus(status));
  });
cluster
  .command('restart')
  .description('start one instance again as it was started (stopping it first if it runs)')
  .argument('<instance>', 'e.g. processors-2')
  .option('--dir <dir>', 'cluster directory')
  .action(async (name: string, opts: { dir?: string }) => {
    const { clusterRestart } = await import('./cluster.ts');
    const inst = await clusterRestart({ name, ...(opts.dir ? { dir: opts.dir } : {}) });
    console.log(`${inst.name}: up (pid ${inst.pid})`);
  });

program
  .command('bench')
  .description('run the benchmark suite; prints a table and writes JSON to bench-results/')
  .argument('[names...]', 'only these benchmarks')
  .action(async (names: string[]) => {
    // The suite lives with the tests (`npm run bench` runs test/bench/run.ts itself). It is loaded
    // by path when asked for, so the service's modules never import test code.
    const runner = new URL('../test/bench/run.ts', import.meta.url);
    const { runBenches } = (await import(runner.href)) as {
      runBenches(options: { only?: string[] }): Promise<unknown>;
    };
    await runBenches({ only: names });
  });

/** Errors the operator can fix (exit 2, one line); anything else is a bug (exit 1, the stack). */
async function isUsageError(err: unknown): Promise<boolean> {
  if (err instanceof InvalidArgumentError) return true;
  const [
    { OperatorError },
    { AccountError },
    { StateStoreLockedError },
    { ProjectionError },
    { DeadLetterError },
  ] = await Promise.all([
    import('./operator.ts'),
    import('../projections/state/accounts.ts'),
    import('../projections/state/pglite-state-store.ts'),
    import('./projections.ts'),
    import('../processors/dead-letters.ts'),
  ]);
  return (
    err instanceof OperatorError ||
    err instanceof OperatorError ||
    err instanceof AccountError ||
    err instanceof StateStoreLockedError ||
    err instanceof ProjectionError ||
    err instanceof DeadLetterError
  );
}

program.parseAsync(process.argv).catch(async (err: unknown) => {
  const { ConfigError } = await import('./config.ts');
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  if (await isUsageError(err)) {
    console.error(`error: ${(err as Error).message}`);
    process.exit(2);
  }
  console.error(err);
  process.exit(1);
});
