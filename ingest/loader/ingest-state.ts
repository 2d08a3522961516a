import fs from 'node:fs';
import path from 'node:path';
import { type Database, open, type RootDatabase } from 'lmdb';
import type { ValidationContext } from './validate.ts';

/**
 * The durable set of records already ingested, `type:id` → time of ingest, in LMDB under
 * `<data dir>/ingest-state`. The NDJSON loader skips what is in it (resumability) and answers
 * "is this episode / podcast known?" from it; the feed poller and HTTP ingest record what they
 * publish here too. Several processes may share it (LMDB is multi-process safe).
 */
export class IngestState implements ValidationContext {
  private readonly root: RootDatabase;
  private readonly ingested: Database<number, string>;
  private last: Promise<unknown> = Promise.resolve();

  constructor(dir: string) {
    fs.mkdirSync(dir, { recursive: true });
    this.root = open({ path: dir, maxDbs: 2 });
    this.ingested = this.root.openDB<number, string>({ name: 'ingested' });
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
    const done = this.ingested.transaction(() => {
      for (const id of ids) this.ingested.put(id, at);
    });
    this.last = done;
    return done.then(() => undefined);
  }

  count(prefix = ''): number {
    let n = 0;
    for (const _ of this.ingested.getKeys({ start: prefix, end: `${prefix}\uffff` })) n++;
    return n;
  }

  async close(): Promise<void> {
    await this.last;
    await this.root.close();
  }
}
