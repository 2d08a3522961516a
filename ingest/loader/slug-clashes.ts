import type { BatchError, ValidRecord } from './validate.ts';

/** The record types whose slugs the catalog keeps unique. */
export type SluggedType = 'publisher' | 'podcast' | 'entity' | 'episode';
const SLUGGED: readonly string[] = ['publisher', 'podcast', 'entity', 'episode'] satisfies SluggedType[];

/** Which id holds each slug now (slug → id); slugs nobody holds are absent. */
export type SlugHolders = (type: SluggedType, slugs: string[]) => Promise<Map<string, string>>;

/**
 * The records of a valid batch whose slug another id holds — in the catalog, or earlier in the
 * same batch. The catalog keeps slugs unique per kind, so such a record would be dead-lettered
 * by the catalog projection after its transcript and mentions were already published: the batch
 * is refused instead. (A record is published once per id, so a batch cannot move a slug from one
 * id to another.) The catalog lags the log by a moment, so two batches racing for one slug can
 * still meet the projection's refusal — a dead letter, never a silent loss.
 */
export async function slugClashes(records: ValidRecord[], holders: SlugHolders): Promise<BatchError[]> {
  const errors: BatchError[] = [];
  for (const type of SLUGGED as SluggedType[]) {
    const mine: { id: string; slug: string; index: number }[] = [];
    records.forEach((r, index) => {
      const slug = r.value['slug'];
      if (r.type === type && typeof slug === 'string') mine.push({ id: String(r.value['id']), slug, index });
    });
    if (mine.length === 0) continue;
    const held = await holders(type, [...new Set(mine.map((r) => r.slug))]);
    const claimed = new Map<string, string>();
    for (const { id, slug, index } of mine) {
      const other = [held.get(slug), claimed.get(slug)].find(
        (holder) => holder !== undefined && holder !== id,
      );
      if (other !== undefined) {
        errors.push({
          index,
          field: 'data.slug',
          reason: `is held by ${type} ${other}; choose another slug`,
        });
      } else {
        claimed.set(slug, id);
      }
    }
  }
  return errors.sort((a, b) => a.index - b.index);
}
