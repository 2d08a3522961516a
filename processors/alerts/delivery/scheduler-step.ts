import type { DeliveryRequested } from '../../../schemas/generated/index.ts';
import { TOPICS } from '../../../schemas/topics.ts';
import type { ProcessorDefinition } from '../../consumer-runner.ts';
import { ok } from '../../step-result.ts';
import type { Clock } from './clock.ts';
import type { DeliveryJobs } from './jobs.ts';

/**
 * `deliveries.requested` → the senders' durable schedule. The offset is committed only after
 * the jobs are written, and a delivery id already scheduled is ignored, so a replay or a crash
 * neither loses nor repeats a delivery. `onScheduled` wakes the dispatcher of this process.
 */
export function deliveryScheduler(
  jobs: DeliveryJobs,
  clock: Clock,
  onScheduled: () => void,
): ProcessorDefinition<DeliveryRequested, DeliveryRequested> {
  return {
    name: 'delivery-scheduler',
    groupId: 'senders.delivery-scheduler',
    inputs: [TOPICS.deliveriesRequested],
    handle: (record) => ok(record.value),
    sink: {
      async write(items) {
        const added = await jobs.enqueue(items, clock.now());
        if (added > 0) onScheduled();
      },
    },
  };
}
