import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { TopicSpec } from '../../schemas/topics.ts';
import type { EventLog } from '../event-log/event-log.ts';
import { rangesSince, readRanges } from '../event-log/read-ranges.ts';
import type { EventProducer } from '../event-producer.ts';
import type { IngestIntent, IngestState } from './ingest-state.ts';
import { INGEST_RECORD_TYPES } from './record-format.ts';
import type { ValidRecord } from './validate.ts';

/**
 * Publishes validated HTTP ingest batches exactly once per record, across crashes.
 *
 * Order of writes: (1) the batch's intent — the ids it is about to publish, its owner process and
 * the time — is committed to the ingest state with a pointer from each id; (2) the records are
 * appended, each with the headers `earshot-ingest-id` (`type:id`) and `earshot-ingest-batch`
 * (the intent id); (3) one transaction records the ids as ingested, removes the intent and, with
 * an `Idempotency-Key`, keeps the answer. A kill -9 before (1) leaves nothing; after (1) it leaves
 * an intent. An intent whose owner is gone (a dead pid, an earlier incarnation of this process,
 * a failed append of this process, or older than ten minutes) is *resolved from the log itself*:
 * the records appended since the intent's time are read back, and the ids found with its batch
 * header are recorded as ingested; the rest are free to be published again. Resolution runs at
 * start for every open intent and whenever a request touches a pending id or key, so a retried
 * batch publishes nothing twice and reports what the crashed attempt published. The same holds
 * on Kafka: the read-back goes through the event-log port.
 */
export interface BatchResult {
  received: number;
  published: number;
  duplicates: number;
  transcript_lines: number;
  by_type: Record<string, number>;
}

export interface BatchRequest {
  /** The batch, validated, in its order (duplicate ids are allowed: only the first counts). */
  records: ValidRecord[];
  /** With an `Idempotency-Key`: its scope (token and key) and the batch's fingerprint. */
  idempotency?: { scope: string; fingerprint: string };
}

export interface BatchOutcome {
  result: BatchResult;
  /** The answer of an earlier attempt with the same `Idempotency-Key`, given again. */
  replayed: boolean;
}

/** The key was used before for a different batch. */
export class IdempotencyKeyReusedError extends Error {
  constructor() {
    super('this Idempotency-Key was used for a different batch');
    this.name = 'IdempotencyKeyReusedError';
  }
}

/** Another live process is publishing some of these records (or this key) right now. */
export class BatchInProgressError extends Error {
  constructor(readonly what: 'key' | 'records') {
    super(
      what === 'key'
        ? 'a batch with this Idempotency-Key is being ingested'
        : 'some of these records are being ingested by another request',
    );
    this.name = 'BatchInProgressError';
  }
}

/**
 * Test-only fault injection (`EARSHOT_TEST_CRASH_AT`): the process SIGKILLs itself at this point
 * of a batch that publishes anything. Unset (the default) does nothing.
 */
export const CRASH_POINTS = ['ingest-after-intent', 'ingest-mid-append', 'ingest-after-append'] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

export const INGEST_ID_HEADER = 'earshot-ingest-id';
export const INGEST_BATCH_HEADER = 'earshot-ingest-batch';

/** Past this age an intent's owner is presumed gone, whatever its pid says (pid reuse). */
const STALE_INTENT_MS = 10 * 60_000;
/** Records are read back from this long before an intent's time (clock steps, producer timestamps). */
const READ_BACK_MARGIN_MS = 60_000;
/** Idempotency keys are kept this long. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3_600_000;

export interface BatchIngestOptions {
  producer: EventProducer;
  log: EventLog;
  state: IngestState;
  logger: Logger;
  crashAt?: CrashPoint;
  /** What reaching `crashAt` does (default: SIGKILL this process; tests in one process throw). */
  crash?: (point: CrashPoint) => void;
  now?: () => number;
}

export class BatchIngest {
  /** Identifies this process start in the intents it writes. */
  readonly instance = randomUUID();
  /** Intents this process is appending, until they are settled. */
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Decisions (what to publish, writing the intent) are made one at a time. */
  private gate: Promise<unknown> = Promise.resolve();
  private recovered?: Promise<void>;
  private readonly now: () => number;

