import type { TopicSpec } from '../../schemas/topics.ts';
import type { ProcessorDefinition } from '../consumer-runner.ts';

/**
 * How the alerting module declares what it runs: each step (a consumer of topics) and each
 * task (a timer) with the role it runs in and where it writes — topics of the event log, or
 * tables of the state store. A step's inputs are its definition's `inputs`.
 */
export type AlertRole = 'processors' | 'projectors' | 'senders';

export interface StepOutputs {
  /** Topics it produces to. */
  topics?: TopicSpec[];
  /** State-store tables it writes. */
  tables?: string[];
}

export interface AlertStep {
  role: AlertRole;
  definition: ProcessorDefinition<unknown, unknown>;
  outputs: StepOutputs;
}

export interface AlertTask {
  role: AlertRole;
  name: string;
  outputs: StepOutputs;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function step<I, O>(
  role: AlertRole,
  definition: ProcessorDefinition<I, O>,
  outputs: StepOutputs,
): AlertStep {
  return { role, definition: definition as unknown as ProcessorDefinition<unknown, unknown>, outputs };
}
