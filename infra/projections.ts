import type { Logger } from 'pino';
import { pipelineSteps } from '../processors/pipeline.ts';
import type { AnalyticsStore } from '../projections/analytics/analytics-store.ts';
import { StateStoreLockedError } from '../projections/state/pglite-state-store.ts';
import type { StateStore } from '../projections/state/state-store.ts';
import { buildPlatform, deleteSearchIndex, type Platform } from './composition.ts';
import type { Config } from './config.ts';
import { replayGroup } from './operations.ts';

/**
 * A read model the pipeline derives from the event log alone, so it can be thrown away and built
 * again by reprocessing its topics. The alert matches, deliveries and the senders' schedule are
 * not here: they hold what was sent, and reprocessing their topics would send it again.
 */
export interface Projection {
  name: string;
  description: string;
  /** Whether a pipeline step (processors/pipeline.ts), by name, writes it. */
  steps: (name: string) => boolean;
  /** Removes everything the projection holds; its steps write it again from the log. */
  clear(platform: Platform): Promise<string>;
}

const CATALOG_TABLES = ['catalog_episodes', 'catalog_entities', 'catalog_podcasts', 'catalog_publishers'];

async function clearCatalog(state: StateStore): Promise<string> {
  await state.exec(`TRUNCATE ${CATALOG_TABLES.join(', ')}`);
  return `emptied ${CATALOG_TABLES.join(', ')}`;
}

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

async function clearSearch(platform: Platform): Promise<string> {
  return `${await deleteSearchIndex(platform.config)} (the projectors create it again on start)`;
}

export const PROJECTIONS: Projection[] = [
  {
    name: 'catalog',
    description: 'publishers, podcasts, entities and episodes in the state store',
    steps: (name) => name === 'catalog-projector',
    clear: (platform) => clearCatalog(platform.state),
  },
  {
    name: 'search',
    description: 'the search index: lines, segments, clips, episodes, names, and their vectors',
    steps: (name) => name === 'search-projector' || name === 'search-names-projector',
    clear: clearSearch,
  },
  {
    name: 'archive',
    description:
      'the episode archive: episode records by UTC publication day (the live order is kept: nothing is announced twice)',
    steps: (name) => name === 'archive-projector',
    clear: (platform) => platform.archive.clear(),
  },
  {
    name: 'analytics',
    description: 'the analytics store: catalog dimensions, transcripts, mentions, ads, charts, bias',
    steps: (name) => name.startsWith('analytics-'),
    clear: (platform) => clearAnalytics(platform.analytics),
  },
];

export interface RebuildReport {
  projection: string;
  cleared: string;
  groups: { group: string; topics: string[] }[];
  /** Records its consumer groups will process again. */
  toProcess: number;
}

/** Each projection with the consumer groups and topics its steps read. */
function projectionGroups(platform: Platform) {
  const steps = pipelineSteps(platform);
  return PROJECTIONS.map((projection) => {
    const groups = new Map<string, Set<string>>();
    for (const { definition } of steps) {
      if (!projection.steps(definition.name)) continue;
      const topics = groups.get(definition.groupId) ?? new Set<string>();
      for (const input of definition.inputs) topics.add(input.name);
      groups.set(definition.groupId, topics);
    }
    return {
      projection,
      groups: [...groups].map(([group, topics]) => ({ group, topics: [...topics].sort() })),
    };
  });
}

/** A rebuild that cannot run as asked (an unknown name, the service still running). */
export class ProjectionError extends Error {}

/**
 * Rebuilds projections: empties each, then moves its consumer groups back to the earliest record
 * the log keeps, so the projectors write it again when they next start. Run it while the service
 * (at least its `projectors` role) is stopped: with the embedded engines the state store will not
 * open while the service runs, and Kafka refuses new offsets for a group with live members. Emptying
 * comes first, so a rebuild cut short is simply run again.
 */
export async function rebuildProjections(
  config: Config,
  names: string[],
  logger: Logger,
  progress: (msg: string) => void = () => {},
): Promise<RebuildReport[]> {
  const wanted = names.includes('all') ? PROJECTIONS.map((p) => p.name) : names;
  for (const name of wanted) {
    if (!PROJECTIONS.some((p) => p.name === name)) {
      throw new ProjectionError(
        `unknown projection ${name}; projections: ${PROJECTIONS.map((p) => p.name).join(', ')} (or all)`,
      );
    }
  }
  let platform: Platform;
  try {
    platform = await buildPlatform(config, logger);
  } catch (err) {
    if (err instanceof StateStoreLockedError) {
      throw new ProjectionError(`stop the service before rebuilding projections: ${err.message}`);
    }
    throw err;
  }
  try {
    const reports: RebuildReport[] = [];
    for (const { projection, groups } of projectionGroups(platform)) {
      if (!wanted.includes(projection.name)) continue;
      progress(`${projection.name}: emptying`);
      const cleared = await projection.clear(platform);
      let toProcess = 0;
      for (const { group, topics } of groups) {
        for (const topic of topics) {
          toProcess += (await replayGroup(platform.eventLog, { topic, group, fromOffset: 0 })).toProcess;
        }
      }
      progress(`${projection.name}: ${cleared}; ${groups.length} consumer groups moved to the start`);
      reports.push({ projection: projection.name, cleared, groups, toProcess });
    }
    return reports;
  } finally {
    await platform.close();
  }
}
