import { Command, InvalidArgumentError, Option } from 'commander';
import { buildPlatform } from './composition.ts';
import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { replayGroup } from './operations.ts';
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
  if (err instanceof InvalidArgumentError) {
    console.error(`error: ${err.message}`);
    process.exit(2);
  }
  console.error(err);
  process.exit(1);
});
