import type { EventLog } from '../ingest/event-log/event-log.ts';

export interface ReplayRequest {
  topic: string;
  group: string;
  fromOffset?: number;
  fromTime?: number;
}

/**
 * Moves a group's committed offsets back (or forward) so its members process a topic again
 * from an offset or a point in time. Members pick the offsets up when they (re)join.
 */
export async function replayGroup(log: EventLog, request: ReplayRequest) {
  const info = (await log.listTopics()).find((t) => t.name === request.topic);
  if (!info) throw new Error(`unknown topic ${request.topic}`);
  let offsets: { partition: number; offset: number }[];
  if (request.fromTime !== undefined) {
    offsets = await log.offsetsForTime(request.topic, request.fromTime);
  } else if (request.fromOffset !== undefined) {
    const from = request.fromOffset;
    offsets = info.partitions.map((p) => ({
      partition: p.partition,
      offset: Math.min(p.end, Math.max(p.earliest, from)),
    }));
  } else {
    throw new Error('give fromOffset or fromTime');
  }
  await log.setCommittedOffsets(request.group, request.topic, offsets);
  const lag = await log.groupLag(request.group, [request.topic]);
  return { offsets, toProcess: lag.reduce((s, p) => s + p.lag, 0) };
}
