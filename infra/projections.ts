import type { Logger } from 'pino';
import { StateStoreLockedError } from '../projections/state/pglite-state-store.ts';
import { buildPlatform, type Platform } from './composition.ts';
import type { Config } from './config.ts';
import { replayGroup } from './operations.ts';
import { declarePipeline, PROJECTIONS, type Projection, stepsOf } from './pipeline.ts';

/**
 * `earshot projections rebuild`. A projection is a read model the pipeline derives from the event
 * log alone, so it can be thrown away and built again by reprocessing its topics; the
 * projections, how each is emptied and which steps write it are declared in infra/pipeline.ts.
 * The alert matches, deliveries and the senders' schedule are not projections: they hold what
 * was sent, and reprocessing their topics would send it again.
 */
export interface RebuildReport {
  projection: string;
  cleared: string;
  groups: { group: string; topics: string[] }[];
  /** Records its consumer groups will process again. */
  toProcess: number;
}

/** Each projection with the consumer groups and topics of the steps that declare it. */
function projectionGroups(platform: Platform): { projection: Projection; groups: RebuildReport['groups'] }[] {
  const pipeline = declarePipeline(platform);
  return PROJECTIONS.map((projection) => {
    const groups = new Map<string, Set<string>>();
    for (const { definition } of stepsOf(pipeline, projection)) {
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
