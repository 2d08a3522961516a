import type { Logger } from 'pino';
import { type EventProducer, outputSink } from '../../ingest/event-producer.ts';
import type { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import type { StateStore } from '../../projections/state/state-store.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { type PipelineStep, type PipelineTask, step, tablesOf } from '../pipeline.ts';
import { AlertIndex } from './matching/alert-index.ts';
import { AlertMatcher } from './matching/matcher.ts';
import { MatcherFactsStore, type MatcherStore } from './matching/matcher-facts.ts';
import { StateMatcherFacts } from './matching/state-matcher-facts.ts';
import { DigestScheduler } from './planning/digest-scheduler.ts';
import { DeliveryPlanner } from './planning/planner.ts';
import { deliveriesProjector } from './projectors/deliveries-projector.ts';
import { matchesProjector } from './projectors/matches-projector.ts';
import { KEPT, SUMMARIES_KEPT } from './steps.ts';
import type { ChatSummarizer } from './summaries/chat-summarizer.ts';
import { matchSummarizer } from './summaries/summarizer.ts';

/**
 * The alert side of the pipeline, built once per process: the in-memory alert index shared by
 * the matcher and the planner, the matcher's episode store (LMDB under the data dir, opened by
 * the first process step that needs it), and the steps and timers, each declared below with its
 * role and outputs: the matcher (episode topics → alerts.matched), the realtime delivery planner
 * and the digest scheduler (→ deliveries.requested), and the projections of matches and
 * deliveries into the state store, and the summarizer (alerts.matched → `llm_summary`).
 */
export interface AlertsDeps {
  state: StateStore;
  catalog: CatalogReader;
  producer: EventProducer;
  logger: Logger;
  /** Directory of the matcher's episode store (LMDB), when this process is its only user. */
  dir: string;
  /**
   * Keep the matcher's episode facts in the state store instead (several processes run the
   * matcher: the facts follow each episode's partition from member to member).
   */
  factsInStateStore?: boolean;
  clock?: () => number;
  indexPollMs?: number;
  speakerGraceMs?: number;
  /** Episodes published longer than this before matching are history (default 2 days). */
  realtimeHorizonMs?: number;
  digestIntervalMs?: number;
  digestGraceMs?: number;
  /** The chat model match summaries come from (`EARSHOT_LLM_URL`); absent: extractive summaries. */
  chat?: ChatSummarizer;
}

export class AlertsRuntime {
  readonly index: AlertIndex;
  readonly matcher: AlertMatcher;
  readonly planner: DeliveryPlanner;
  readonly scheduler: DigestScheduler;
  private store?: MatcherStore;

  constructor(readonly deps: AlertsDeps) {
    const { state, catalog, producer, logger, clock } = deps;
    this.index = new AlertIndex(state, { pollMs: deps.indexPollMs });
    this.matcher = new AlertMatcher({
      index: this.index,
      store: () => {
        this.store ??= deps.factsInStateStore
          ? new StateMatcherFacts(state)
          : new MatcherFactsStore(deps.dir);
        return this.store;
      },
      output: outputSink(producer, { matches: TOPICS.alertMatches }),
      partitions: TOPICS.transcripts.partitions,
      logger,
      clock,
      speakerGraceMs: deps.speakerGraceMs,
      realtimeHorizonMs: deps.realtimeHorizonMs,
    });
    const requested = outputSink(producer, { requested: TOPICS.deliveriesRequested });
    this.planner = new DeliveryPlanner({
      index: this.index,
      state,
      catalog,
      output: requested,
      logger,
      clock,
    });
    this.scheduler = new DigestScheduler({
      state,
      catalog,
      output: requested,
      logger,
      clock,
      intervalMs: deps.digestIntervalMs,
      graceMs: deps.digestGraceMs,
    });
  }

  steps(): PipelineStep[] {
    const { state } = this.deps;
    const facts = this.factsTables();
    return [
      step('processors', this.matcher.definition(), { topics: [TOPICS.alertMatches], stores: [facts] }, KEPT),
      step('processors', this.planner.definition(), { topics: [TOPICS.deliveriesRequested] }, KEPT),
      step('projectors', matchesProjector(state), { stores: [tablesOf('state', 'alert_matches')] }, KEPT),
      // after the match, never before it: a model (through the outbound guard) or the windows
      step(
        'processors',
        matchSummarizer({ state, logger: this.deps.logger, chat: this.deps.chat }),
        { stores: [tablesOf('state', 'alert_match_summaries')] },
        SUMMARIES_KEPT,
      ),
      step(
        'projectors',
        deliveriesProjector(state),
        {
          stores: [
            tablesOf('state', 'deliveries', 'delivery_channels', 'delivery_matches', 'delivery_outcomes'),
          ],
        },
        KEPT,
      ),
    ];
  }

  /** Where the matcher keeps its episode facts. */
  private factsTables() {
    return this.deps.factsInStateStore
      ? tablesOf('state', 'alert_matcher_episodes', 'alert_matcher_entities', 'alert_matcher_meta')
      : tablesOf('data-dir', 'alert-matcher');
  }

  /** Timers of the processors role: alert index polling, backfills, speaker waits, digests. */
  tasks(): PipelineTask[] {
    return [
      {
        role: 'processors',
        name: 'alert-matcher',
        outputs: { topics: [TOPICS.alertMatches], stores: [this.factsTables()] },
        start: () => this.matcher.start(),
        stop: async () => {
          await this.matcher.stop();
          await this.store?.close();
          this.store = undefined;
        },
      },
      {
        role: 'processors',
        name: 'digest-scheduler',
        outputs: {
          topics: [TOPICS.deliveriesRequested],
          stores: [tablesOf('state', 'alert_digest_windows')],
        },
        start: async () => this.scheduler.start(),
        stop: () => this.scheduler.stop(),
      },
    ];
  }
}
