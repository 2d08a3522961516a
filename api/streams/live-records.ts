import type { ArchiveStore, LiveEntry } from '../../projections/archive/index.ts';
import type { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import { type RecordInclude, renderRecords } from '../views/episode-record.ts';
import { includeKey } from './params.ts';

/**
 * Rendered records of the live order, shared by every stream of this process: a new episode is
 * read and rendered once per include set, however many clients receive it. Bounded by bytes
 * (least recently used go first).
 */
export class LiveRecords {
  private readonly cache = new Map<string, Promise<string | undefined>>();
  private readonly sizes = new Map<string, number>();
  private bytes = 0;

  constructor(
    private readonly archive: ArchiveStore,
    private readonly catalog: CatalogReader,
    private readonly budgetBytes = 32 * 1024 * 1024,
  ) {}

  /** The records of `entries` (by seq); an entry whose record is gone has none. */
  async get(entries: LiveEntry[], include: ReadonlySet<RecordInclude>): Promise<Map<number, string>> {
    const key = includeKey(include);
    const missing = entries.filter((e) => !this.cache.has(`${key}:${e.seq}`));
    if (missing.length > 0) {
      const loading = (async () => {
        const rows = await this.archive.records(
          missing.map((e) => e.episode_id),
          include,
        );
        const texts = await renderRecords(this.catalog, rows, include);
        return new Map(rows.map((r, i) => [r.episode_id, texts[i]!]));
      })();
      for (const e of missing) {
        const k = `${key}:${e.seq}`;
        const text = loading.then((byId) => byId.get(e.episode_id));
        this.cache.set(k, text);
        // A failed read is not kept: the next stream asks again.
        text.then(
          (t) => this.account(k, t?.length ?? 0),
          () => this.cache.delete(k),
        );
      }
    }
    // Every promise is taken before the first await: an eviction meanwhile cannot lose one.
    const pending = entries.map((e) => {
      const k = `${key}:${e.seq}`;
      const hit = this.cache.get(k)!;
      // Recently used: to the back of the eviction order.
      this.cache.delete(k);
      this.cache.set(k, hit);
      return [e.seq, hit] as const;
    });
    const out = new Map<number, string>();
    for (const [seq, hit] of pending) {
      const text = await hit;
      if (text !== undefined) out.set(seq, text);
    }
    return out;
  }

  private account(key: string, size: number): void {
    if (!this.cache.has(key)) return;
    this.sizes.set(key, size);
    this.bytes += size;
    for (const [k] of this.cache) {
      if (this.bytes <= this.budgetBytes) break;
      if (k === key) continue;
      const s = this.sizes.get(k);
      if (s === undefined) continue; // still loading
      this.cache.delete(k);
      this.sizes.delete(k);
      this.bytes -= s;
    }
  }
}
