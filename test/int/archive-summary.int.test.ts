import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentStack, agentStack } from '../support/agents.ts';
import { archiveParts, episodeEvents, podcastSummaryPart } from '../support/archive.ts';
import { tempDir } from '../support/temp-dir.ts';

/**
 * The archive period summary (`GET /v1/podcasts/episodes/archive/summary`) and its tool
 * (`earshot_archive_summary`): counts checked against the episodes written, sizes against the
 * bytes the bulk download actually sends.
 */
const HOUR = 3_600_000;
const JAN = Date.UTC(2026, 0, 1);
/** The fixture: [hours after 1 Jan 2026 00:00 UTC, podcast]. Three days of January, one of February. */
const EPISODES: [number, string][] = [
  [1, 'pod_a'],
  [2, 'pod_b'],
  [5, 'pod_a'],
  [30, 'pod_a'],
  [50, 'pod_b'],
  [51, 'pod_c'],
  [52, 'pod_b'],
  [24 * 40, 'pod_c'],
];
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const tmp = tempDir('earshot-archive-summary-');
let stack: AgentStack;
let key: string;

beforeAll(async () => {
  stack = await agentStack({ archive: { buildsDir: tmp.dir } });
  const { api } = stack;
  await api.state.exec(`
    INSERT INTO catalog_podcasts (id, slug, title, language, publisher_id, updated_at) VALUES
      ('pod_a', 'pod-a', 'Pod A', 'en-US', NULL, now()), ('pod_b', 'pod-b', 'Pod B', 'en-US', NULL, now()),
      ('pod_c', 'pod-c', 'Pod C', 'en-US', NULL, now());
  `);
  await api.archive!.write(['pod_a', 'pod_b', 'pod_c'].map((p) => podcastSummaryPart(p)));
  for (const [i, [h, podcastId]] of EPISODES.entries())
    await api.archive!.write(
      archiveParts(episodeEvents({ id: `ep_sum_${i}`, podcastId, publishedAt: JAN + h * HOUR }), Date.now()),
    );
  await api.accounts.grantEntitlement(api.projects.enterprise!, 'archive');
  key = api.keys.enterprise!;
}, 120_000);
afterAll(async () => {
  await stack?.close();
  tmp.remove();
});

const get = (path: string, k = key) => fetch(`${stack.publicUrl}${path}`, { headers: { 'x-api-key': k } });

