import { silentLogger } from '../../infra/logger.ts';
import type { Mailer } from '../../processors/alerts/delivery/channels/mailer.ts';
import type { Clock } from '../../processors/alerts/delivery/clock.ts';
import type { DeliveryContent } from '../../processors/alerts/delivery/content.ts';
import {
  createDispatcher,
  type DeliverySettings,
  senderSchedulerStep,
} from '../../processors/alerts/delivery/kit.ts';
import { ConsumerRunner } from '../../processors/consumer-runner.ts';
import { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import { Accounts } from '../../projections/state/accounts.ts';
import { migrate } from '../../projections/state/migrations.ts';
import type { DeliveryRequested } from '../../schemas/generated/index.ts';
import { TOPICS, type TopicSpec } from '../../schemas/topics.ts';
import { embeddedBackbone } from './backbone.ts';
import { testDeliveryKit } from './delivery.ts';
import { memoryStateStore } from './state.ts';

/**
 * The senders on embedded engines, apart from alert management: an event backbone, an in-memory
 * state store with organization `org_test` and project `proj_test`, the scheduler step and the
 * dispatcher. Tests request deliveries as events and read the outcome events back.
 */
export async function senderHarness(options: {
  content: DeliveryContent;
  mailer?: Mailer;
  settings?: Partial<DeliverySettings>;
  clock?: Clock;
}) {
  const backbone = await embeddedBackbone();
  const state = memoryStateStore();
  await migrate(state);
  const accounts = new Accounts(state);
  await accounts.createOrganization({ id: 'org_test', name: 'Test Org', slug: 'test-org' });
  await accounts.createProject({
    id: 'proj_test',
    organizationId: 'org_test',
    name: 'Test',
    plan: 'business',
  });
  const catalog = new CatalogReader(state);
  const kit = testDeliveryKit(state, catalog, {
    content: options.content,
    mailer: options.mailer,
    settings: options.settings,
  });
  const logger = silentLogger();
  const dispatcher = createDispatcher({
    kit,
    state,
    producer: backbone.producer,
    catalog,
    logger,
    clock: options.clock,
    exclusiveStore: true,
  });
  const runner = new ConsumerRunner(
    senderSchedulerStep(kit, state, options.clock),
    backbone.log,
    backbone.producer,
    logger,
    { maxBatchItems: 1000, maxBatchWaitMs: 10 },
  );
  await runner.start();
  await dispatcher.start();
  let seq = 0;

  async function events<T>(topic: TopicSpec): Promise<T[]> {
    const out: T[] = [];
    const info = (await backbone.log.listTopics()).find((t) => t.name === topic.name)!;
    for (const p of info.partitions) {
      for (const r of backbone.log.read(topic.name, p.partition, 0, 1_000_000)) {
        out.push(await backbone.codec.decode<T>(topic.name, r.value));
      }
    }
    return out;
  }

  return {
    backbone,
    state,
    kit,
    dispatcher,
    runner,
    /** Produces delivery requests (`deliveries.requested`), filling defaults. */
    async request(
      requests: (Partial<Omit<DeliveryRequested, 'channel'>> & {
        channel: Partial<DeliveryRequested['channel']>;
      })[],
    ) {
      const values: DeliveryRequested[] = requests.map((r) => ({
        delivery_id: r.delivery_id ?? `dlv_test_${++seq}`,
        alert_id: r.alert_id ?? 'alrt_test',
        project_id: r.project_id ?? 'proj_test',
        cadence: r.cadence ?? 'REALTIME',
        channel: {
          type: 'WEBHOOK',
          email: null,
          webhook_connection_id: null,
          chat_connection_id: null,
          chat_channel_id: null,
          ...r.channel,
        },
        match_ids: r.match_ids ?? ['match_1'],
        window_start: r.window_start ?? null,
        window_end: r.window_end ?? null,
        requested_at: r.requested_at ?? Date.now(),
      }));
      await backbone.producer.send(
        TOPICS.deliveriesRequested,
        values.map((value) => ({ key: value.delivery_id, value })),
      );
      return values;
    },
    events,
    async close() {
      await runner.stop();
      await dispatcher.stop();
      await kit.close();
      await state.close();
      await backbone.close();
    },
  };
}
