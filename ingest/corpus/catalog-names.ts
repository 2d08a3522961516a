import { foldAccents as fold, nameSlug as slugify } from '../../schemas/text-folding.ts';
import type { Rng } from './rng.ts';
import { BRAND_HEADS, BRAND_TAILS } from './vocabulary/names.ts';

/** Names taken so far, compared folded (`Café` and `cafe` are one name). */
export class Names {
  private readonly used = new Set<string>();
  take(candidate: string): string | undefined {
    const key = fold(candidate);
    if (this.used.has(key)) return undefined;
    this.used.add(key);
    return candidate;
  }
  has(candidate: string): boolean {
    return this.used.has(fold(candidate));
  }
}

const MIDS = ['', '', 'an', 'er', 'il', 'or', 'u', 'at'];

/** The names one catalog hands out: unique slugs, and brands (invented words, never an ordinary word). */
export class Naming {
  private readonly slugs = new Names();
  /** Brands handed out so far. */
  readonly brands = new Names();
  private readonly brandRng: Rng;

  constructor(
    rng: Rng,
    /** The vocabulary's ordinary words, folded. */
    readonly vocab: Set<string>,
  ) {
    this.brandRng = rng.fork('brands');
  }

  /** `name`'s slug, with `-2`, `-3`… when taken. */
  uniqueSlug(name: string): string {
    const base = slugify(name) || 'item';
    for (let i = 1; ; i++) {
      const s = i === 1 ? base : `${base}-${i}`;
      if (this.slugs.take(s)) return s;
    }
  }

  newBrand(): string {
    const { brandRng, vocab, brands } = this;
    for (let attempt = 0; ; attempt++) {
      const mid =
        attempt > 200 ? brandRng.pick(MIDS.slice(2)) + brandRng.pick(MIDS.slice(2)) : brandRng.pick(MIDS);
      const b = brandRng.pick(BRAND_HEADS) + mid + brandRng.pick(BRAND_TAILS);
      if (vocab.has(fold(b))) continue;
      if (brands.take(b)) return b;
    }
  }
}
