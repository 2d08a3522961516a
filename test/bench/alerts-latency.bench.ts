import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { silentLogger } from '../../infra/logger.ts';
import { LmdbEventLog } from '../../ingest/event-log/lmdb-event-log.ts';
import { EventProducer } from '../../ingest/event-producer.ts';
import { AvroCodec } from '../../ingest/schema-registry/avro-codec.ts';
import { LmdbSchemaRegistry } from '../../ingest/schema-registry/lmdb-schema-registry.ts';
import { AlertsRuntime } from '../../processors/alerts/alerts-pipeline.ts';
import { ConsumerRunner, type ProcessorDefinition } from '../../processors/consumer-runner.ts';
import { createDeliveryKit, createDispatcher, senderSchedulerStep } from '../../processors/delivery/kit.ts';
import { RetrySchedule } from '../../processors/delivery/retry-schedule.ts';
import { StateDeliveryContent } from '../../processors/delivery/state-content.ts';
import { deliveryAttemptsProjector } from '../../projections/alerts/delivery-attempts-projector.ts';
import { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import { Accounts } from '../../projections/state/accounts.ts';
import { migrate } from '../../projections/state/migrations.ts';
import { PgliteStateStore } from '../../projections/state/pglite-state-store.ts';
import { allTopicSpecs, TOPICS } from '../../schemas/topics.ts';
import { episodeEvents } from '../support/alerts.ts';
import { tempDir } from '../support/temp-dir.ts';
import { type Bench, type BenchResult, percentile } from './bench.ts';

const ALERTS = 10_000;
const ENTITIES = 20_000;
const EPISODES = 120;
const EPISODES_PER_SECOND = 4;
const ENTITIES_PER_EPISODE = 10;

function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Alerts end to end on embedded engines with 10,000 active realtime alerts, each notifying a
 * webhook connection to a local receiver: episodes arrive at a steady rate (episode, speakers and
 * transcript, then the mentions detected in it); each runs through the matcher, the delivery
 * planner, the match projection, the senders' schedule and the dispatcher. Latency is measured
 * per webhook, from the moment the episode's transcript was appended to the moment the receiver
 * got the signed POST. Every step runs through the consumer runner with the service's batching
 * (2,000 items / 1 s, written at once when caught up).
 */
export const alertsLatencyBench: Bench = {
  name: 'alerts-latency',
  description: `transcript appended → webhook received, ${ALERTS.toLocaleString()} active alerts, ${EPISODES} episodes at ${EPISODES_PER_SECOND}/s (embedded engines)`,
  async run(progress) {
    const tmp = tempDir('earshot-bench-latency-');
    const logger = silentLogger();
    const log = new LmdbEventLog(path.join(tmp.dir, 'log'));
    const registry = new LmdbSchemaRegistry(path.join(tmp.dir, 'registry'));
    const codec = new AvroCodec(registry);
    const producer = new EventProducer(log, codec);
    const state = new PgliteStateStore(path.join(tmp.dir, 'state'));
    const ingestedAt = new Map<string, number>();
    const latencies: number[] = [];
    const receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = performance.now();
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { match?: { source_id: string } };
        const t0 = ingestedAt.get(body.match?.source_id ?? '');
        if (t0 !== undefined) latencies.push(at - t0);
        res.writeHead(200).end();
      });
    });
    receiver.keepAliveTimeout = 10_000;
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const port = (receiver.address() as AddressInfo).port;
    const runners: ConsumerRunner<unknown, unknown>[] = [];
    let rt: AlertsRuntime | undefined;
    let dispatcher: ReturnType<typeof createDispatcher> | undefined;
    try {
      const specs = allTopicSpecs();
      await log.createTopics(specs);
      for (const s of specs) await codec.registerTopic(s.name, s.valueSchema);
      await migrate(state);
      const accounts = new Accounts(state);
      const org = await accounts.createOrganization({ name: 'Bench' });
      const project = await accounts.createProject({
        organizationId: org.id,
        name: 'bench',
        plan: 'enterprise',
      });
      const catalog = new CatalogReader(state);
      const kit = createDeliveryKit({
        state,
        content: new StateDeliveryContent({ state, catalog }),
        settings: {
          publicUrl: 'http://127.0.0.1:8080',
          outboundAllowlist: '127.0.0.1/32',
          secretsKey: randomBytes(32),
          chatApiUrl: 'http://127.0.0.1:9/api',
          schedule: RetrySchedule.parse('0s,5s,5m,30m,2h'),
          requestTimeoutMs: 30_000,
          concurrency: 256,
        },
      });
      const { connection } = await kit.webhooks.create({
        projectId: project.id,
        url: `http://127.0.0.1:${port}/hook`,
      });

      const random = rng(7);
      const entity = () => `ent_${Math.floor(random() * ENTITIES)}`;
      const alerts = Array.from({ length: ALERTS }, (_, i) => ({
        id: `alrt_lat_${i}`,
        project_id: project.id,
        title: `alert ${i}`,
        kind: 'ENTITY_MENTION',
        delivery_cadence: 'REALTIME',
        entities: Array.from({ length: 1 + Math.floor(random() * 5) }, () => ({
          entity_type: 'COMPANY',
          entity_id: entity(),
        })),
        notifications: [{ type: 'WEBHOOK', webhook_connection_id: connection.id }],
      }));
      await state.query(
        `INSERT INTO alerts (id, project_id, title, kind, delivery_cadence, entities, notifications, activated_at)
         SELECT id, project_id, title, kind, delivery_cadence, entities, notifications, now() - interval '1 day'
         FROM jsonb_to_recordset($1::jsonb) AS x(id text, project_id text, title text, kind text,
           delivery_cadence text, entities jsonb, notifications jsonb)`,
        [JSON.stringify(alerts)],
      );
      progress(`${ALERTS.toLocaleString()} alerts stored`);

      rt = new AlertsRuntime({
        state,
        catalog,
        producer,
        logger,
        dir: path.join(tmp.dir, 'matcher'),
        indexPollMs: 60_000,
      });
      await rt.matcher.start();
      dispatcher = createDispatcher({ kit, state, producer, catalog, logger, exclusiveStore: true });
      const defs: ProcessorDefinition<unknown, unknown>[] = [
        ...rt.steps().map((s) => s.definition),
        senderSchedulerStep(kit, state) as unknown as ProcessorDefinition<unknown, unknown>,
        deliveryAttemptsProjector(state) as unknown as ProcessorDefinition<unknown, unknown>,
      ];
      for (const def of defs) {
        const runner = new ConsumerRunner(def, log, producer, logger, {
          maxBatchItems: 2000,
          maxBatchWaitMs: 1000,
        });
        await runner.start();
        runners.push(runner);
      }
      await dispatcher.start();
      progress(`pipeline started (${defs.length} steps + dispatcher)`);

      const now = Date.now();
      const t0 = performance.now();
      for (let i = 0; i < EPISODES; i++) {
        const due = t0 + (i * 1000) / EPISODES_PER_SECOND;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const id = `ep_lat_${i}`;
        const ids = new Set<string>();
        while (ids.size < ENTITIES_PER_EPISODE) ids.add(entity());
        const ev = episodeEvents({
          id,
          podcastId: 'pod_bench',
          publishedAt: now,
          at: Date.now(),
          mentioned: [...ids].map((entityId, k) => ({
            entityId,
            relevance: k < 3 ? ('on_target' as const) : ('incidental' as const),
            lines: [3, 5],
          })),
        });
        ingestedAt.set(id, performance.now());
        await producer.send(TOPICS.episodes, [{ key: id, value: ev.episode }]);
        await producer.send(TOPICS.speakers, [{ key: id, value: ev.speakers }]);
        await producer.send(TOPICS.transcripts, [{ key: id, value: ev.transcript }]);
        await producer.send(TOPICS.mentions, [{ key: id, value: ev.mentions }]);
        if (i % 40 === 39) progress(`${i + 1} episodes appended, ${latencies.length} webhooks received`);
      }
      // Wait until nothing more arrives.
      let last = -1;
      let stableSince = performance.now();
      while (performance.now() - stableSince < 3000) {
        await new Promise((r) => setTimeout(r, 100));
        if (latencies.length !== last) {
          last = latencies.length;
          stableSince = performance.now();
        }
      }
      const planned = rt.planner.stats.planned;
      const sorted = [...latencies].sort((a, b) => a - b);
      progress(
        `${sorted.length} webhooks for ${planned} planned deliveries; p50 ${Math.round(percentile(sorted, 50))} ms, ` +
          `p99 ${Math.round(percentile(sorted, 99))} ms, max ${Math.round(sorted.at(-1) ?? 0)} ms`,
      );
      const result = (
        metric: string,
        value: number,
        unit: string,
        extra: Partial<BenchResult> = {},
      ): BenchResult => ({
        bench: 'alerts-latency',
        metric,
        value: Math.round(value),
        unit,
        ...extra,
      });
      await kit.close();
      return [
        result('transcript appended → webhook received, p99', percentile(sorted, 99), 'ms', {
          target: { op: '<=', value: 2000 },
          note: `${sorted.length} webhooks from ${EPISODES} episodes, ${ALERTS} active alerts`,
        }),
        result('transcript appended → webhook received, p50', percentile(sorted, 50), 'ms'),
        result('webhooks received', sorted.length, 'webhooks'),
      ];
    } finally {
      for (const r of runners) await r.stop();
      await dispatcher?.stop();
      await rt?.matcher.stop();
      receiver.closeAllConnections();
      await new Promise<void>((r) => receiver.close(() => r()));
      await log.close();
      await registry.close();
      await state.close();
      tmp.remove();
    }
  },
};
