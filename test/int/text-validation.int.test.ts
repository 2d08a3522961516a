import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../infra/logger.ts';
import { BatchIngest } from '../../ingest/loader/batch-ingest.ts';
import { IngestState } from '../../ingest/loader/ingest-state.ts';
import { migrateAnalytics } from '../../projections/analytics/analytics-store.ts';
import { ChdbAnalyticsStore } from '../../projections/analytics/chdb-analytics-store.ts';
import { LanceDbSearchIndex } from '../../projections/search/lancedb/lancedb-search-index.ts';
import { IngestTokens } from '../../projections/state/ingest-tokens.ts';
import { catalogSlugHolders, testApi } from '../support/api.ts';
import { embeddedBackbone } from '../support/backbone.ts';

/**
 * Text no store accepts (NUL, lone surrogates) is refused at the edge on every operation of the
 * OpenAPI document, as a 422 naming where it was, before any route reads it.
 */
interface Operation {
  method: string;
  path: string;
  parameters: { name: string; in: string }[];
  hasBody: boolean;
}

type Problem = { error_code: string; errors: { location: string; message: string }[] };

const SECRET = 'value-that-must-not-be-logged';
const logLines: string[] = [];

describe('text every store accepts, checked at the HTTP edge', () => {
  let bb: Awaited<ReturnType<typeof embeddedBackbone>>;
  let api: Awaited<ReturnType<typeof testApi>>;
  let app: FastifyInstance;
  let analytics: ChdbAnalyticsStore;
  let index: LanceDbSearchIndex;
  let ingestState: IngestState;
  let ingestToken = '';
  const operations: Operation[] = [];

  beforeAll(async () => {
    bb = await embeddedBackbone();
    analytics = new ChdbAnalyticsStore(path.join(bb.dir, 'analytics'));
    await migrateAnalytics(analytics);
    index = new LanceDbSearchIndex(path.join(bb.dir, 'search'));
    await index.open();
    ingestState = new IngestState(path.join(bb.dir, 'ingest-state'));
    let tokens: IngestTokens | undefined;
    api = await testApi(
      { rateLimitPerMinute: 1_000_000 },
      (a) => {
        // Text that reaches a store without passing the edge (made inside a route, say).
        a.get('/v1/test/slipped-through', async () => {
          await api.state.query('SELECT id FROM catalog_podcasts WHERE id = $1', [`${SECRET}\u0000`]);
          return { ok: true };
        });
      },
      {
        logger: pino({ level: 'info' }, { write: (line: string) => logLines.push(line) }),
        analytics,
        searchIndex: index,
        ingest: (s) => {
          tokens = new IngestTokens(s);
          const batches = new BatchIngest({
            producer: bb.producer,
            log: bb.log,
            state: ingestState,
            logger: silentLogger(),
          });
          return { batches, state: ingestState, tokens, slugHolders: catalogSlugHolders(s) };
        },
      },
    );
    app = api.app;
    ingestToken = (await tokens!.create({ name: 'text test' })).token;
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<
        string,
        Record<string, { parameters?: Operation['parameters']; requestBody?: unknown; security?: unknown[] }>
      >;
    };
    for (const [p, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        operations.push({
          method: method.toUpperCase(),
          path: p,
          parameters: op.parameters ?? [],
          hasBody: op.requestBody !== undefined,
        });
      }
    }
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await index?.close();
    await analytics?.close();
    await ingestState?.close();
    await bb?.close();
  });

  const headersFor = (op: Operation) =>
    op.path === '/v1/ingest/batches'
      ? { authorization: `Bearer ${ingestToken}` }
      : { 'x-api-key': api.keys.business! };

  /** The operation's URL with every path parameter set, one of them (if named) to `bad`. */
  function url(op: Operation, bad?: { name: string; value: string }, query = ''): string {
    const filled = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
      encodeURIComponent(name === bad?.name ? bad.value : 'x1'),
    );
    return `${filled}${query}`;
  }

  async function expect422(
    op: Operation,
    request: { url: string; payload?: unknown },
    location: string,
  ): Promise<void> {
    const res = await app.inject({
      method: op.method as 'GET',
      url: request.url,
      headers: headersFor(op),
      ...(request.payload !== undefined ? { payload: request.payload as object } : {}),
    });
    const what = `${op.method} ${op.path} with ${location}: ${res.statusCode} ${res.body.slice(0, 300)}`;
    expect(res.statusCode, what).toBe(422);
    expect(String(res.headers['content-type']), what).toMatch(/^application\/problem\+json/);
    const body = res.json() as Problem;
    expect(body.error_code, what).toBe('validation_error');
    expect(
      body.errors.map((e) => e.location),
      what,
    ).toContain(location);
  }

  it('finds the operations of the document (every route family is served)', () => {
    const paths = new Set(operations.map((o) => o.path));
    for (const p of [
      '/v1/ingest/batches',
      '/v1/podcasts',
      '/v1/podcasts/episodes/search',
      '/v1/projects/{projectId}/alerts',
      '/v1/projects/{projectId}/webhooks/connections',
    ]) {
      expect(
        [...paths].some((x) => x.startsWith(p)),
        p,
      ).toBe(true);
    }
    expect(operations.length).toBeGreaterThan(40);
  });

  it('answers 422 naming the path parameter that holds a NUL, on every operation with one', async () => {
    let checked = 0;
    for (const op of operations) {
      for (const param of op.parameters.filter((p) => p.in === 'path')) {
        await expect422(
          op,
          { url: url(op, { name: param.name, value: `a\u0000b` }), payload: op.hasBody ? {} : undefined },
          `path.${param.name}`,
        );
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('answers 422 naming the query parameter that holds a NUL, on every operation with one', async () => {
    let checked = 0;
    for (const op of operations) {
      for (const param of op.parameters.filter((p) => p.in === 'query')) {
        await expect422(
          op,
          {
            url: url(op, undefined, `?${encodeURIComponent(param.name)}=${encodeURIComponent('a\u0000b')}`),
            payload: op.hasBody ? {} : undefined,
          },
          `query.${param.name}`,
        );
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('answers 422 naming a body field at any depth that holds a NUL or a lone surrogate, on every operation with a body', async () => {
    let checked = 0;
    for (const op of operations.filter((o) => o.hasBody)) {
      await expect422(
        op,
        {
          url: url(op),
          payload: { name: 'fine', entities: [{ entity_id: 'ent\u0000x', entity_type: 'person' }] },
        },
        'body.entities[0].entity_id',
      );
      await expect422(op, { url: url(op), payload: { title: 'half a pair \ud83d here' } }, 'body.title');
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(9);
  });

  it('refuses a lone surrogate in the query, and a NUL in an object key', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/v1/podcasts?publisher_id=%ED%A0%80',
      headers: { 'x-api-key': api.keys.business! },
    });
    // Not UTF-8 at all: the query decoder leaves it alone or the parameter is refused; never a 500.
    expect(res.statusCode).toBeLessThan(500);
    const key = await app.inject({
      method: 'POST',
      url: `/v1/projects/${api.projects.business}/alerts`,
      headers: { 'x-api-key': api.keys.business! },
      payload: { 'bad\u0000key': 1 },
    });
    expect(key.statusCode).toBe(422);
    expect((key.json() as Problem).errors[0]!.message).toMatch(/property name must not contain the NUL/);
  });

  it('still serves ordinary text, accents and emoji included', async () => {
    const res = await app.inject({
      method: 'GET',
      url: `/v1/podcasts/search?q=${encodeURIComponent('Café 🎙️ ünïcode')}`,
      headers: { 'x-api-key': api.keys.business! },
    });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('answers 422, not 500, when text a store refuses slips past the edge, and logs no parameter values', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/v1/test/slipped-through',
      headers: { 'x-api-key': api.keys.business! },
    });
    expect(res.statusCode, res.body).toBe(422);
    expect((res.json() as Problem).error_code).toBe('unprocessable_entity');
    const logged = logLines.join('');
    expect(logged).toContain('request refused by a store');
    expect(logged).toContain('SELECT id FROM catalog_podcasts WHERE id = $1');
    expect(logged).not.toContain(SECRET);
  });
});
