import type { Logger } from 'pino';
import type { EventProducer } from '../../../ingest/event-producer.ts';
import type { CatalogReader } from '../../../projections/catalog/catalog-reader.ts';
import type { StateStore } from '../../../projections/state/state-store.ts';
import { TOPICS } from '../../../schemas/topics.ts';
import { type PipelineStep, type PipelineTask, step, tablesOf } from '../../pipeline.ts';
import { deliveryAttemptsProjector } from '../projectors/delivery-attempts-projector.ts';
import { KEPT } from '../steps.ts';
import type { DeliveryDispatcher } from './dispatcher.ts';
import { createDispatcher, type DeliveryKit, senderSchedulerStep } from './kit.ts';

/**
 * The delivery side of the pipeline, declared below with roles and outputs: the senders' schedule
 * (deliveries.requested → delivery_jobs), the dispatcher that attempts due jobs (a timer of the
 * `senders` role, one per process, made when its task starts; → deliveries.attempted, .delivered,
 * .abandoned), and the projection of attempts.
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

  steps(): PipelineStep[] {
    const { kit, state } = this.deps;
    return [
      step(
        'senders',
        senderSchedulerStep(kit, state),
        { stores: [tablesOf('state', 'delivery_jobs')] },
        KEPT,
      ),
      step(
        'projectors',
        deliveryAttemptsProjector(state),
        { stores: [tablesOf('state', 'delivery_attempts')] },
        KEPT,
      ),
    ];
  }

  tasks(): PipelineTask[] {
    return [
      {
        role: 'senders',
        name: 'delivery-dispatcher',
        outputs: {
          topics: [TOPICS.deliveriesAttempted, TOPICS.deliveriesDelivered, TOPICS.deliveriesAbandoned],
          stores: [tablesOf('state', 'delivery_jobs')],
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
