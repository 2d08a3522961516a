import type { TopicSpec } from '../schemas/topics.ts';
import type { ProcessorDefinition } from './consumer-runner.ts';

/**
 * The vocabulary of the pipeline's declaration: what a step or a timer says about itself. The
 * declaration itself — every step of the service, with these fields — is infra/pipeline.ts, where
 * the steps are wired to the engines; modules that run several steps (alerting) hand theirs over
 * already declared.
 */

/** The roles a process runs (`EARSHOT_ROLES`, `earshot start --roles`). */
export const ROLES = ['api', 'mcp', 'ingest', 'processors', 'projectors', 'senders'] as const;
export type Role = (typeof ROLES)[number];

/**
 * The roles whose work is pipeline steps and timers (`api` serves the REST API and dashboard,
 * `mcp` the agent-tool server, `ingest` runs the sources).
 */
export type StepRole = Exclude<Role, 'api' | 'mcp' | 'ingest'>;
export const STEP_ROLES: readonly StepRole[] = ROLES.filter(
  (r): r is StepRole => r !== 'api' && r !== 'mcp' && r !== 'ingest',
);

/**
 * Where a step keeps what it writes outside the event log: the state store (PostgreSQL / PGlite),
 * the analytics store (ClickHouse / chdb), the search index (OpenSearch / LanceDB), or a store of
 * its own under the data dir (LMDB).
 */
export type StoreName = 'state' | 'analytics' | 'search' | 'data-dir';

export interface StoreOutput {
  store: StoreName;
  /** The tables (indexes, databases) it writes there; absent: every table of the store. */
  tables?: readonly string[];
}

/** Tables of one store, as an output: `tablesOf('state', 'delivery_jobs')`. */
export function tablesOf(store: StoreName, ...tables: string[]): StoreOutput {
  return tables.length > 0 ? { store, tables } : { store };
}

/** What a step or timer writes: topics of the event log, tables of stores. */
export interface StepOutputs {
  topics?: readonly TopicSpec[];
  stores?: readonly StoreOutput[];
}

/**
 * A read model a rebuild can empty and write again from the log (`earshot projections rebuild`).
 * Steps that write it point at the same object; infra/pipeline.ts declares the projections and
 * how each is emptied.
 */
export interface ProjectionRef {
  readonly name: string;
  readonly description: string;
}

/**
 * How a step's output is cleared for a rebuild: the projection it writes (emptied, then its
 * consumer group moved back to the start of its inputs), or why it is never rebuilt.
 */
export type Rebuild = { projection: ProjectionRef } | { never: string };

/** One consumer of the pipeline: its inputs are its definition's `inputs`. */
export interface PipelineStep {
  role: StepRole;
  // biome-ignore lint/suspicious/noExplicitAny: steps differ in their input and output types
  definition: ProcessorDefinition<any, any>;
  outputs: StepOutputs;
  rebuild: Rebuild;
}

/** A timer that runs beside the steps of its role (started after its consumers, stopped after them). */
export interface PipelineTask {
  role: StepRole;
  name: string;
  outputs: StepOutputs;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Declares a step. */
export function step<I, O>(
  role: StepRole,
  definition: ProcessorDefinition<I, O>,
  outputs: StepOutputs,
  rebuild: Rebuild,
): PipelineStep {
  return { role, definition: definition as ProcessorDefinition<unknown, unknown>, outputs, rebuild };
}

/** Why the steps of a processor are not rebuilt: they write events, which downstream steps read. */
export const WRITES_EVENTS: Rebuild = {
  never: 'it writes events; a rebuild replays the projections that read them',
};
