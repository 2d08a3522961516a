import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnEarshot } from '../../support/service-process.ts';
import { waitFor } from '../../support/wait-for.ts';

/**
 * A newcomer's first fifteen minutes, on the service `start.e2e.test.ts` starts as `npm start`
 * does (a fresh data dir, the demo corpus, every role, semantic search): the README's "First
 * queries" block, read from the README and run line by line; `earshot webhooks listen` against
 * it; and every analytics read with its defaults. Declared inside that file's describe, so the
 * demo is started and embedded once for both.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const run = promisify(execFile);

/** The shell block under "## First queries" in the README, as lines. */
function readmeFirstQueries(): string[] {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## First queries'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('README.md has no ```sh block under "## First queries"');
  return block.split('\n').filter((l) => l.trim().length > 0);
}

type Service = Awaited<ReturnType<typeof spawnEarshot>>;

/** The started demo: the service, its demo key, its data dir (the admin socket's). */
export interface DemoStart {
  svc: Service;
  key: string;
  dataDir: string;
}

/** Declares the suite; its hooks run when it is reached, after the tests declared before it. */
export function firstQueries(demo: () => DemoStart): void {
  describe("the README's first queries", () => suite(demo));
}

function suite(demo: () => DemoStart): void {
  let svc: Service;
  let KEY: string;
  let dataDir: string;
  const listeners: Service[] = [];
  const get = async <T>(p: string): Promise<T> => {
    const res = await fetch(`${svc.url}${p}`, { headers: { 'x-api-key': KEY } });
    expect(res.status, `${p}: ${await res.clone().text()}`).toBe(200);
    return (await res.json()) as T;
  };
  const listen = async (args: string[]) => {
    const l = await spawnEarshot(['webhooks', 'listen', ...args], { EARSHOT_DATA_DIR: dataDir });
    listeners.push(l);
    await waitFor(() => l.output().includes('Listening on'), {
      timeoutMs: 30_000,
      stepMs: 100,
      what: `earshot webhooks listen ready\n${l.output()}`,
    });
    return l;
  };
  const testWebhook = async (alertId: string) => {
    const res = await fetch(`${svc.url}/v1/alerts/${alertId}/test-webhook`, {
      method: 'POST',
      headers: { 'x-api-key': KEY },
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { deliveries: { delivered: boolean; error: string | null }[] }).deliveries;
  };

  beforeAll(async () => {
    ({ svc, key: KEY, dataDir } = demo());
    // Semantic search ready (the README's third line needs it): the start's own test waits for
    // it first; this holds when that test is skipped or failed early.
    await waitFor(
      async () => {
        const res = await fetch(`${svc.url}/readyz`).catch(() => undefined);
        if (res?.status !== 200) return false;
        const body = (await res.json()) as { info: { search: { semantic_state: string } } };
        return body.info.search.semantic_state === 'ready';
      },
      { timeoutMs: 280_000, stepMs: 500, what: `/readyz 200 with semantic search ready\n${svc?.output()}` },
    );
  }, 300_000);

  afterAll(async () => {
    for (const l of listeners) await l.stop('SIGINT');
  }, 60_000);

  it("runs the README's first queries: each answers 2xx with data, and the alert reaches the listener signed", async () => {
    const lines = readmeFirstQueries();
    const origin = svc.url.replace(/^http:\/\//, '');
    const vars: Record<string, string> = { EARSHOT_API_KEY: KEY };
    const answers: { line: string; body: unknown }[] = [];
    let listener: Service | undefined;
    expect(lines[0]).toMatch(/^export EARSHOT_API_KEY=/);
    for (const line of lines.slice(1)) {
      if (line.startsWith('#')) {
        // The listener the block asks for, in "another terminal".
        const command = /earshot webhooks listen ([^`]+)/.exec(line)?.[1];
        if (command) listener = await listen(command.trim().split(/\s+/));
        continue;
      }
      expect(line).toContain('localhost:8080');
      // The line as written, against this service; curl fails on a status ≥ 400.
      const script = line
        .replaceAll('localhost:8080', origin)
        .replaceAll('curl -s ', 'curl -sS --fail-with-body ');
      const assigned = /^([A-Z_]+)=\$\(/.exec(line)?.[1];
      const { stdout } = await run(
        'bash',
        ['-c', `set -euo pipefail\n${script}${assigned ? `\nprintf %s "$${assigned}"` : ''}`],
        { env: { ...process.env, ...vars }, timeout: 30_000 },
      ).catch((err: { stdout?: string; stderr?: string; message: string }) => {
        throw new Error(`${line}\n${err.message}\n${err.stdout ?? ''}${err.stderr ?? ''}`);
      });
      if (assigned) {
        expect(stdout, line).toMatch(/^[a-z]+_[a-z0-9]+$/);
        vars[assigned] = stdout;
        continue;
      }
      const body = JSON.parse(stdout) as { data?: unknown[]; deliveries?: unknown[] };
      const items = body.data ?? body.deliveries;
      expect(items?.length, `${line}\n${stdout.slice(0, 500)}`).toBeGreaterThan(0);
      answers.push({ line, body });
    }

    // Five reads and the test send; the listener checked the signature and printed the event.
    expect(answers).toHaveLength(6);
    expect(listener).toBeDefined();
    const sent = answers[5]!.body as { deliveries: { delivered: boolean; url: string }[] };
    expect(sent.deliveries).toEqual([expect.objectContaining({ delivered: true })]);
    await waitFor(() => listener!.output().includes('alert.match.created'), {
      timeoutMs: 10_000,
      what: `the listener prints the event\n${listener!.output()}`,
    });
    expect(listener!.output()).toMatch(
      /alert\.match\.created .*"Apple on air".*\[test\] {2}signature verified/,
    );
    const semantic = answers[2]!.body as { data: { match: { source: string } }[] };
    expect(semantic.data[0]!.match.source).toBe('semantic');
  }, 120_000);

  it('earshot webhooks listen: rejects a forged delivery; stopped, its receiver is refused; run again, it reuses the connection', async () => {
    const first = await listen(['--project', 'proj_demo', '--json']);
    const receiver = /Listening on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(first.output())![1]!;
    const connection = /connection {2}(whc_[a-z0-9]+)/.exec(first.output())![1]!;
    const create = await fetch(`${svc.url}/v1/projects/proj_demo/alerts`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({
        title: 'Listening',
        entities: [{ entity_type: 'COMPANY', entity_id: 'apple' }],
        notifications: [{ type: 'WEBHOOK', webhook_connection_id: connection }],
      }),
    });
    expect(create.status).toBe(201);
    const alert = ((await create.json()) as { id: string }).id;

    // A delivery signed with another secret is answered 400 and not printed as an event.
    const forged = await fetch(receiver, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-webhook-id': 'msg_forged',
        'x-webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'x-webhook-signature': 'v1,Zm9yZ2VkIHNpZ25hdHVyZQ==',
      },
      body: JSON.stringify({ event_type: 'alert.match.created' }),
    });
    expect(forged.status).toBe(400);
    expect(first.output()).toContain('signature check failed');

    expect(await testWebhook(alert)).toEqual([expect.objectContaining({ delivered: true })]);
    await waitFor(() => first.output().includes('"verified":true'), {
      timeoutMs: 10_000,
      what: 'a JSON event',
    });
    const event = JSON.parse(
      first
        .output()
        .split('\n')
        .find((l) => l.includes('"verified":true'))!,
    ) as {
      event: { alert: { id: string }; test: boolean };
    };
    expect(event.event).toMatchObject({ alert: { id: alert }, test: true });

    // Stopped: its lease ends, and the service refuses the loopback receiver again.
    expect((await first.stop('SIGINT')).code).toBe(0);
    expect(first.output()).toContain('stopped: the service refuses deliveries');
    expect(await testWebhook(alert)).toEqual([
      expect.objectContaining({ delivered: false, error: expect.stringMatching(/loopback/) }),
    ]);

    // Run again: the same connection (alerts that notify it deliver here), at the new receiver.
    const second = await listen(['--project', 'proj_demo']);
    expect(second.output()).toContain(`connection  ${connection} "earshot webhooks listen" (reused`);
    expect(await testWebhook(alert)).toEqual([expect.objectContaining({ delivered: true })]);
    await waitFor(() => second.output().includes('"Listening"'), { timeoutMs: 10_000, what: 'the event' });
  }, 120_000);

  it('answers every analytics read with its defaults, and has mentions from the last hour', async () => {
    type Page<T> = { data: T[] };
    const top = await get<Page<{ id: string; slug: string }>>('/v1/entities?limit=10');
    expect(top.data).toHaveLength(10);
    for (const e of top.data) {
      const mentions = await get<Page<unknown>>(`/v1/podcasts/mentions?entity_id=${e.id}`);
      const series = await get<{ totals: { mention_count: number } }>(
        `/v1/podcasts/mentions/timeseries?entity_id=${e.id}`,
      );
      const byPodcast = await get<Page<unknown>>(`/v1/podcasts/mentions/by-podcast?entity_id=${e.id}`);
      expect(mentions.data.length, e.slug).toBeGreaterThan(0);
      expect(series.totals.mention_count, e.slug).toBeGreaterThan(0);
      expect(byPodcast.data.length, e.slug).toBeGreaterThan(0);
    }
    const trends = await get<Page<{ sponsor: { id: string; company: { id: string } | null } }>>(
      '/v1/podcasts/advertising/sponsors/trends',
    );
    expect(trends.data.length).toBeGreaterThan(0);
    const sponsor = trends.data.find((t) => t.sponsor.company)!.sponsor.company!.id;
    const ads = await get<{ totals: { ad_count: number } }>(
      `/v1/podcasts/advertising/timeseries?company_id=${sponsor}`,
    );
    expect(ads.totals.ad_count).toBeGreaterThan(0);
    const sources = await get<Page<{ current_row_count: number }>>('/v1/podcasts/rankings/sources');
    expect(sources.data.length).toBeGreaterThan(0);
    const [podcast] = (await get<Page<{ id: string }>>('/v1/podcasts?limit=1')).data;
    expect((await get<Page<unknown>>(`/v1/podcasts/${podcast!.id}/rankings`)).data.length).toBeGreaterThan(0);

    // The newest episode came out within the hour, and what it mentions is in the mention reads.
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const episodes = await get<Page<{ id: string; published_at: string }>>('/v1/podcasts/episodes?limit=100');
    const newest = episodes.data.reduce((a, b) => (a.published_at > b.published_at ? a : b));
    expect(Date.parse(newest.published_at)).toBeGreaterThan(Date.parse(since));
    const named = await get<{
      entities: { entity: { id: string }; line_count: number; ad_line_count: number }[];
    }>(`/v1/podcasts/episodes/${newest.id}/transcript/mentions`);
    const discussed = named.entities.find((e) => e.line_count > e.ad_line_count);
    expect(discussed).toBeDefined();
    const recent = await get<Page<unknown>>(
      `/v1/podcasts/mentions?entity_id=${discussed!.entity.id}&since=${encodeURIComponent(since)}`,
    );
    expect(recent.data.length).toBeGreaterThan(0);
  }, 120_000);
}
