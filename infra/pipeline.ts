import { understandingSteps } from '../processors/context/steps.ts';
import {
  type PipelineStep,
  type PipelineTask,
  type ProjectionRef,
  type Role,
  step,
  tablesOf,
  WRITES_EVENTS,
} from '../processors/pipeline.ts';
import { analyticsProjectors } from '../projections/analytics/analytics-projectors.ts';
import type { AnalyticsStore } from '../projections/analytics/analytics-store.ts';
import { ARCHIVE_TABLES, archiveProjector } from '../projections/archive/index.ts';
import { CATALOG_TABLES, catalogProjector } from '../projections/catalog/catalog-projector.ts';
import { namesProjector, searchProjector } from '../projections/search/search-projector.ts';
import { TOPICS } from '../schemas/topics.ts';
import { clearSearchIndex, type Platform } from './composition.ts';

/**
 * The pipeline, declared once: every step (a consumer of topics) and every timer, with the role
 * it runs in, its inputs (the definition's `inputs`), its outputs (topics, or tables of a store)
 * and how it is cleared for a rebuild (processors/pipeline.ts has the vocabulary). What reads it:
 *
 * - `earshot start --roles …` (infra/service.ts) runs the steps and timers of the given roles,
 *   and readiness waits for exactly those steps to catch up;
 * - `earshot projections rebuild` (infra/projections.ts) empties a projection and moves back the
 *   consumer groups of the steps that declare it;
 * - the topic table of docs/pipeline.md (who writes and who reads each topic) is rendered from it
 *   (infra/pipeline-table.ts; a test fails when the page is stale).
 *
 * A step is never looked up by its name: everything about it is here.
 */

/** A projection with how it is emptied (the steps that write it write it again from the log). */
export interface Projection extends ProjectionRef {
  /** Removes everything the projection holds; says what it removed. */
  clear(platform: Platform): Promise<string>;
}

export const CATALOG: Projection = {
  name: 'catalog',
  description: 'publishers, podcasts, entities and episodes in the state store',
  async clear(platform) {
    await platform.state.exec(`TRUNCATE ${CATALOG_TABLES.join(', ')}`);
    return `emptied ${CATALOG_TABLES.join(', ')}`;
  },
};

export const SEARCH: Projection = {
  name: 'search',
  description: 'the search index: lines, segments, clips, episodes, names, and their vectors',
  async clear(platform) {
    return `${await clearSearchIndex(platform.config)} (the projectors create it again on start)`;
  },
};

export const ANALYTICS: Projection = {
  name: 'analytics',
  description: 'the analytics store: catalog dimensions, transcripts, mentions, ads, charts, bias',
  clear: (platform) => clearAnalytics(platform.analytics),
};

export const ARCHIVE: Projection = {
  name: 'archive',
  description:
    'the episode archive: episode records by UTC publication day (the live order is kept: nothing is announced twice)',
  clear: (platform) => platform.archive.clear(),
};

/** The projections `earshot projections rebuild` knows, in the order it rebuilds them. */
export const PROJECTIONS: readonly Projection[] = [CATALOG, SEARCH, ANALYTICS, ARCHIVE];

async function clearAnalytics(store: AnalyticsStore): Promise<string> {
  const tables = await store.query<{ name: string }>(
    `SELECT name FROM system.tables
     WHERE database = currentDatabase() AND name != 'schema_migrations'
       AND engine NOT IN ('View', 'MaterializedView')
     ORDER BY name`,
  );
  for (const { name } of tables) await store.command(`TRUNCATE TABLE ${name}`);
  return `emptied ${tables.length} tables`;
}

export interface Pipeline {
  steps: PipelineStep[];
  tasks: PipelineTask[];
}

/** Every step and timer of the service, wired to the platform's engines. */
export function declarePipeline(platform: Platform): Pipeline {
  // transcripts → mentions.detected and speakers.identified, over a table of the catalog and
  // episodes kept under the data dir (processors/context)
  const understanding = understandingSteps({
    eventLog: platform.eventLog,
    producer: platform.producer,
    dataDir: platform.config.dataDir,
  });
  const context = tablesOf('data-dir', 'episode-context');
  const steps: PipelineStep[] = [
    step(
      'processors',
      understanding.context,
      { topics: [TOPICS.mentions], stores: [context] },
      WRITES_EVENTS,
    ),
    step(
      'processors',
      understanding.mentions,
      { topics: [TOPICS.mentions], stores: [context] },
      WRITES_EVENTS,
    ),
    step('processors', understanding.speakers, { topics: [TOPICS.speakers] }, WRITES_EVENTS),
    step(
      'projectors',
      catalogProjector(platform.state, () => platform.catalog.invalidate()),
      { stores: [tablesOf('state', ...CATALOG_TABLES)] },
      { projection: CATALOG },
    ),
    // episode events → the search index (lines, segments, clips); their vectors are filled in
    // afterwards by the search runtime's vector filler (projections/search/search-vector-filler.ts)
    step(
      'projectors',
      searchProjector({
        index: () => platform.search.searchIndex,
        onIndexed: () => platform.search.notifyIndexed(),
        logger: platform.logger,
      }),
      { stores: [tablesOf('search', 'parts', 'lines', 'segments', 'clips', 'episodes')] },
      { projection: SEARCH },
    ),
    // catalog entities and podcasts → the names index (entity and podcast search)
    step(
      'projectors',
      namesProjector(() => platform.search.searchIndex),
      { stores: [tablesOf('search', 'names')] },
      { projection: SEARCH },
    ),
    // every topic → the analytics store (dimensions, transcripts, mentions, ads, charts, bias);
    // the heavy projectors appear once per member of their group
    ...analyticsProjectors(platform.analytics, {
      batchItems: platform.config.env.EARSHOT_ANALYTICS_BATCH_SIZE,
    }).map((definition) =>
      step('projectors', definition, { stores: [tablesOf('analytics')] }, { projection: ANALYTICS }),
    ),
    // podcast and episode events, transcripts, segments, clips, mentions and speakers → the episode
    // archive and its live order (projections/archive; an API in this process hears at once)
    step(
      'projectors',
      archiveProjector(platform.archive, {
        onWritten: (report) => report.announced > 0 && platform.liveFeed.nudge(),
      }),
      { stores: [tablesOf('state', ...ARCHIVE_TABLES)] },
      { projection: ARCHIVE },
    ),
    // alerting (processors/alerts): matcher, delivery planner, match and delivery projections,
    // the senders' schedule and the delivery-attempts projection
    ...platform.alerting.steps(),
  ];
  // The alert matcher and digest scheduler (processors), the delivery dispatcher (senders).
  const tasks = platform.alerting.tasks();
  return { steps, tasks };
}

/** What a process of these roles runs. */
export function ofRoles(pipeline: Pipeline, roles: ReadonlySet<Role>): Pipeline {
  return {
    steps: pipeline.steps.filter((s) => roles.has(s.role)),
    tasks: pipeline.tasks.filter((t) => roles.has(t.role)),
  };
}

/** The steps that write a projection (several members of one group appear once each). */
export function stepsOf(pipeline: Pipeline, projection: Projection): PipelineStep[] {
  return pipeline.steps.filter((s) => 'projection' in s.rebuild && s.rebuild.projection === projection);
}
