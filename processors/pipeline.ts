import type { Platform } from '../infra/composition.ts';
import type { Role } from '../infra/config.ts';
import { catalogProjector } from '../projections/catalog/catalog-projector.ts';
import type { ProcessorDefinition } from './consumer-runner.ts';

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
  return [
    {
      role: 'projectors',
      definition: catalogProjector(platform.state, () => platform.catalog.invalidate()),
    },
  ];
}
