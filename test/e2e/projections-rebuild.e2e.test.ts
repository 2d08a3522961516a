import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PgliteStateStore } from '../../projections/state/pglite-state-store.ts';
import { spawnEarshot } from '../support/service-process.ts';
import { tempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

const KEY = 'esk_e2e_projections_rebuild_0123456789';

type Counts = { mention_count: number; episode_count: number; podcast_count: number };

/**
 * What a user reads from each projection: the catalog, the search index, the analytics store
 * (mention totals of every company, over the default window).
 */
async function readAll(url: string) {
  const get = async <T = { data: Record<string, unknown>[] }>(p: string) => {
    const res = await fetch(`${url}${p}`, { headers: { 'x-api-key': KEY } });
    expect(res.status, `${p}: ${await res.clone().text()}`).toBe(200);
    return (await res.json()) as T;
  };
  const podcasts = await get('/v1/podcasts?limit=100');
  const companies = await get('/v1/companies?limit=100');
  // Every segment with the word, page after page: the set does not depend on how ties rank.
  const segments: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page++) {
    const search = await get<{ data: { segment: { id: string } }[]; has_more: boolean; cursor?: string }>(
      `/v1/podcasts/episodes/search?keyword_search=episode&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
    );
    segments.push(...search.data.map((d) => d.segment.id));
    if (!search.has_more) break;
    cursor = search.cursor;
  }
  // The archive: a month's bulk download (the replay's records, NDJSON).
  const month = new Date(Date.now() - 35 * 86_400_000).toISOString().slice(0, 7);
  const download = await fetch(`${url}/v1/podcasts/episodes/archive/download?period=${month}`, {
    headers: { 'x-api-key': KEY, 'accept-encoding': 'identity' },
  });
  expect(download.status).toBe(200);
  const archive = await download.text();
  const mentions: Record<string, Counts> = {};
  for (const c of companies.data) {
    const id = c['id'] as string;
    mentions[id] = (await get<{ totals: Counts }>(`/v1/podcasts/mentions/timeseries?entity_id=${id}`)).totals;
  }
  return {
    podcasts: podcasts.data.map((p) => p['id']).sort(),
    companies: companies.data.map((c) => c['id']).sort(),
    segments: segments.sort(),
    mentions,
    archive,
  };
}

/** A month's archive replay read whole (it ends with `complete`): its last event id. */
async function replayCursor(url: string): Promise<string> {
  const month = new Date(Date.now() - 35 * 86_400_000).toISOString().slice(0, 7);
  const res = await fetch(`${url}/v1/podcasts/episodes/archive/stream?period=${month}`, {
    headers: { 'x-api-key': KEY },
  });
  const text = await res.text();
  expect(text).toContain('event: complete');
  return [...text.matchAll(/^id: (.+)$/gm)].at(-1)![1]!;
}

async function serveUntilReady(env: Record<string, string>) {
  const svc = await spawnEarshot(['start'], env);
  await waitFor(async () => (await fetch(`${svc.url}/readyz`).catch(() => undefined))?.status === 200, {
    timeoutMs: 120_000,
    stepMs: 250,
    what: `/readyz 200\n${svc.output()}`,
  });
  return svc;
}

describe('earshot projections rebuild', () => {
  const tmp = tempDir();
  afterAll(() => tmp.remove());

  it('empties the catalog, search, analytics and archive projections, and the service writes the same answers again from the log', async () => {
    const env = { EARSHOT_DATA_DIR: tmp.dir, EARSHOT_DEMO: 'on', EARSHOT_BOOTSTRAP_API_KEY: KEY };
    let svc = await serveUntilReady(env);
    let before: Awaited<ReturnType<typeof readAll>>;
    let cursor: string;
    try {
      before = await readAll(svc.url);
      cursor = await replayCursor(svc.url);
      // Refused while the service holds the embedded stores.
      const refused = await spawnEarshot(['projections', 'rebuild', 'all'], env);
      expect((await refused.exited).code).toBe(2);
      expect(refused.output()).toContain('stop the service before rebuilding projections');
    } finally {
      expect((await svc.stop('SIGTERM')).code, svc.output()).toBe(0);
    }
    expect(before.podcasts.length).toBeGreaterThan(0);
    expect(before.segments.length).toBeGreaterThan(0);
    expect(Object.values(before.mentions).some((m) => m.mention_count > 0)).toBe(true);
    expect(before.archive.split('\n').length).toBeGreaterThan(5);

    const unknown = await spawnEarshot(['projections', 'rebuild', 'podcasts'], env);
    expect((await unknown.exited).code).toBe(2);
    expect(unknown.output()).toContain('unknown projection podcasts');

    const rebuild = await spawnEarshot(['projections', 'rebuild', 'all'], env);
    expect((await rebuild.exited).code, rebuild.output()).toBe(0);
    expect(rebuild.output()).toMatch(
      /catalog: emptied .*projector\.catalog back at the start: [1-9]\d* records/,
    );
    expect(rebuild.output()).toMatch(/search: deleted .*projector\.search, projector\.search-names back/);
    expect(rebuild.output()).toMatch(/analytics: emptied \d+ tables; projector\.analytics-catalog/);
    expect(rebuild.output()).toMatch(
      /archive: emptied archive_episodes.*projector\.archive back at the start/,
    );

    // Emptied: no search table is left but the vectors kept aside for the filler, and the
    // catalog tables hold nothing.
    const searchDir = path.join(tmp.dir, 'search');
    const tables = fs.existsSync(searchDir)
      ? fs.readdirSync(searchDir).filter((n) => n.endsWith('.lance'))
      : [];
    expect(tables.filter((n) => !n.startsWith('carried_'))).toEqual([]);
    const state = new PgliteStateStore(path.join(tmp.dir, 'state'));
    try {
      const [row] = await state.query<{ n: number }>('SELECT count(*)::int AS n FROM catalog_podcasts');
      expect(row!.n).toBe(0);
    } finally {
      await state.close();
    }

    svc = await serveUntilReady(env);
    try {
      expect(await readAll(svc.url)).toEqual(before);
      // A replay position from before the rebuild is stale: the client starts again.
      const month = new Date(Date.now() - 35 * 86_400_000).toISOString().slice(0, 7);
      const res = await fetch(
        `${svc.url}/v1/podcasts/episodes/archive/stream?period=${month}&cursor=${cursor!}`,
        {
          headers: { 'x-api-key': KEY },
        },
      );
      expect(await res.text()).toContain('"error_code":"cursor_stale"');
    } finally {
      expect((await svc.stop('SIGTERM')).code, svc.output()).toBe(0);
    }
  }, 300_000);
});