  constructor(private readonly opts: BatchIngestOptions) {
    this.now = opts.now ?? Date.now;
  }

  /**
   * Resolves every open intent whose owner is gone, and forgets expired keys (at start; the
   * first request waits for it, and tries again if it failed).
   */
  recover(): Promise<void> {
    this.recovered ??= this.exclusive(async () => {
      for (const intent of this.opts.state.openIntents()) {
        if (this.ownerOf(intent) === 'gone') await this.resolve(intent);
      }
      await this.opts.state.pruneKeys(this.now() - IDEMPOTENCY_KEY_TTL_MS);
    }).catch((err: unknown) => {
      this.recovered = undefined;
      throw err;
    });
    return this.recovered;
  }

  async publish(request: BatchRequest): Promise<BatchOutcome> {
    await this.recover();
    for (;;) {
      const step = await this.exclusive(() => this.decide(request));
      if (step.kind === 'wait') {
        await step.on;
        continue;
      }
      if (step.kind === 'done') return step.outcome;
      const { intent, publishedBefore, settled } = step;
      try {
        await this.append(intent, request.records);
        const result = resultOf(request.records, new Set([...publishedBefore, ...intent.ids]));
        await this.opts.state.settle(intent.id, intent.ids, request.idempotency ? result : undefined);
        return { result, replayed: false };
      } finally {
        // Settled, or (the append failed) left for resolution from the log like a crash.
        this.inFlight.delete(intent.id);
        settled();
      }
    }
  }

  /** Decides, with nothing else deciding, what a batch does next. */
  private async decide(
    request: BatchRequest,
  ): Promise<
    | { kind: 'wait'; on: Promise<void> }
    | { kind: 'done'; outcome: BatchOutcome }
    | { kind: 'append'; intent: IngestIntent; publishedBefore: string[]; settled: () => void }
  > {
    const { state } = this.opts;
    const key = request.idempotency;
    const record = key ? state.idempotency(key.scope) : undefined;
    if (key && record) {
      if (record.fingerprint !== key.fingerprint) throw new IdempotencyKeyReusedError();
      if (record.result !== undefined) {
        return { kind: 'done', outcome: { result: record.result as BatchResult, replayed: true } };
      }
    }
    // Intents this batch touches (its key's, its ids') must be over before it decides anything.
    const touched = new Set<string>();
    if (record?.intent) touched.add(record.intent);
    for (const r of request.records) {
      const pending = state.pendingIntentOf(r.id);
      if (pending) touched.add(pending);
    }
    for (const id of touched) {
      const intent = state.intent(id);
      if (!intent) continue;
      const owner = this.ownerOf(intent);
      if (owner === 'this process') return { kind: 'wait', on: this.inFlight.get(id)! };
      if (owner === 'another process')
        throw new BatchInProgressError(intent.key === key?.scope ? 'key' : 'records');
      await this.resolve(intent);
    }
    const again = key ? state.idempotency(key.scope) : undefined;
    const publishedBefore = again?.published ?? [];
    const fresh = new Map<string, ValidRecord>();
    for (const r of request.records) if (!fresh.has(r.id) && !state.has(r.id)) fresh.set(r.id, r);
    if (fresh.size === 0) {
      const result = resultOf(request.records, new Set(publishedBefore));
      if (key) await state.answer(key.scope, key.fingerprint, result);
      return { kind: 'done', outcome: { result, replayed: false } };
    }
    const intent: IngestIntent = {
      id: `ib_${randomUUID()}`,
      owner: { pid: process.pid, instance: this.instance },
      at: this.now(),
      topics: [...new Set([...fresh.values()].map((r) => r.topic.name))],
      ids: [...fresh.keys()],
      ...(key ? { key: key.scope } : {}),
    };
    // Another process sharing the state decided on some of these records (or this key) since
    // they were read: decide again (it finds them pending, or ingested).
    if (!(await state.begin(intent, key?.fingerprint))) {
      return { kind: 'wait', on: new Promise<void>((resolve) => setTimeout(resolve, 20)) };
    }
    // In flight from here until settled: requests touching it wait for it.
    let settled!: () => void;
    this.inFlight.set(intent.id, new Promise<void>((resolve) => (settled = resolve)));
    return { kind: 'append', intent, publishedBefore, settled };
  }

