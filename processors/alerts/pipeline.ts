import path from 'node:path';
import type { Logger } from 'pino';
import type { EventProducer } from '../../ingest/event-producer.ts';
import type { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import type { StateStore } from '../../projections/state/state-store.ts';
import type { PipelineStep, PipelineTask } from '../pipeline.ts';
import type { DeliveryKit } from './delivery/kit.ts';
import { SendersRuntime } from './delivery/senders.ts';
import { AlertsRuntime } from './runtime.ts';
import { ChatSummarizer, type ChatSummarizerOptions } from './summaries/chat-summarizer.ts';

/**
 * Everything alerting runs in the pipeline, built once per process (infra/composition.ts):
 * matching, planning and their projections (runtime.ts) and the senders (delivery/senders.ts).
 * `steps()` and `tasks()` declare each in the pipeline's vocabulary (processors/pipeline.ts): role,
 * outputs and rebuild; infra/pipeline.ts adds them to the pipeline's declaration.
 */
export class AlertingPipeline {
  readonly alerts: AlertsRuntime;
  readonly senders: SendersRuntime;

  constructor(deps: {
    state: StateStore;
    catalog: CatalogReader;
    producer: EventProducer;
    logger: Logger;
    delivery: DeliveryKit;
    /** The service's data dir: the matcher keeps its episode store under it. */
    dataDir: string;
    /**
     * True when this process is the state store's only user (embedded). Otherwise the matcher
     * keeps its episode facts in the state store, so it can run as several processes.
     */
    exclusiveStore: boolean;
    /** The chat model match summaries come from; absent: extractive summaries. */
    llm?: ChatSummarizerOptions;
  }) {
    const { state, catalog, producer, logger } = deps;
    this.alerts = new AlertsRuntime({
      state,
      catalog,
      producer,
      logger,
      dir: path.join(deps.dataDir, 'alert-matcher'),
      // A shared state store (PostgreSQL) means the matcher may run as several processes.
      factsInStateStore: !deps.exclusiveStore,
      // through the delivery kit's client: the outbound guard and its allowlist
      chat: deps.llm ? new ChatSummarizer(deps.delivery.http, deps.llm) : undefined,
    });
    this.senders = new SendersRuntime({
      kit: deps.delivery,
      state,
      producer,
      catalog,
      logger,
      exclusiveStore: deps.exclusiveStore,
    });
  }

  steps(): PipelineStep[] {
    return [...this.alerts.steps(), ...this.senders.steps()];
  }

  /** Started in this order after the consumers of their roles, and stopped in it after them. */
  tasks(): PipelineTask[] {
    return [...this.alerts.tasks(), ...this.senders.tasks()];
  }
}
