import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { BatchedCounts } from '../../api/batched-counts.ts';

interface Count {
  key: string;
  n: number;
}

/** A store that records each batch it accepted and refuses while `down` is set. */
function store() {
  const written: Count[][] = [];
  const s = {
    down: false,
    written,
    async write(batch: Count[]) {
      await new Promise((r) => setTimeout(r, 5)); // a store answers later
      if (s.down) throw new Error('store unavailable');
      written.push(batch.map((c) => ({ ...c })));
    },
  };
  return s;
}

function counts(s: ReturnType<typeof store>) {
  return new BatchedCounts<Count>({
    write: (batch) => s.write(batch),
    merge: (into, from) => {
      into.n += from.n;
    },
    log: pino({ level: 'silent' }),
    what: 'test counts',
    intervalMs: 60_000,
  });
}

const bump = (c: Count) => {
  c.n += 1;
};

describe('BatchedCounts', () => {
  it('adds the counts of one key and writes them as one batch', async () => {
    const s = store();
    const c = counts(s);
    for (let i = 0; i < 3; i++) c.add('a', () => ({ key: 'a', n: 0 }), bump);
    c.add('b', () => ({ key: 'b', n: 0 }), bump);
    await c.flush();
    expect(s.written).toEqual([
      [
        { key: 'a', n: 3 },
        { key: 'b', n: 1 },
      ],
    ]);
    await c.close();
    expect(s.written).toHaveLength(1); // nothing new: no empty batch
  });

  it('keeps a refused batch and writes it with the counts added meanwhile', async () => {
    const s = store();
    const c = counts(s);
    c.add('a', () => ({ key: 'a', n: 0 }), bump);
    c.add('a', () => ({ key: 'a', n: 0 }), bump);
    s.down = true;
    const refused = c.flush();
    await new Promise((r) => setTimeout(r, 0)); // the batch is on its way to the store
    c.add('a', () => ({ key: 'a', n: 0 }), bump);
    c.add('c', () => ({ key: 'c', n: 0 }), bump);
    await refused;
    expect(s.written).toEqual([]);
    s.down = false;
    await c.close();
    expect(s.written).toEqual([
      [
        { key: 'a', n: 3 },
        { key: 'c', n: 1 },
      ],
    ]);
  });

  it('writes one batch at a time, in order', async () => {
    const order: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const c = new BatchedCounts<Count>({
      async write(batch) {
        order.push(`start ${batch[0]?.key}`);
        if (batch[0]?.key === 'first') await gate;
        order.push(`end ${batch[0]?.key}`);
      },
      merge: (into, from) => {
        into.n += from.n;
      },
      log: pino({ level: 'silent' }),
      what: 'test counts',
      intervalMs: 60_000,
    });
    c.add('first', () => ({ key: 'first', n: 0 }), bump);
    const one = c.flush();
    await new Promise((r) => setTimeout(r, 0)); // the first batch is being written
    c.add('second', () => ({ key: 'second', n: 0 }), bump);
    const two = c.flush();
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual(['start first']);
    release();
    await Promise.all([one, two]);
    expect(order).toEqual(['start first', 'end first', 'start second', 'end second']);
  });
});
