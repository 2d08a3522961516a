import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

/**
 * Seeded random source for the corpus generator (xoroshiro128+ from pure-rand). Every part of
 * the corpus draws from its own stream, derived from the seed and a label (`rng.fork('podcast',
 * 3)`), so one podcast's content does not depend on how many numbers another part consumed:
 * the output is a function of the seed and the sizes only.
 */
export class Rng {
  private readonly gen: RandomGenerator;

  constructor(readonly seed: number) {
    this.gen = xoroshiro128plus(seed | 0);
  }

  /** An independent stream for a named part of the corpus. */
  fork(...labels: (string | number)[]): Rng {
    return new Rng(hash32(`${this.seed}/${labels.join('/')}`));
  }

  /** Uniform in [0, 1). */
  float(): number {
    const hi = (this.gen.next() >>> 0) * 2 ** 21;
    const lo = (this.gen.next() >>> 0) >>> 11;
    return (hi + lo) / 2 ** 53;
  }

  /** Integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  between(min: number, max: number): number {
    return min + this.float() * (max - min);
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.float() * items.length)]!;
  }

  /** Picks by weight; weights need not sum to 1. */
  weighted<T>(items: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, w] of items) total += w;
    let r = this.float() * total;
    for (const [item, w] of items) {
      r -= w;
      if (r < 0) return item;
    }
    return items.at(-1)![0];
  }

  /** `n` distinct items (fewer if the list is shorter). */
  sample<T>(items: readonly T[], n: number): T[] {
    const copy = [...items];
    const out: T[] = [];
    while (out.length < n && copy.length > 0) {
      const i = Math.floor(this.float() * copy.length);
      out.push(copy[i]!);
      copy[i] = copy.at(-1)!;
      copy.pop();
    }
    return out;
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.float() * (i + 1));
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    return items;
  }

  /** Roughly normal (Irwin–Hall of 4), clamped. */
  normal(mean: number, sd: number, min = -Infinity, max = Infinity): number {
    const z = (this.float() + this.float() + this.float() + this.float() - 2) * Math.sqrt(3);
    return Math.min(max, Math.max(min, mean + z * sd));
  }
}

/** FNV-1a, 32 bits: stable ids and seeds from strings. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A short stable hex id derived from a string. */
export function stableId(prefix: string, text: string, length = 10): string {
  let a = hash32(text);
  let b = hash32(`${text}#`);
  let out = '';
  while (out.length < length) {
    out += a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
    a = hash32(`${a}`);
    b = hash32(`${b}`);
  }
  return `${prefix}${out.slice(0, length)}`;
}
