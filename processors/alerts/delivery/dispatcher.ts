import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { EventProducer } from '../../../ingest/event-producer.ts';
import type { ChannelType } from '../../../schemas/event-enums.ts';
import type {
  DeliveryAbandoned,
  DeliveryAttempted,
  DeliveryDelivered,
} from '../../../schemas/generated/index.ts';
import { TOPICS } from '../../../schemas/topics.ts';
import type { AttemptResult, ChannelSender } from './channels/attempt.ts';
import type { Clock } from './clock.ts';
import type { DeliveryJob, DeliveryJobs, JobUpdate } from './jobs.ts';
import type { RetrySchedule } from './retry-schedule.ts';

export interface DispatcherOptions {
  jobs: DeliveryJobs;
  senders: ChannelSender[];
  producer: EventProducer;
  schedule: RetrySchedule;
  clock: Clock;
  logger: Logger;
  /** Attempts in flight at once (default 256). */
  concurrency?: number;
  /** Most jobs claimed per query (default 200). */
  claimBatch?: number;
  /** How long a claim is held before another sender may take the job (default 2 min, > the 30 s attempt budget). */
  leaseMs?: number;
  /** Longest sleep between looks at the schedule when nothing wakes the dispatcher (default 1 s). */
  pollMs?: number;
  /** Release every lease at start: right when this process is the store's only user (embedded). */
  releaseLeasesOnStart?: boolean;
}

export interface DispatcherStats {
  attempts: number;
  delivered: number;
  retried: number;
  abandoned: number;
  skipped: number;
  deferred: number;
}

/** How long finished attempts wait to be recorded together. */
const FLUSH_DELAY_MS = 5;

interface Finished {
  job: DeliveryJob;
  result: AttemptResult;
  at: number;
}

/**
 * Works the durable schedule: claims due deliveries, attempts each over its channel, and records
 * every attempt as `DeliveryAttempted`, success as `DeliveryDelivered` and giving up as
 * `DeliveryAbandoned`, then updates the schedule (next attempt per the retry schedule, or done).
 * Events are written before the schedule is updated, and the schedule only after the attempt:
 * a crash at any point leaves the job leased and due, so it is attempted again — at least once,
 * never lost (a receiver deduplicates on the match id).
 */
export class DeliveryDispatcher {
  readonly owner = `snd_${randomBytes(6).toString('hex')}`;
  readonly stats: DispatcherStats = {
    attempts: 0,
    delivered: 0,
    retried: 0,
    abandoned: 0,
    skipped: 0,
    deferred: 0,
  };
  private readonly senders: Map<ChannelType, ChannelSender>;
  private readonly concurrency: number;
  private readonly claimBatch: number;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly minClaim: number;
  private inFlight = 0;
  private finished: Finished[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private flushScheduled = false;
  private wakeController = new AbortController();
  private stopping = false;
  private loop?: Promise<void>;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly opts: DispatcherOptions) {
    this.senders = new Map(opts.senders.map((s) => [s.type, s]));
    this.concurrency = opts.concurrency ?? 256;
    this.claimBatch = opts.claimBatch ?? 200;
    this.leaseMs = opts.leaseMs ?? 120_000;
    this.pollMs = opts.pollMs ?? 1000;
    this.minClaim = Math.max(1, Math.min(this.claimBatch, Math.ceil(this.concurrency / 4)));
  }

  async start(): Promise<void> {
    if (this.opts.releaseLeasesOnStart) {
      const released = await this.opts.jobs.releaseAllLeases();
      if (released > 0) this.opts.logger.warn({ released }, 'released deliveries claimed by a previous run');
    }
    this.loop = this.run();
    this.opts.logger.info(
      { owner: this.owner, concurrency: this.concurrency },
      'delivery dispatcher started',
    );
  }

  /** Look at the schedule now (new jobs were enqueued, or a slot freed up). */
  wake(): void {
    this.wakeController.abort();
  }

