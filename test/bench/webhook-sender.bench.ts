import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { silentLogger } from '../../infra/logger.ts';
import { LmdbEventLog } from '../../ingest/event-log/lmdb-event-log.ts';
import { EventProducer } from '../../ingest/event-producer.ts';
import { AvroCodec } from '../../ingest/schema-registry/avro-codec.ts';
import { LmdbSchemaRegistry } from '../../ingest/schema-registry/lmdb-schema-registry.ts';
import {
  createDeliveryKit,
  createDispatcher,
  senderSchedulerStep,
} from '../../processors/alerts/delivery/kit.ts';
import { RetrySchedule } from '../../processors/alerts/delivery/retry-schedule.ts';
import { StateDeliveryContent } from '../../processors/alerts/delivery/state-content.ts';
import { matchesProjector } from '../../processors/alerts/projectors/matches-projector.ts';
import { ConsumerRunner } from '../../processors/consumer-runner.ts';
import { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import { Accounts } from '../../projections/state/accounts.ts';
import { migrate } from '../../projections/state/migrations.ts';
import { PgliteStateStore } from '../../projections/state/pglite-state-store.ts';
import type { AlertMatched, DeliveryRequested } from '../../schemas/generated/index.ts';
import { allTopicSpecs, TOPICS } from '../../schemas/topics.ts';
import { tempDir } from '../support/temp-dir.ts';
import type { Bench, BenchResult } from './bench.ts';

const DELIVERIES = 5_000;

function matchEvent(i: number, alertId: string, projectId: string): AlertMatched {
  const now = Date.now();
  return {
    id: `match_bench_${i}`,
    alert_id: alertId,
    project_id: projectId,
    kind: 'ENTITY_MENTION',
    entity_type: 'COMPANY',
    entity_id: 'ent_bench',
    source_type: 'PODCAST_EPISODE',
    source_id: `ep_bench_${i}`,
    podcast_id: 'pod_bench',
    published_at: now - 3_600_000,
    detected_at: now,
    mention_count: 3,
    mention_variants: ['Acme'],
    relevance: 'on_target',
    roles: [],
    is_backfilled: false,
    windows: Array.from({ length: 3 }, (_, w) => ({
      start_seconds: w * 60,
      end_seconds: w * 60 + 18,
      lines: Array.from({ length: 3 }, (_, n) => ({
        number: w * 10 + n,
        speaker: n === 1 ? 'Guest' : 'Host',
        role: n === 1 ? 'GUEST' : 'HOST',
        start_seconds: w * 60 + n * 6,
        end_seconds: w * 60 + n * 6 + 6,
        text: 'Acme shares barely moved after the earnings call, and the guidance was the real story here.',
        is_mention: n === 1,
      })),
      clip_url: `https://cdn.example/ep_bench_${i}.mp3#t=${w * 60},${w * 60 + 18}`,
      clip_id: null,
      clip_title: null,
      clip_type: null,
    })),
  };
}

/**
 * The webhook sender on embedded engines, as the senders role runs it: `deliveries.requested`
 * (5,000 realtime webhook deliveries) → scheduler step → durable schedule (PGlite on disk) →
 * dispatcher (match documents read through alert management's reads, signed, POSTed over
 * keep-alive connections to a local receiver) → outcome events and schedule updates. Measured
 * from the first request appended to the last outcome recorded.
 */
export const webhookSenderBench: Bench = {
  name: 'webhook-sender',
  description: `${DELIVERIES.toLocaleString()} realtime webhook deliveries to a local receiver (embedded log, PGlite on disk)`,
  async run(progress) {
    const tmp = tempDir('earshot-bench-sender-');
    const logger = silentLogger();
    const log = new LmdbEventLog(path.join(tmp.dir, 'log'));
    const registry = new LmdbSchemaRegistry(path.join(tmp.dir, 'registry'));
    const codec = new AvroCodec(registry);
    const producer = new EventProducer(log, codec);
    const state = new PgliteStateStore(path.join(tmp.dir, 'state'));
    let received = 0;
    const receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received++;
        res.writeHead(200).end();
      });
    });
    receiver.keepAliveTimeout = 10_000;
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const port = (receiver.address() as AddressInfo).port;
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
          dashboardUrl: 'http://127.0.0.1:8080/dashboard',
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
      const alertId = 'alrt_bench';
      await state.query(
        `INSERT INTO alerts (id, project_id, title, kind, delivery_cadence, entities, notifications)
         VALUES ($1, $2, 'Acme', 'ENTITY_MENTION', 'REALTIME', $3::jsonb, $4::jsonb)`,
        [
          alertId,
          project.id,
          JSON.stringify([{ entity_type: 'COMPANY', entity_id: 'ent_bench' }]),
          JSON.stringify([{ type: 'WEBHOOK', webhook_connection_id: connection.id }]),
        ],
      );
      const matches = Array.from({ length: DELIVERIES }, (_, i) => matchEvent(i, alertId, project.id));
      for (let i = 0; i < matches.length; i += 1000) {
        await matchesProjector(state).sink.write(matches.slice(i, i + 1000));
      }
      progress(`${DELIVERIES.toLocaleString()} matches stored`);

      const dispatcher = createDispatcher({
        kit,
        state,
        producer,
        catalog,
        logger,
        exclusiveStore: true,
      });
      const scheduler = new ConsumerRunner(senderSchedulerStep(kit, state), log, producer, logger, {
        maxBatchItems: 2000,
        maxBatchWaitMs: 50,
      });
      await scheduler.start();
      await dispatcher.start();

      const requests: DeliveryRequested[] = matches.map((m, i) => ({
        delivery_id: `dlv_bench_${i}`,
        alert_id: alertId,
        project_id: project.id,
        cadence: 'REALTIME',
        channel: {
          type: 'WEBHOOK',
          email: null,
          webhook_connection_id: connection.id,
          chat_connection_id: null,
          chat_channel_id: null,
        },
        match_ids: [m.id],
        window_start: null,
        window_end: null,
        requested_at: Date.now(),
      }));
      const t0 = performance.now();
      for (let i = 0; i < requests.length; i += 500) {
        const slice = requests.slice(i, i + 500);
        await producer.send(
          TOPICS.deliveriesRequested,
          slice.map((value) => ({ key: value.delivery_id, value })),
        );
      }
      let lastReport = 0;
      while (dispatcher.stats.delivered + dispatcher.stats.abandoned < DELIVERIES) {
        await new Promise((r) => setTimeout(r, 20));
        if (performance.now() - lastReport > 2000) {
          lastReport = performance.now();
          progress(
            `${received.toLocaleString()} received, ${dispatcher.stats.delivered.toLocaleString()} recorded`,
          );
        }
      }
      const seconds = (performance.now() - t0) / 1000;
      await scheduler.stop();
      await dispatcher.stop();
      await kit.close();
      const failed = dispatcher.stats.abandoned + dispatcher.stats.retried;
      progress(`${received.toLocaleString()} webhooks in ${seconds.toFixed(2)} s; ${failed} failed attempts`);
      const result = (
        metric: string,
        value: number,
        unit: string,
        extra: Partial<BenchResult> = {},
      ): BenchResult => ({
        bench: 'webhook-sender',
        metric,
        value: Math.round(value),
        unit,
        ...extra,
      });
      return [
        result(
          'deliveries sent and recorded (signed POST, 2xx, outcome events)',
          DELIVERIES / seconds,
          'deliveries/s',
          {
            target: { op: '>=', value: 500 },
            note: `${DELIVERIES} deliveries, concurrency 256, ${received} POSTs received`,
          },
        ),
      ];
    } finally {
      receiver.closeAllConnections();
      await new Promise<void>((r) => receiver.close(() => r()));
      await state.close();
      await log.close();
      await registry.close();
      tmp.remove();
    }
  },
};
