import { describe, expect, it } from 'vitest';
import { AnalyticsQueryError } from '../../projections/analytics/analytics-store.ts';
import {
  classifyingErrors,
  classifyLanceDbError,
  classifyOpenSearchError,
  openSearchError,
} from '../../projections/search/search-errors.ts';
import { stateStoreError } from '../../projections/state/state-errors.ts';
import {
  errorKind,
  PermanentWriteError,
  StoreDataError,
  StoreUnavailableError,
  statementShape,
} from '../../projections/store-errors.ts';

describe('store error classification', () => {
  it('reads permanent and transient from the flags, then from network codes and client error names', () => {
    expect(errorKind(new PermanentWriteError('x'))).toBe('permanent');
    expect(errorKind(new StoreDataError('x', { store: 'postgres' }))).toBe('permanent');
    expect(errorKind(new StoreUnavailableError('x', { store: 'postgres' }))).toBe('transient');
    expect(errorKind(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).toBe('transient');
    expect(errorKind(Object.assign(new Error('slow'), { name: 'TimeoutError' }))).toBe('transient');
    expect(
      errorKind(new AggregateError([Object.assign(new Error('a'), { code: 'ECONNREFUSED' })], 'all failed')),
    ).toBe('transient');
    expect(errorKind(new Error('something else'))).toBe('unknown');
    expect(errorKind('a string')).toBe('unknown');
  });

  it('classifies SQLSTATEs: data exceptions, constraints and limits are permanent; connections and shutdowns transient', () => {
    const pg = (code: string, message = 'engine message') => Object.assign(new Error(message), { code });
    const sql = "INSERT INTO t (id) VALUES ($1) -- 'literal'";
    for (const code of ['22021', '22P05', '22P02', '23505', '23503', '54000']) {
      const err = stateStoreError(pg(code), 'postgres', sql);
      expect(err, code).toBeInstanceOf(StoreDataError);
      expect((err as StoreDataError).code).toBe(code);
    }
    for (const code of ['08006', '57P01', '57014', '53300', '40001', '55P03']) {
      expect(errorKind(stateStoreError(pg(code), 'postgres', sql)), code).toBe('transient');
    }
    expect(errorKind(stateStoreError(new Error('Connection terminated unexpectedly'), 'postgres', sql))).toBe(
      'transient',
    );
    expect(errorKind(stateStoreError(pg('42703'), 'postgres', sql))).toBe('unknown');
    // The engine's own error carries the statement and its parameters; the classified one never does.
    const engine = Object.assign(pg('22021', 'invalid byte sequence for encoding "UTF8": 0x00\nmore'), {
      query: sql,
      params: ['secret'],
      detail: 'Key (id)=(secret) already exists.',
    });
    const clean = stateStoreError(engine, 'embedded', sql, 's_abc');
    expect(JSON.stringify({ ...clean, message: clean.message })).not.toContain('secret');
    expect(clean.message).toBe('invalid byte sequence for encoding "UTF8": 0x00');
    expect((clean as StoreDataError).statement).toBe("s_abc: INSERT INTO t (id) VALUES ($1) -- '…'");
  });

  it('shapes statements without literals, whitespace collapsed and bounded', () => {
    expect(statementShape("SELECT *\n   FROM t WHERE a = 'it''s' AND b = $1")).toBe(
      "SELECT * FROM t WHERE a = '…' AND b = $1",
    );
    expect(statementShape('x'.repeat(500)).length).toBe(160);
  });

  it('classifies ClickHouse codes and client timeouts', () => {
    expect(errorKind(new AnalyticsQueryError('Cannot parse escape sequence', 25, 'INSERT INTO t'))).toBe(
      'permanent',
    );
    expect(errorKind(new AnalyticsQueryError('Timeout exceeded', 159, 'SELECT 1'))).toBe('transient');
    expect(errorKind(new AnalyticsQueryError('Unknown identifier', 47, 'SELECT x'))).toBe('unknown');
    expect(
      new AnalyticsQueryError('Code: 27. Cannot parse input\nRow 1: secret', 27, 'INSERT').message,
    ).not.toContain('secret');
  });

  it('classifies OpenSearch responses by error type and status, and connection errors as transient', () => {
    expect(openSearchError({ type: 'mapper_parsing_exception', reason: 'bad' }, 400, 'bulk')).toBeInstanceOf(
      StoreDataError,
    );
    expect(errorKind(openSearchError({ type: 'es_rejected_execution_exception' }, 429, 'bulk'))).toBe(
      'transient',
    );
    const response = Object.assign(new Error('ResponseError'), {
      name: 'ResponseError',
      meta: { statusCode: 400, body: { error: { type: 'search_phase_execution_exception', reason: 'x' } } },
    });
    expect(errorKind(classifyOpenSearchError(response))).toBe('permanent');
    const down = Object.assign(new Error('connect ECONNREFUSED'), { name: 'ConnectionError' });
    expect(errorKind(classifyOpenSearchError(down))).toBe('transient');
    expect(errorKind(classifyLanceDbError(new Error('lance error: Invalid user input: bad filter')))).toBe(
      'permanent',
    );
    expect(errorKind(classifyLanceDbError(new Error('Too many open files')))).toBe('transient');
  });

  it('passes every method failure of a wrapped index through the classifier, and leaves the rest alone', async () => {
    class Index {
      readonly kind = 'fake';
      private n = 1;
      get dimensions() {
        return this.n * 384;
      }
      schedule(): number {
        return this.n;
      }
      async fails(): Promise<void> {
        throw new Error('lance error: Invalid user input: x');
      }
      throwsAtOnce(): void {
        throw new Error('Too many open files');
      }
    }
    const wrapped = classifyingErrors(new Index(), classifyLanceDbError);
    expect(wrapped.kind).toBe('fake');
    expect(wrapped.dimensions).toBe(384);
    expect(wrapped.schedule()).toBe(1);
    await expect(wrapped.fails()).rejects.toBeInstanceOf(StoreDataError);
    expect(() => wrapped.throwsAtOnce()).toThrow(StoreUnavailableError);
  });
});
