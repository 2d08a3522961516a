import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../projections/state/migrations.ts';
import { type StateStore, sqlState, UNIQUE_VIOLATION } from '../../projections/state/state-store.ts';
import { errorKind } from '../../projections/store-errors.ts';

export interface StateStoreFixture {
  store: StateStore;
  cleanup(): Promise<void>;
}

/** The behaviour every state store adapter must have; the migrations run unchanged on each. */
export function stateStoreContract(adapter: string, setup: () => Promise<StateStoreFixture>) {
  describe(`state store contract: ${adapter}`, () => {
    let fx: StateStoreFixture;
    let store: StateStore;
    const table = `contract_${randomUUID().replaceAll('-', '').slice(0, 10)}`;

    beforeAll(async () => {
      fx = await setup();
      store = fx.store;
      await migrate(store);
      await store.exec(`CREATE TABLE ${table} (
        id text PRIMARY KEY, n integer, big int8, flag boolean, at timestamptz, doc jsonb, tags text[]
      )`);
    });
    afterAll(async () => {
      await store?.exec(`DROP TABLE IF EXISTS ${table}`);
      await fx?.cleanup();
    });

    it('applies every migration once and records it', async () => {
      expect(await migrate(store)).toEqual([]);
      const names = (
        await store.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name')
      ).map((r) => r.name);
      expect(names).toContain('001_accounts.sql');
      const plans = await store.query<{ code: string }>('SELECT code FROM plans ORDER BY sort_order');
      expect(plans.map((p) => p.code)).toEqual(['starter', 'growth', 'team', 'business', 'enterprise']);
    });

    it('round-trips parameters and column types the same way', async () => {
      const at = new Date('2026-03-04T05:06:07.089Z');
      await store.query(
        `INSERT INTO ${table} (id, n, big, flag, at, doc, tags) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          'a',
          42,
          9_007_199_254_740_000,
          true,
          at,
          JSON.stringify({ nested: { list: [1, 'two'] } }),
          ['x', 'y'],
        ],
      );
      const [row] = await store.query<Record<string, unknown>>(`SELECT * FROM ${table} WHERE id = $1`, ['a']);
      expect(row).toEqual({
        id: 'a',
        n: 42,
        big: 9_007_199_254_740_000,
        flag: true,
        at,
        doc: { nested: { list: [1, 'two'] } },
        tags: ['x', 'y'],
      });
      const [count] = await store.query<{ c: number }>(`SELECT count(*)::int8 AS c FROM ${table}`);
      expect(count!.c).toBe(1);
    });

    it('commits a transaction that resolves and rolls back one that throws', async () => {
      await store.transaction(async (tx) => {
        await tx.query(`INSERT INTO ${table} (id, n) VALUES ($1, $2)`, ['committed', 1]);
      });
      await expect(
        store.transaction(async (tx) => {
          await tx.query(`INSERT INTO ${table} (id, n) VALUES ($1, $2)`, ['rolled-back', 1]);
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      const ids = (await store.query<{ id: string }>(`SELECT id FROM ${table} WHERE n = 1 ORDER BY id`)).map(
        (r) => r.id,
      );
      expect(ids).toEqual(['committed']);
    });

    it('reports a unique violation with its SQLSTATE', async () => {
      await store.query(`INSERT INTO ${table} (id) VALUES ($1)`, ['dup']);
      const err = await store
        .query(`INSERT INTO ${table} (id) VALUES ($1)`, ['dup'])
        .catch((e: unknown) => e);
      expect(sqlState(err)).toBe(UNIQUE_VIOLATION);
    });

    it('refuses text it cannot store as a permanent data error that carries no parameter values', async () => {
      const secret = 'secret-param-value';
      for (const [sql, params, code] of [
        [`INSERT INTO ${table} (id, n) VALUES ($1, $2)`, [`${secret}\u0000`, 1], '22021'],
        [
          `INSERT INTO ${table} (id, doc) SELECT id, NULL FROM jsonb_to_recordset($1::jsonb) AS x(id text)`,
          [JSON.stringify([{ id: `${secret}\u0000` }])],
          '22P05',
        ],
        [`SELECT * FROM ${table} WHERE id = $1`, [`${secret}\u0000`], '22021'],
      ] as const) {
        const err = await store.query(sql, [...params]).catch((e: unknown) => e);
        expect(errorKind(err), sql).toBe('permanent');
        expect(sqlState(err)).toBe(code);
        const logged = JSON.stringify({ ...(err as object), message: (err as Error).message });
        expect(logged).not.toContain(secret);
        expect((err as { statement?: string }).statement).toContain(table);
      }
      const inTx = await store
        .transaction((tx) => tx.query(`INSERT INTO ${table} (id) VALUES ($1)`, ['nul\u0000']))
        .catch((e: unknown) => e);
      expect(errorKind(inTx)).toBe('permanent');
      // A mistake in the statement is not the data's fault.
      const mistake = await store
        .query('SELECT no_such_column FROM schema_migrations WHERE name = $1', ['x'])
        .catch((e: unknown) => e);
      expect(errorKind(mistake)).toBe('unknown');
      expect(sqlState(mistake)).toBe('42703');
    });

    it('answers many statements at once, each with its own rows, and a failing one fails alone', async () => {
      const divisor = (i: number) => (i % 50 === 7 ? 0 : 1);
      const settled = await Promise.allSettled(
        Array.from({ length: 300 }, (_, i) =>
          store.query<{ n: number }>('SELECT $1::int * 10 / $2::int AS n', [i, divisor(i)]),
        ),
      );
      settled.forEach((outcome, i) => {
        if (divisor(i) === 0) {
          expect(outcome.status).toBe('rejected');
          expect(sqlState((outcome as PromiseRejectedResult).reason)).toBe('22012');
        } else {
          expect(outcome).toEqual({ status: 'fulfilled', value: [{ n: i * 10 }] });
        }
      });
    });

    it('keeps concurrent read-modify-write transactions consistent', async () => {
      await store.query(`INSERT INTO ${table} (id, n) VALUES ($1, 0)`, ['counter']);
      await Promise.all(
        Array.from({ length: 20 }, () =>
          store.transaction(async (tx) => {
            const [r] = await tx.query<{ n: number }>(`SELECT n FROM ${table} WHERE id = $1 FOR UPDATE`, [
              'counter',
            ]);
            await tx.query(`UPDATE ${table} SET n = $1 WHERE id = $2`, [r!.n + 1, 'counter']);
          }),
        ),
      );
      const [r] = await store.query<{ n: number }>(`SELECT n FROM ${table} WHERE id = $1`, ['counter']);
      expect(r!.n).toBe(20);
    });

    it('reads a table with its new columns after it is altered under statements already run', async () => {
      const altered = `${table}_alt`;
      await store.exec(`CREATE TABLE ${altered} (id text PRIMARY KEY, a integer)`);
      try {
        await store.query(`INSERT INTO ${altered} (id, a) VALUES ($1, $2)`, ['x', 1]);
        const read = () =>
          store.query<Record<string, unknown>>(`SELECT * FROM ${altered} WHERE id = $1`, ['x']);
        // Several times, so that every pooled connection has run (and may have prepared) the read.
        for (let i = 0; i < 12; i++) expect(await read()).toEqual([{ id: 'x', a: 1 }]);
        await store.exec(`ALTER TABLE ${altered} ADD COLUMN b text DEFAULT 'new'`);
        for (let i = 0; i < 12; i++) expect(await read()).toEqual([{ id: 'x', a: 1, b: 'new' }]);
      } finally {
        await store.exec(`DROP TABLE IF EXISTS ${altered}`);
      }
    });
  });
}
