import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { stateStoreError } from './state-errors.ts';
import type { StateStore, Transaction } from './state-store.ts';

export class StateStoreLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(
      `the embedded state store in ${dir} is open in process ${pid}; ` +
        'operator commands reach a running service through its admin socket',
    );
    this.name = 'StateStoreLockedError';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** One process at a time may open a PGlite directory: a second opener would see a diverging copy. */
function lock(dir: string): () => void {
  const file = `${path.resolve(dir)}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(fs.readFileSync(file, 'utf8'));
      if (holder && holder !== process.pid && alive(holder)) throw new StateStoreLockedError(dir, holder);
      fs.rmSync(file, { force: true });
    }
  }
  throw new Error(`could not lock ${dir}`);
}

/** An error PGlite raised itself (it carries the statement it ran), as opposed to a caller's. */
function isEngineError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'query' in err && 'severity' in err;
}

/**
 * Embedded PostgreSQL (PGlite, WebAssembly) persisted in a directory; `dir` undefined = in memory.
 * `from` is a data directory dumped by PGlite (`dumpDataDir`) to start from instead of creating
 * an empty cluster, which is most of the cost of opening a new store.
 */
export class PgliteStateStore implements StateStore {
  readonly kind = 'embedded';
  private readonly db: PGlite;
  private readonly unlock: () => void = () => {};

  constructor(dir?: string, options: { from?: Blob } = {}) {
    if (dir) {
      fs.mkdirSync(dir, { recursive: true });
      this.unlock = lock(dir);
    }
    this.db = new PGlite(dir, options.from ? { loadDataDir: options.from } : {});
  }

  /** Errors carry the SQLSTATE, message and statement shape, never parameters (state-errors.ts). */
  async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    try {
      return (await this.db.query<T>(sql, params)).rows;
    } catch (err) {
      throw stateStoreError(err, this.kind, sql);
    }
  }

  async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    try {
      return await this.db.transaction((tx) =>
        fn({
          query: async <R>(sql: string, params: unknown[] = []) => {
            try {
              return (await tx.query<R>(sql, params)).rows;
            } catch (err) {
              throw stateStoreError(err, this.kind, sql);
            }
          },
          exec: async (sql: string) => {
            try {
              await tx.exec(sql);
            } catch (err) {
              throw stateStoreError(err, this.kind, sql);
            }
          },
        }),
      );
    } catch (err) {
      // What the callback threw passes unchanged; the engine's own (BEGIN, COMMIT) is classified.
      throw isEngineError(err) ? stateStoreError(err, this.kind, 'BEGIN … COMMIT') : err;
    }
  }

  async exec(sql: string): Promise<void> {
    try {
      await this.db.exec(sql);
    } catch (err) {
      throw stateStoreError(err, this.kind, sql);
    }
  }

  async close(): Promise<void> {
    try {
      await this.db.close();
    } finally {
      this.unlock();
    }
  }
}
