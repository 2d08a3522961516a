import type { Platform } from '../infra/composition.ts';
import type { Role } from '../infra/config.ts';
import { deliveryAttemptsProjector } from '../projections/alerts/delivery-attempts-projector.ts';
import { analyticsProjectors } from '../projections/analytics/analytics-projectors.ts';
import { archiveProjector } from '../projections/archive/index.ts';
import { catalogProjector } from '../projections/catalog/catalog-projector.ts';
import { namesProjector, searchProjector } from '../projections/search/search-projector.ts';
import { alertsRuntime } from './alerts/alerts-pipeline.ts';
import type { ProcessorDefinition } from './consumer-runner.ts';
import { understandingSteps } from './context/steps.ts';
import { senderSchedulerStep } from './delivery/kit.ts';

/**
 * Every long-running step of the pipeline, in one place: which role runs it, which topics it
 * reads (each topic's dead-letter topic is declared beside it in schemas/topics.ts), and
 * where it writes. Steps are added here as the pipeline grows.
 */
export interface PipelineStep {
  role: Role;
  // biome-ignore lint/suspicious/noExplicitAny: steps differ in their input and output types
  definition: ProcessorDefinition<any, any>;
}

export function pipelineSteps(platform: Platform): PipelineStep[] {
  // transcripts → mentions.detected and speakers.identified, over a table of the catalog and episodes
  const understanding = understandingSteps({
    eventLog: platform.eventLog,
    producer: platform.producer,
    dataDir: platform.config.dataDir,
  });
  return [
    { role: 'processors', definition: understanding.context },
    { role: 'processors', definition: understanding.mentions },
    { role: 'processors', definition: understanding.speakers },
    {
      role: 'projectors',
      definition: catalogProjector(platform.state, () => platform.catalog.invalidate()),
    },
    // deliveries.requested → the senders' durable schedule (worked by the dispatcher, infra/service.ts)
    { role: 'senders', definition: senderSchedulerStep(platform.delivery, platform.state) },
    { role: 'projectors', definition: deliveryAttemptsProjector(platform.state) },
    // episode events → the search index (lines, segments, clips); their vectors are filled in
    // afterwards by the search runtime's vector filler (projections/search/search-vector-filler.ts)
    {
      role: 'projectors',
      definition: searchProjector({
        index: () => platform.search.searchIndex,
        onIndexed: () => platform.search.notifyIndexed(),
        logger: platform.logger,
      }),
    },
    // catalog entities and podcasts → the names index (entity and podcast search)
    { role: 'projectors', definition: namesProjector(() => platform.search.searchIndex) },
    // episode, transcript, segment, clip, mention and speaker events → the episode archive and
    // the live order (an API in this process hears of new episodes at once)
    {
      role: 'projectors',
      definition: archiveProjector(platform.archive, {
        onWritten: (report) => report.announced > 0 && platform.liveFeed.nudge(),
      }),
    },
    // every topic → the analytics store (dimensions, transcripts, mentions, ads, charts, bias)
    ...analyticsProjectors(platform.analytics, {
      batchItems: platform.config.env.EARSHOT_ANALYTICS_BATCH_SIZE,
    }).map((definition) => ({
      role: 'projectors' as const,
      definition,
    })),
    // alert matcher, delivery planner, match and delivery projections (processors/alerts)
    ...alertsRuntime(platform).steps(),
  ];
}

/** Timers that run beside the steps of a role (started after its consumers, stopped after them). */
export interface PipelineTask {
  role: Role;
  name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function pipelineTasks(platform: Platform): PipelineTask[] {
  return [...alertsRuntime(platform).tasks()];
}