  private async run(): Promise<void> {
    const { jobs, clock, logger } = this.opts;
    let pruneAt = clock.now() + 60_000;
    while (!this.stopping) {
      const signal = this.wakeController.signal;
      try {
        if (clock.now() >= pruneAt) {
          pruneAt = clock.now() + 3_600_000;
          const pruned = await jobs.prune(clock.now());
          if (pruned > 0) logger.info({ pruned }, 'pruned finished deliveries from the schedule');
        }
        const free = this.concurrency - this.inFlight;
        let claimed: DeliveryJob[] = [];
        // Claim in sizeable batches: each claim and each batch load costs a few queries.
        if (free > 0 && (this.inFlight === 0 || free >= this.minClaim)) {
          const limit = Math.min(free, this.claimBatch);
          claimed = await jobs.claim(this.owner, clock.now(), limit, this.leaseMs, this.webhookLoad());
          if (claimed.length > 0) {
            await this.dispatch(claimed);
            if (claimed.length === limit) continue;
          }
        }
        if (this.stopping) break;
        if (signal.aborted) {
          this.wakeController = new AbortController();
          continue;
        }
        // With attempts in flight, the next flush wakes the loop; only an idle dispatcher needs to
        // know when the next job falls due (else it looks again after pollMs at the latest).
        let waitMs = this.pollMs;
        if (this.inFlight === 0) {
          const due = await jobs.nextDueAt(this.owner, clock.now(), this.busyConnections());
          if (due !== undefined) waitMs = Math.min(waitMs, Math.max(due - clock.now(), 0));
          // Something is due but was not claimable (a race): look again shortly.
          if (waitMs === 0 && claimed.length === 0) waitMs = 20;
        }
        if (waitMs > 0) await clock.sleep(waitMs, signal);
        if (signal.aborted) this.wakeController = new AbortController();
      } catch (err) {
        logger.error({ err }, 'delivery dispatcher: schedule unavailable; retrying');
        await clock.sleep(1000, this.wakeController.signal);
      }
    }
  }

  private webhookLoad() {
    return this.senders.get('WEBHOOK')?.load?.();
  }

  /** Webhook connections with no room for another attempt (their due jobs are not claimable now). */
  private busyConnections(): string[] {
    const load = this.webhookLoad();
    if (!load) return [];
    return Object.entries(load.inFlight)
      .filter(([, n]) => n >= load.perConnection)
      .map(([id]) => id);
  }

  private async dispatch(claimed: DeliveryJob[]): Promise<void> {
    this.inFlight += claimed.length;
    const byType = new Map<ChannelType, DeliveryJob[]>();
    for (const job of claimed) {
      const list = byType.get(job.channel.type) ?? [];
      list.push(job);
      byType.set(job.channel.type, list);
    }
    for (const [type, list] of byType) {
      const sender = this.senders.get(type);
      let attempt: (job: DeliveryJob) => Promise<AttemptResult>;
      if (!sender) {
        attempt = async () => ({
          outcome: 'skip',
          destination: type,
          reason: `no ${type.toLowerCase()} sender in this deployment`,
        });
      } else {
        try {
          attempt = await sender.prepare(list);
        } catch (err) {
          // Could not load what the batch needs: hand the jobs back untouched, try again soon.
          this.opts.logger.error({ err, channel: type }, 'could not prepare deliveries; will retry');
          await this.opts.jobs
            .release(
              this.owner,
              list.map((j) => j.job_id),
            )
            .catch(() => undefined);
          this.inFlight -= list.length;
          await this.opts.clock.sleep(1000);
          continue;
        }
      }
      for (const job of list) {
        attempt(job)
          .catch(
            (err: unknown): AttemptResult => ({
              outcome: 'failed',
              attemptId: `msg_${randomBytes(8).toString('hex')}`,
              destination: type,
              statusCode: null,
              error: `internal: ${(err as Error).message}`,
              durationMs: 0,
            }),
          )
          .then((result) => this.finish({ job, result, at: this.opts.clock.now() }));
      }
    }
  }

  /** Collects finished attempts and records them in batches (at most a few ms later). */
  private finish(entry: Finished): void {
    this.finished.push(entry);
    if (this.finished.length >= this.claimBatch) void this.flush();
    else if (!this.flushScheduled) {
      this.flushScheduled = true;
      setTimeout(() => {
        this.flushScheduled = false;
        void this.flush();
      }, FLUSH_DELAY_MS);
    }
  }

