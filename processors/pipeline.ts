import type { Platform } from '../infra/composition.ts';
import type { Role } from '../infra/config.ts';
import { analyticsProjectors } from '../projections/analytics/analytics-projectors.ts';
import { catalogProjector } from '../projections/catalog/catalog-projector.ts';
import { namesProjector, searchProjector } from '../projections/search/search-projector.ts';
import type { ProcessorDefinition } from './consumer-runner.ts';
import { understandingSteps } from './context/steps.ts';

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
    // every topic → the analytics store (dimensions, transcripts, mentions, ads, charts, bias)
    ...analyticsProjectors(platform.analytics, {
      batchItems: platform.config.env.EARSHOT_ANALYTICS_BATCH_SIZE,
    }).map((definition) => ({
      role: 'projectors' as const,
      definition,
    })),
    // alerting (processors/alerts): matcher, delivery planner, match and delivery projections,
    // the senders' schedule and the delivery-attempts projection
    ...platform.alerting.steps(),
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
  return [...platform.alerting.tasks()];
}