/** The raw bytes of a download (fetch would decode gzip). */
function rawGet(path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: Buffer }>((resolve, reject) => {
    http
      .get(`${stack.publicUrl}${path}`, { headers: { 'x-api-key': key, ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

interface Summary {
  period: string;
  from: string;
  to: string;
  episodes: number;
  podcasts: number;
  include: string[];
  days: {
    day: string;
    episodes: number;
    podcasts: number;
    generation: number;
    ndjson_bytes: number | null;
    gzip_bytes: number | null;
  }[];
  download: { url: string; ndjson_bytes: number | null; gzip_bytes: number | null };
  stream_url: string;
}

/** What the fixture says about a period (`YYYY-MM` or a day). */
function expected(period: string) {
  const inPeriod = EPISODES.map(([h, p]) => ({ day: dayOf(JAN + h * HOUR), podcast: p })).filter((e) =>
    e.day.startsWith(period),
  );
  const days = [...new Set(inPeriod.map((e) => e.day))].sort();
  return {
    episodes: inPeriod.length,
    podcasts: new Set(inPeriod.map((e) => e.podcast)).size,
    days: days.map((day) => ({
      day,
      episodes: inPeriod.filter((e) => e.day === day).length,
      podcasts: new Set(inPeriod.filter((e) => e.day === day).map((e) => e.podcast)).size,
    })),
  };
}

describe('archive period summary', () => {
  it('needs the archive entitlement and a valid period', async () => {
    const denied = await get(
      '/v1/podcasts/episodes/archive/summary?period=2026-01',
      stack.api.keys.business!,
    );
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as { error_code: string }).error_code).toBe('entitlement_required');
    for (const [query, location] of [
      ['period=2026-13', 'query.period'],
      ['period=2026-02-30', 'query.period'],
      ['', 'query.period'],
      ['period=2026-01&include=words', 'query.include'],
    ]) {
      const res = await get(`/v1/podcasts/episodes/archive/summary?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      const body = (await res.json()) as { errors: { location: string }[] };
      expect(body.errors.map((e) => e.location)).toContain(location);
    }
  });

  it('counts episodes and podcasts per day and in all; sizes are unknown until the download builds the period', async () => {
    for (const period of ['2026-01', '2026-01-03', '2026-02', '2026-03']) {
      const res = await get(`/v1/podcasts/episodes/archive/summary?period=${period}`);
      expect(res.status, period).toBe(200);
      const s = (await res.json()) as Summary;
      const want = expected(period);
      expect(s).toMatchObject({ period, episodes: want.episodes, podcasts: want.podcasts });
      expect(s.days.map(({ day, episodes, podcasts }) => ({ day, episodes, podcasts }))).toEqual(want.days);
      expect(s.include).toEqual(['clips', 'segments', 'transcript']);
      expect(s.download.url).toBe(`/v1/podcasts/episodes/archive/download?period=${period}`);
      expect(s.stream_url).toBe(`/v1/podcasts/episodes/archive/stream?period=${period}`);
      if (want.episodes > 0) {
        expect(s.download).toMatchObject({ ndjson_bytes: null, gzip_bytes: null });
        expect(s.days.every((d) => d.ndjson_bytes === null && d.gzip_bytes === null)).toBe(true);
      }
    }
    const month = (await (
      await get('/v1/podcasts/episodes/archive/summary?period=2026-01')
    ).json()) as Summary;
    expect(month.from).toBe('2026-01-01');
    expect(month.to).toBe('2026-01-31');
  });

  it('gives the sizes of the download once built: what the download sends, plain and gzip, per day and in all', async () => {
    const plain = await rawGet('/v1/podcasts/episodes/archive/download?period=2026-01', {
      'accept-encoding': 'identity',
    });
    expect(plain.status).toBe(200);
    const gz = await rawGet('/v1/podcasts/episodes/archive/download?period=2026-01', {
      'accept-encoding': 'gzip',
    });
    expect(gz.status).toBe(200);
    const s = (await (await get('/v1/podcasts/episodes/archive/summary?period=2026-01')).json()) as Summary;
    expect(s.download.ndjson_bytes).toBe(plain.body.length);
    expect(s.download.gzip_bytes).toBe(gz.body.length);
    // Per day: the NDJSON lines of that day's records.
    const perDay = new Map<string, number>();
    for (const line of plain.body.toString('utf8').split('\n').filter(Boolean)) {
      const day = dayOf(Date.parse((JSON.parse(line) as { published_at: string }).published_at));
      perDay.set(day, (perDay.get(day) ?? 0) + Buffer.byteLength(`${line}\n`));
    }
    expect(s.days.map((d) => [d.day, d.ndjson_bytes])).toEqual([...perDay].sort());
    expect(s.days.every((d) => typeof d.gzip_bytes === 'number' && d.gzip_bytes > 0)).toBe(true);
    // Sizes are of an include set: another set is not built yet.
    const lean = (await (
      await get('/v1/podcasts/episodes/archive/summary?period=2026-01&include=clips')
    ).json()) as Summary;
    expect(lean.include).toEqual(['clips']);
    expect(lean.download).toMatchObject({
      url: '/v1/podcasts/episodes/archive/download?period=2026-01&include=clips',
      ndjson_bytes: null,
    });
  });

  it('is a tool answering with the REST body as structured content', async () => {
    const res = await fetch(`${stack.mcpUrl}?tools=earshot_archive_summary`, {
      method: 'POST',
      headers: {
        'x-api-key': key,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'earshot_archive_summary', arguments: { period: '2026-01' } },
      }),
    });
    expect(res.status).toBe(200);
    const { result } = (await res.json()) as {
      result: { isError?: boolean; structuredContent: Summary; content: { text: string }[] };
    };
    expect(result.isError).toBeFalsy();
    const rest = (await (
      await get('/v1/podcasts/episodes/archive/summary?period=2026-01')
    ).json()) as Summary;
    expect(result.structuredContent).toEqual(rest);
    const want = expected('2026-01');
    expect(result.content[0]!.text).toContain(
      `2026-01: ${want.episodes} episodes from ${want.podcasts} podcasts`,
    );
    for (const d of want.days)
      expect(result.content[0]!.text).toContain(`- ${d.day}: ${d.episodes} episodes`);
  });
});
