import type { Logger } from 'pino';
import type { EventProducer } from '../../../ingest/event-producer.ts';
import type { CatalogReader } from '../../../projections/catalog/catalog-reader.ts';
import type { StateStore } from '../../../projections/state/state-store.ts';
import { TOPICS } from '../../../schemas/topics.ts';
import { deliveryAttemptsProjector } from '../projectors/delivery-attempts-projector.ts';
import { type AlertStep, type AlertTask, step } from '../steps.ts';
import type { DeliveryDispatcher } from './dispatcher.ts';
import { createDispatcher, type DeliveryKit, senderSchedulerStep } from './kit.ts';

/**
 * The delivery side of the pipeline:
 *
 * | step / task                 | role       | reads                  | writes                                   |
 * |-----------------------------|------------|------------------------|------------------------------------------|
 * | delivery-scheduler          | senders    | deliveries.requested   | delivery_jobs                            |
 * | delivery dispatcher (timer) | senders    | delivery_jobs          | deliveries.attempted, .delivered, .abandoned; delivery_jobs |
 * | delivery-attempts-projector | projectors | deliveries.attempted   | delivery_attempts                        |
 *
 * The dispatcher (one per process of the `senders` role) is made when its task starts.
 */
export interface SendersDeps {
  kit: DeliveryKit;
  state: StateStore;
  producer: EventProducer;
  catalog: CatalogReader;
  logger: Logger;
  /** True when this process is the state store's only user (embedded): stale leases are released at start. */
  exclusiveStore: boolean;
}

export class SendersRuntime {
  private dispatcher?: DeliveryDispatcher;

  constructor(private readonly deps: SendersDeps) {}

  steps(): AlertStep[] {
    const { kit, state } = this.deps;
    return [
      step('senders', senderSchedulerStep(kit, state), { tables: ['delivery_jobs'] }),
      step('projectors', deliveryAttemptsProjector(state), { tables: ['delivery_attempts'] }),
    ];
  }

  tasks(): AlertTask[] {
    return [
      {
        role: 'senders',
        name: 'delivery-dispatcher',
        outputs: {
          topics: [TOPICS.deliveriesAttempted, TOPICS.deliveriesDelivered, TOPICS.deliveriesAbandoned],
          tables: ['delivery_jobs'],
        },
        start: async () => {
          this.dispatcher ??= createDispatcher(this.deps);
          await this.dispatcher.start();
        },
        stop: async () => {
          await this.dispatcher?.stop();
        },
      },
    ];
  }
}
