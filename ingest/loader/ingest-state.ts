import fs from 'node:fs';
import path from 'node:path';
import { type Database, open, type RootDatabase } from 'lmdb';
import type { ValidationContext } from './validate.ts';

/**
 * The durable set of records already ingested, `type:id` → time of ingest, in LMDB under
 * `<data dir>/ingest-state` (or `EARSHOT_INGEST_STATE_DIR`). The NDJSON loader skips what is in it (resumability) and answers
 * "is this episode / podcast known?" from it; the feed poller and HTTP ingest record what they
 * publish here too. Several processes may share it (LMDB is multi-process safe).
 *
 * HTTP batch ingest also keeps here, written before anything is appended to the log, the
 * *intent* of each batch (which records it is about to publish, by whom, since when) with a
 * pointer from each record id to it, and the state of each `Idempotency-Key`. A kill at any
 * point leaves either nothing, or an intent that the next request touching it (or the next
 * start) resolves from the log itself (see BatchIngest).
 */
export interface IngestIntent {
  id: string;
  /** The process that writes the batch: its pid and a per-process-start instance id. */
  owner: { pid: number; instance: string };
  /** Epoch ms just before the first append. */
  at: number;
  topics: string[];
  /** `type:id` of every record the batch publishes. */
  ids: string[];
  /** The idempotency scope (`<ingest token id> <Idempotency-Key>`), when the client sent a key. */
  key?: string;
}

/** What the service knows about one `Idempotency-Key` (per ingest token). */
export interface IdempotencyRecord {
  /** SHA-256 of the batch's records: a key is for one batch only. */
  fingerprint: string;
  /** Epoch ms of the first request with the key. */
  at: number;
  /** The intent of the attempt in progress (or interrupted). */
  intent?: string;
  /** Ids a crashed attempt was found to have published (counted as published by a retry). */
  published: string[];
  /** The answer, once an attempt completed: every retry gets it again. */
  result?: unknown;
}

export class IngestState implements ValidationContext {
  private readonly root: RootDatabase;
  private readonly ingested: Database<number, string>;
  private readonly intents: Database<IngestIntent, string>;
  private readonly pending: Database<string, string>;
  private readonly keys: Database<IdempotencyRecord, string>;
  private last: Promise<unknown> = Promise.resolve();

  constructor(dir: string) {
    fs.mkdirSync(dir, { recursive: true });
    this.root = open({ path: dir, maxDbs: 8 });
    this.ingested = this.root.openDB<number, string>({ name: 'ingested' });
    this.intents = this.root.openDB<IngestIntent, string>({ name: 'batch-intents' });
    this.pending = this.root.openDB<string, string>({ name: 'pending-ids' });
    this.keys = this.root.openDB<IdempotencyRecord, string>({ name: 'idempotency-keys' });
  }

  static inDataDir(dataDir: string): IngestState {
    return new IngestState(path.join(dataDir, 'ingest-state'));
  }

  has(id: string): boolean {
    return this.ingested.doesExist(id);
  }

  knownEpisode(id: string): boolean {
    return this.has(`episode:${id}`);
  }

  knownPodcast(id: string): boolean {
    return this.has(`podcast:${id}`);
  }

  /** Records ids as ingested (after the log acknowledged them). */
  mark(ids: string[], at = Date.now()): Promise<void> {
    if (ids.length === 0) return Promise.resolve();
    return this.write(() => {
      for (const id of ids) this.ingested.put(id, at);
    });
  }

  count(prefix = ''): number {
    let n = 0;
    for (const _ of this.ingested.getKeys({ start: prefix, end: `${prefix}\uffff` })) n++;
    return n;
  }

  /** The intent a record id is pending under, if any. */
  pendingIntentOf(id: string): string | undefined {
    return this.pending.get(id);
  }

  intent(id: string): IngestIntent | undefined {
    return this.intents.get(id);
  }

  /** Every intent not yet completed or resolved. */
  openIntents(): IngestIntent[] {
    return [...this.intents.getRange()].map(({ value }) => value);
  }

  idempotency(scope: string): IdempotencyRecord | undefined {
    return this.keys.get(scope);
  }

  /**
   * Writes a batch's intent, the pointers of its ids and (with a key) the key's record, in one
   * transaction, before anything is appended. The transaction checks again that no id was
   * ingested or is pending and that the key has no open intent or answer: another process
   * sharing this state may have decided on the same records since they were read. Resolves to
   * false (nothing written) when one of them changed: the caller decides again.
   */
  begin(intent: IngestIntent, fingerprint?: string): Promise<boolean> {
    let begun = false;
    return this.write(() => {
      for (const id of intent.ids) {
        if (this.ingested.doesExist(id) || this.pending.get(id) !== undefined) return;
      }
      const key = intent.key ? this.keys.get(intent.key) : undefined;
      if (key?.intent !== undefined || key?.result !== undefined) return;
      begun = true;
      this.intents.put(intent.id, intent);
      for (const id of intent.ids) this.pending.put(id, intent.id);
      if (intent.key && fingerprint) {
        this.keys.put(intent.key, {
          fingerprint,
          at: key?.at ?? intent.at,
          intent: intent.id,
          published: key?.published ?? [],
        });
      }
    }).then(() => begun);
  }

  /**
   * Ends an intent in one transaction: `published` are recorded as ingested, the intent and its
   * pointers are removed; with a key, `result` is kept as the key's answer, or (after a crash,
   * no result) the published ids are added to what the key has published.
   */
  settle(intentId: string, published: string[], result?: unknown): Promise<void> {
    const at = Date.now();
    return this.write(() => {
      const intent = this.intents.get(intentId);
      if (!intent) return;
      for (const id of published) this.ingested.put(id, at);
      for (const id of intent.ids) if (this.pending.get(id) === intentId) this.pending.remove(id);
      this.intents.remove(intentId);
      const key = intent.key ? this.keys.get(intent.key) : undefined;
      if (intent.key && key) {
        this.keys.put(intent.key, {
          fingerprint: key.fingerprint,
          at: key.at,
          published: [...new Set([...key.published, ...published])],
          ...(result === undefined ? {} : { result }),
        });
      }
    });
  }

  /** Keeps a key's answer when a retry found nothing left to publish (no intent was needed). */
  answer(scope: string, fingerprint: string, result: unknown): Promise<void> {
    return this.write(() => {
      const prior = this.keys.get(scope);
      this.keys.put(scope, {
        fingerprint,
        at: prior?.at ?? Date.now(),
        published: prior?.published ?? [],
        result,
      });
    });
  }

  /** Forgets idempotency keys first used before `before` (epoch ms) that have no open intent. */
  pruneKeys(before: number): Promise<number> {
    const doomed = [...this.keys.getRange()]
      .filter(({ value }) => value.at < before && !value.intent)
      .map(({ key }) => key);
    if (doomed.length === 0) return Promise.resolve(0);
    return this.write(() => {
      for (const key of doomed) this.keys.remove(key);
    }).then(() => doomed.length);
  }

  private write(body: () => void): Promise<void> {
    const done = this.root.transaction(body);
    this.last = done;
    return done.then(() => undefined);
  }

  async close(): Promise<void> {
    await this.last;
    await this.root.close();
  }
}
