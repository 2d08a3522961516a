import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { ApiKeyUsage, UsageCount } from '../../projections/state/api-key-usage.ts';
import { BatchedCounts } from '../batched-counts.ts';

/**
 * Counts the requests of each API key: per UTC day (added to the state store every few seconds
 * and when the server closes; the dashboard's usage page reads them there) and in the current
 * minute (in memory: the rate-limit state this process shows). A request counts once it is
 * authenticated, whatever its answer; a 429 counts as rate-limited as well.
 *
 * A crash loses at most the counts of the last interval; a batch the store refuses is kept and
 * added with the next one.
 */
export class UsageCounter {
  private readonly days: BatchedCounts<UsageCount>;
  private minute = { start: 0, counts: new Map<string, number>() };

  constructor(store: ApiKeyUsage, log: FastifyBaseLogger, intervalMs = 5000) {
    this.days = new BatchedCounts({
      write: (batch) => store.add(batch),
      merge: (into, from) => {
        into.requests += from.requests;
        into.rateLimited += from.rateLimited;
      },
      log,
      what: 'API key usage',
      intervalMs,
    });
  }

  count(keyId: string, rateLimited: boolean, now = Date.now()): void {
    const day = new Date(now).toISOString().slice(0, 10);
    this.days.add(
      `${keyId} ${day}`,
      () => ({ keyId, day, requests: 0, rateLimited: 0 }),
      (entry) => {
        entry.requests += 1;
        if (rateLimited) entry.rateLimited += 1;
      },
    );
    const start = now - (now % 60_000);
    if (start !== this.minute.start) this.minute = { start, counts: new Map() };
    this.minute.counts.set(keyId, (this.minute.counts.get(keyId) ?? 0) + 1);
  }

  /** Requests of a key in the current clock minute, counted by this process. */
  thisMinute(keyId: string, now = Date.now()): number {
    return now - (now % 60_000) === this.minute.start ? (this.minute.counts.get(keyId) ?? 0) : 0;
  }

  /** Adds what was counted to the store (one statement); on failure it is kept for the next time. */
  flush(): Promise<void> {
    return this.days.flush();
  }

  close(): Promise<void> {
    return this.days.close();
  }
}

/** Counts each authenticated request's key (see UsageCounter); flushes when the server closes. */
export const usagePlugin = fp<{ counter: UsageCounter }>(async (app: FastifyInstance, { counter }) => {
  app.addHook('onResponse', async (request, reply) => {
    // Per API key; calls under an OAuth grant are counted per tool by the agent-tool server.
    if (request.principal && !request.principal.grantId)
      counter.count(request.principal.keyId, reply.statusCode === 429);
  });
  app.addHook('onClose', async () => counter.close());
});