  /** Appends the intent's records, grouped by topic, catalog first, then what refers to it. */
  private async append(intent: IngestIntent, records: ValidRecord[]): Promise<void> {
    this.fault('ingest-after-intent');
    const ids = new Set(intent.ids);
    const byTopic = new Map<TopicSpec, ValidRecord[]>();
    for (const r of records) {
      if (!ids.delete(r.id)) continue;
      const list = byTopic.get(r.topic) ?? [];
      list.push(r);
      byTopic.set(r.topic, list);
    }
    const order = (t: TopicSpec) => INGEST_RECORD_TYPES.indexOf(byTopic.get(t)![0]!.type);
    const topics = [...byTopic.keys()].sort((a, b) => order(a) - order(b));
    for (const [i, topic] of topics.entries()) {
      await this.opts.producer.send(
        topic,
        byTopic.get(topic)!.map((r) => ({
          key: r.key,
          value: r.value,
          headers: { [INGEST_ID_HEADER]: r.id, [INGEST_BATCH_HEADER]: intent.id },
        })),
      );
      if (i === 0 && topics.length > 1) this.fault('ingest-mid-append');
    }
    this.fault('ingest-after-append');
  }

  /**
   * Settles an intent whose owner is gone from what the log holds: the records appended since
   * its time that carry its batch header were published; the others were not.
   */
  private async resolve(intent: IngestIntent): Promise<void> {
    const { log, state, logger } = this.opts;
    const wanted = new Set(intent.ids);
    const found = new Set<string>();
    const ranges = await rangesSince(log, intent.topics, intent.at - READ_BACK_MARGIN_MS);
    await readRanges(log, `earshot.ingest-recovery.${intent.id}`, ranges, (record) => {
      const id = record.headers[INGEST_ID_HEADER];
      if (record.headers[INGEST_BATCH_HEADER] === intent.id && id && wanted.has(id)) found.add(id);
    });
    await state.settle(intent.id, [...found]);
    logger.warn(
      { intent: intent.id, owner: intent.owner, records: intent.ids.length, in_log: found.size },
      'ingest batch interrupted before it was recorded: resolved from the event log',
    );
  }

  private ownerOf(intent: IngestIntent): 'this process' | 'another process' | 'gone' {
    if (intent.owner.instance === this.instance) {
      // Ours and still appending; otherwise its append failed and it is settled like a crash.
      return this.inFlight.has(intent.id) ? 'this process' : 'gone';
    }
    if (this.now() - intent.at > STALE_INTENT_MS || intent.owner.pid === process.pid) return 'gone';
    try {
      process.kill(intent.owner.pid, 0);
      return 'another process';
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EPERM' ? 'another process' : 'gone';
    }
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.gate.then(work, work);
    this.gate = run.catch(() => undefined);
    return run;
  }

  private fault(point: CrashPoint): void {
    if (this.opts.crashAt !== point) return;
    if (this.opts.crash) {
      this.opts.crash(point);
      return;
    }
    // Written synchronously: an asynchronous log line would die with the process.
    process.stderr.write(`EARSHOT_TEST_CRASH_AT=${point}: killing this process (SIGKILL)\n`);
    process.kill(process.pid, 'SIGKILL');
  }
}

/** The answer for a batch given the ids published by it (now or by an interrupted attempt). */
export function resultOf(records: ValidRecord[], published: Set<string>): BatchResult {
  const counted = new Set<string>();
  const byType: Record<string, number> = {};
  let lines = 0;
  for (const r of records) {
    if (!published.has(r.id) || counted.has(r.id)) continue;
    counted.add(r.id);
    byType[r.type] = (byType[r.type] ?? 0) + 1;
    if (r.type === 'transcript') lines += (r.value.lines as unknown[]).length;
  }
  return {
    received: records.length,
    published: counted.size,
    duplicates: records.length - counted.size,
    transcript_lines: lines,
    by_type: byType,
  };
}