  /** Records finished attempts (events, then the schedule); serialised; retried until it succeeds. */
  private flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const batch = this.finished;
      if (batch.length === 0) return;
      this.finished = [];
      for (let attempt = 1; ; attempt++) {
        try {
          await this.record(batch);
          break;
        } catch (err) {
          this.opts.logger.error(
            { err, attempt, count: batch.length },
            'could not record delivery attempts; retrying',
          );
          await new Promise((r) => setTimeout(r, Math.min(30_000, 100 * 2 ** attempt)));
        }
      }
      this.inFlight -= batch.length;
      if (this.inFlight === 0) for (const w of this.idleWaiters.splice(0)) w();
      this.wake();
    });
    return this.flushing;
  }

  private async record(batch: Finished[]): Promise<void> {
    const attempted: { key: string; value: DeliveryAttempted }[] = [];
    const delivered: { key: string; value: DeliveryDelivered }[] = [];
    const abandoned: { key: string; value: DeliveryAbandoned }[] = [];
    const updates: JobUpdate[] = [];
    const stats = { ...this.stats };
    for (const { job, result, at } of batch) {
      const key = job.delivery_id;
      const common = {
        delivery_id: key,
        alert_id: job.alert_id,
        channel_type: job.channel.type,
        destination: result.destination,
      };
      if (result.outcome === 'defer') {
        stats.deferred++;
        updates.push({
          job_id: job.job_id,
          state: 'PENDING',
          attempts: job.attempts,
          next_attempt_at: at + result.delayMs,
          last_error: result.reason,
        });
        continue;
      }
      if (result.outcome === 'skip') {
        stats.skipped++;
        abandoned.push({
          key,
          value: { ...common, attempts: job.attempts, reason: result.reason, abandoned_at: at },
        });
        updates.push({
          job_id: job.job_id,
          state: 'ABANDONED',
          attempts: job.attempts,
          next_attempt_at: null,
          last_error: result.reason,
        });
        continue;
      }
      const n = job.attempts + 1;
      stats.attempts++;
      const delay =
        result.outcome === 'failed' ? this.opts.schedule.nextDelay(n, result.retryAfterMs) : undefined;
      const next = delay === undefined ? null : at + delay;
      attempted.push({
        key,
        value: {
          ...common,
          attempt_id: result.attemptId,
          attempt: n,
          succeeded: result.outcome === 'delivered',
          status_code: result.statusCode,
          error: result.error,
          duration_ms: result.durationMs,
          attempted_at: at,
          next_attempt_at: next,
        },
      });
      if (result.outcome === 'delivered') {
        stats.delivered++;
        delivered.push({ key, value: { ...common, attempts: n, delivered_at: at } });
        updates.push({
          job_id: job.job_id,
          state: 'DELIVERED',
          attempts: n,
          next_attempt_at: null,
          last_error: null,
        });
      } else if (next !== null) {
        stats.retried++;
        updates.push({
          job_id: job.job_id,
          state: 'PENDING',
          attempts: n,
          next_attempt_at: next,
          last_error: result.error,
        });
      } else {
        stats.abandoned++;
        const reason =
          result.outcome === 'abandon'
            ? (result.error ?? 'refused')
            : `${n} attempt${n === 1 ? '' : 's'} failed; last: ${result.error ?? 'unknown error'}`;
        abandoned.push({ key, value: { ...common, attempts: n, reason, abandoned_at: at } });
        updates.push({
          job_id: job.job_id,
          state: 'ABANDONED',
          attempts: n,
          next_attempt_at: null,
          last_error: result.error,
        });
      }
    }
    const { producer } = this.opts;
    await Promise.all([
      producer.send(TOPICS.deliveriesAttempted, attempted),
      producer.send(TOPICS.deliveriesDelivered, delivered),
      producer.send(TOPICS.deliveriesAbandoned, abandoned),
    ]);
    await this.opts.jobs.complete(updates, this.opts.clock.now());
    Object.assign(this.stats, stats);
  }

  /** Resolves once nothing is in flight (tests, shutdown). */
  idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops claiming, lets attempts in flight finish (each has its own time budget) and records them. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.wake();
    await this.loop;
    await this.idle();
    await this.flushing;
    this.opts.logger.info({ owner: this.owner, ...this.stats }, 'delivery dispatcher stopped');
  }
}
