// Kafka 3.9 single-node KRaft broker+controller from Maven Central jars (no distribution tarball).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { type Engine, type EngineContext, envPort, LOCALHOST } from './engine.ts';
import { buildOnce, copyDependencies, javaFor } from './java.ts';
import { run, spawnDetached } from './process.ts';

export const KAFKA_VERSION = '3.9.2'; // keep in step with kafka/pom.xml
const POM = fileURLToPath(new URL('./kafka/pom.xml', import.meta.url));

const port = () => envPort('EARSHOT_KAFKA_PORT', 9092);
const controllerPort = () => envPort('EARSHOT_KAFKA_CONTROLLER_PORT', 9093);
const libDir = (ctx: EngineContext) => join(ctx.home, `lib-${KAFKA_VERSION}`);

function serverProperties(ctx: EngineContext): string {
  return [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@${LOCALHOST}:${controllerPort()}`,
    `listeners=PLAINTEXT://${LOCALHOST}:${port()},CONTROLLER://${LOCALHOST}:${controllerPort()}`,
    `advertised.listeners=PLAINTEXT://${LOCALHOST}:${port()}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    `log.dirs=${ctx.dataDir}`,
    'num.partitions=1',
    'offsets.topic.replication.factor=1',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'group.initial.rebalance.delay.ms=0',
    'auto.create.topics.enable=false',
    // Kafka is the source of truth: keep events unless a topic says otherwise.
    'log.retention.ms=-1',
    '',
  ].join('\n');
}

const LOG4J = [
  'log4j.rootLogger=INFO, stdout',
  'log4j.appender.stdout=org.apache.log4j.ConsoleAppender',
  'log4j.appender.stdout.layout=org.apache.log4j.PatternLayout',
  'log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n',
  'log4j.logger.kafka.request.logger=WARN',
  'log4j.logger.state.change.logger=WARN',
  '',
].join('\n');

/** A Kafka cluster id: 16 random bytes, base64url without padding, not starting with '-'. */
function clusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

export const kafka: Engine = {
  name: 'kafka',
  version: KAFKA_VERSION,
  ports: () => [port(), controllerPort()],
  url: () => `${LOCALHOST}:${port()}`,
  env: () => ({ KAFKA_BROKERS: `${LOCALHOST}:${port()}` }),
  readyTimeoutMs: 90_000,
  stop: { signal: 'SIGTERM', graceMs: 30_000 },

  async prepare(ctx) {
    await javaFor('Kafka', 11);
    const lib = libDir(ctx);
    const built = await buildOnce(lib, async (tmp) => {
      ctx.progress(`resolving org.apache.kafka:kafka_2.13:${KAFKA_VERSION} from Maven Central`);
      await copyDependencies(POM, tmp, {}, { workDir: join(ctx.root, '.maven'), logFile: ctx.logFile });
    });
    if (!built) ctx.progress(`using cached jars in ${lib}`);
    writeFileSync(join(ctx.home, 'server.properties'), serverProperties(ctx));
    writeFileSync(join(ctx.home, 'log4j.properties'), LOG4J);
    if (!existsSync(join(ctx.dataDir, 'meta.properties'))) {
      mkdirSync(ctx.dataDir, { recursive: true });
      ctx.progress('formatting KRaft storage');
      const java = await javaFor('Kafka', 11);
      await run(
        java.bin,
        [
          `-Dlog4j.configuration=file:${join(ctx.home, 'log4j.properties')}`,
          '-cp',
          join(lib, '*'),
          'kafka.tools.StorageTool',
          'format',
          '-t',
          clusterId(),
          '-c',
          join(ctx.home, 'server.properties'),
        ],
        { logFile: ctx.logFile },
      );
    }
    return KAFKA_VERSION;
  },

  async start(ctx) {
    const java = await javaFor('Kafka', 11);
    const heap = process.env.EARSHOT_KAFKA_HEAP ?? '1g';
    return spawnDetached({
      cmd: java.bin,
      args: [
        '-Xms256m',
        `-Xmx${heap}`,
        '-XX:+UseG1GC',
        '-Djava.awt.headless=true',
        `-Dlog4j.configuration=file:${join(ctx.home, 'log4j.properties')}`,
        '-cp',
        join(libDir(ctx), '*'),
        'kafka.Kafka',
        join(ctx.home, 'server.properties'),
      ],
      cwd: ctx.home,
      env: process.env,
      logFile: ctx.logFile,
      pidFile: ctx.pidFile,
      tag: ctx.tag,
    });
  },

  /** A real metadata round trip, not just an open port. */
  async ready() {
    const admin = new Kafka({
      clientId: 'earshot-engines',
      brokers: [`${LOCALHOST}:${port()}`],
      logLevel: logLevel.NOTHING,
      connectionTimeout: 1_000,
      requestTimeout: 2_000,
      retry: { retries: 0 },
    }).admin();
    try {
      await admin.connect();
      const cluster = await admin.describeCluster();
      await admin.listTopics();
      return cluster.brokers.length > 0;
    } finally {
      await admin.disconnect().catch(() => {});
    }
  },
};
