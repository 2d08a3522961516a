import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
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

/** Embedded PostgreSQL (PGlite, WebAssembly) persisted in a directory; `dir` undefined = in memory. */
export class PgliteStateStore implements StateStore {
  readonly kind = 'embedded';
  private readonly db: PGlite;
  private readonly unlock: () => void = () => {};

  constructor(dir?: string) {
    if (dir) {
      fs.mkdirSync(dir, { recursive: true });
      this.unlock = lock(dir);
    }
    this.db = new PGlite(dir);
  }

  async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.db.query<T>(sql, params)).rows;
  }

  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.db.transaction((tx) =>
      fn({
        query: async <R>(sql: string, params: unknown[] = []) => (await tx.query<R>(sql, params)).rows,
        exec: async (sql: string) => {
          await tx.exec(sql);
        },
      }),
    );
  }

  async exec(sql: string): Promise<void> {
    await this.db.exec(sql);
  }

  async close(): Promise<void> {
    try {
      await this.db.close();
    } finally {
      this.unlock();
    }
  }
}
